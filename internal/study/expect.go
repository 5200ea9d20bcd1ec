package study

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"tierbench/internal/report"
	"tierbench/internal/yamltext"
)

// Claim is one entry of a study's expect: a finding the study should show, in one
// line (Text), with the paper's figure (Paper), where it comes from (Source) and, for
// a ratio or a flat trend, the band it is held within (Held). docs/studies.md,
// "Expected findings", is its manual:
//
//	ratio:  tps cache=on / cache=off at users=8
//	order:  nopm placement III > I > IV > II at engine=postgres
//	trend:  qphh_at_size storage=dram-ssd / storage=hdd-array rises with sf
//	flat:   qphh_at_size flat with buffer from 512MB at medium=hdd-15k
type Claim struct {
	ID     string `json:"id"`
	Text   string `json:"claim"`
	Paper  string `json:"paper"`
	Source string `json:"source"`
	Held   string `json:"held,omitempty"`
	Kind   string `json:"kind"`
	Metric string `json:"metric"`
	// Num and Den are a ratio's two sides (also of a trend of a ratio); At the levels
	// every cell of the claim has.
	Num []report.Factor `json:"num,omitempty"`
	Den []report.Factor `json:"den,omitempty"`
	At  []report.Factor `json:"at,omitempty"`
	// Factor is what an order ranks or a trend runs over; Levels an order's levels,
	// highest first, or a trend's in the factor's numeric order from From (set when
	// the claim is checked against the study).
	Factor string   `json:"factor,omitempty"`
	Levels []string `json:"levels,omitempty"`
	From   string   `json:"from,omitempty"`
	// Low and High bound what counts as held: a ratio's measured value, or a flat
	// trend's ratio of each level to the first.
	Low  float64 `json:"held_low,omitempty"`
	High float64 `json:"held_high,omitempty"`
	// Pos is the entry; TextPos its claim and HeldPos its band, for errors.
	Pos     Pos `json:"-"`
	TextPos Pos `json:"-"`
	HeldPos Pos `json:"-"`
}

// Kinds of claim.
const (
	ClaimRatio = "ratio"
	ClaimOrder = "order"
	ClaimRises = "rises"
	ClaimFalls = "falls"
	ClaimFlat  = "flat"
)

var claimFields = []string{"id", "claim", "paper", "source", "held"}

// claimForms is the grammar, for errors.
const claimForms = "write METRIC A / B [at ...] (a ratio: tps cache=on / cache=off at users=8), METRIC FACTOR L1 > L2 [> ...] (an order: nopm placement III > I), " +
	"METRIC [A / B] rises|falls with FACTOR [from LEVEL] (a trend: qphh_at_size storage=dram-ssd / storage=hdd-array rises with sf), or METRIC [A / B] flat with FACTOR [from LEVEL]"

// expect reads a study's expect: a list of claims.
func (p *problems) expect(e entry) []Claim {
	if e.value.Kind != yaml.SequenceNode {
		p.add(at(e.value, e.field), "must be a list of claims such as {id: tps-gain, claim: \"tps cache=on / cache=off at users=8\", paper: 6.9, source: \"...\", held: within 25%%}")
		return nil
	}
	var out []Claim
	ids := map[string]bool{}
	for i, n := range e.value.Content {
		field := yamltext.Item(e.field, i)
		c, ok := p.claim(n, field)
		if !ok {
			continue
		}
		if ids[c.ID] {
			p.add(c.Pos, "id %q is given twice: each claim has its own", c.ID)
			continue
		}
		ids[c.ID] = true
		out = append(out, c)
	}
	return out
}

// claim reads one claim: its fields, its one-line claim and its band.
func (p *problems) claim(n *yaml.Node, field string) (Claim, bool) {
	c := Claim{Pos: at(n, field)}
	if n.Kind != yaml.MappingNode {
		p.add(c.Pos, "must be a mapping of %s", strings.Join(claimFields, ", "))
		return c, false
	}
	before := p.Len()
	for _, e := range p.mapping(n, field, claimFields...) {
		s, ok := p.scalar(e)
		if !ok {
			continue
		}
		s = strings.TrimSpace(s)
		switch e.key.Value {
		case "id":
			if !nameRE.MatchString(s) {
				p.add(at(e.value, e.field), "%q: an id is lower-case letters, digits, '.', '_' and '-' (e.g. tps-gain)", s)
			}
			c.ID = s
		case "claim":
			c.Text, c.TextPos = s, at(e.value, e.field)
		case "paper":
			c.Paper = s
		case "source":
			c.Source = s
		case "held":
			c.Held, c.HeldPos = s, at(e.value, e.field)
		}
	}
	for _, req := range []struct{ name, v, eg string }{
		{"id", c.ID, "id: tps-gain"},
		{"claim", c.Text, "claim: tps cache=on / cache=off at users=8"},
		{"paper", c.Paper, "paper: 6.9, the paper's figure"},
		{"source", c.Source, `source: "seed 002, Conclusion: 346 -> 2374 TPS"`},
	} {
		if req.v == "" && p.Len() == before {
			p.add(c.Pos, "%s is missing: give %s", req.name, req.eg)
		}
	}
	if p.Len() > before {
		return c, false
	}
	if err := parseClaim(&c); err != nil {
		p.add(c.TextPos, "%q: %v", c.Text, err)
		return c, false
	}
	if _, err := paperNumber(c.Paper); c.Kind == ClaimRatio && err != nil {
		p.add(c.Pos, "paper: %q: a ratio's paper figure is a number, such as 6.9 or 6.9x", c.Paper)
		return c, false
	}
	if err := c.parseHeld(); err != nil {
		pos := c.HeldPos
		if c.Held == "" {
			pos = c.Pos
		}
		p.add(pos, "%v", err)
		return c, false
	}
	return c, true
}

// parseClaim reads c.Text into c's kind, metric, sides, levels and factor.
func parseClaim(c *Claim) error {
	toks := strings.Fields(c.Text)
	if len(toks) < 3 {
		return fmt.Errorf("too short: %s", claimForms)
	}
	c.Metric, toks = toks[0], toks[1:]
	if strings.Contains(c.Metric, "=") || slices.Contains([]string{"/", ">", "<"}, c.Metric) {
		return fmt.Errorf("a claim starts with the metric it is about (tps, nopm, qphh_at_size, ...): %s", claimForms)
	}
	if i := slices.Index(toks, "at"); i >= 0 {
		at, err := terms(toks[i+1:], "at")
		if err != nil {
			return err
		}
		if len(at) == 0 {
			return fmt.Errorf("'at' needs the levels every cell of the claim has, e.g. at users=8")
		}
		c.At, toks = at, toks[:i]
	}
	trend := -1
	for i, t := range toks {
		if t == ClaimRises || t == ClaimFalls || t == ClaimFlat {
			trend = i
			break
		}
	}
	if trend >= 0 {
		tail := toks[trend:]
		c.Kind, toks = tail[0], toks[:trend]
		if len(tail) < 3 || tail[1] != "with" {
			return fmt.Errorf("a trend reads %s with FACTOR [from LEVEL], e.g. rises with sf", tail[0])
		}
		c.Factor = tail[2]
		switch rest := tail[3:]; {
		case len(rest) == 0:
		case len(rest) == 2 && rest[0] == "from":
			c.From = rest[1]
		default:
			return fmt.Errorf("after %s with %s comes nothing, from LEVEL, or at LEVELS: not %q", c.Kind, c.Factor, strings.Join(rest, " "))
		}
	}
	switch {
	case slices.Contains(toks, "/"):
		i := slices.Index(toks, "/")
		num, err := terms(toks[:i], "a ratio's numerator")
		if err != nil {
			return err
		}
		den, err := terms(toks[i+1:], "a ratio's denominator")
		if err != nil {
			return err
		}
		if len(num) == 0 || len(den) == 0 {
			return fmt.Errorf("a ratio has levels on both sides of '/', e.g. cache=on / cache=off")
		}
		c.Num, c.Den = num, den
		if c.Kind == "" {
			c.Kind = ClaimRatio
		}
	case len(toks) == 0 && c.Kind != "":
		// a trend of the metric itself
	case slices.ContainsFunc(toks, func(t string) bool { return t == ">" || t == "<" }):
		if c.Kind != "" {
			return fmt.Errorf("an order and a trend cannot be one claim: give two")
		}
		return parseOrder(c, toks)
	default:
		return fmt.Errorf("%q is not a claim: %s", strings.Join(toks, " "), claimForms)
	}
	return nil
}

// parseOrder reads FACTOR L1 > L2 > ... (or <) into c, Levels highest first.
func parseOrder(c *Claim, toks []string) error {
	c.Kind = ClaimOrder
	if strings.Contains(toks[0], "=") || toks[0] == ">" || toks[0] == "<" {
		return fmt.Errorf("an order names its factor, then its levels: METRIC FACTOR L1 > L2, e.g. nopm placement III > I")
	}
	c.Factor = toks[0]
	rest := toks[1:]
	if len(rest) < 3 || len(rest)%2 == 0 {
		return fmt.Errorf("an order is levels of %s between '>' (or '<'), e.g. %s A > B > C", c.Factor, c.Factor)
	}
	op := rest[1]
	for i, t := range rest {
		isOp := t == ">" || t == "<"
		switch {
		case i%2 == 1 && t != op:
			return fmt.Errorf("an order goes one way: use '%s' between every two levels", op)
		case i%2 == 0 && (isOp || strings.Contains(t, "=")):
			return fmt.Errorf("%q: an order's levels are labels of %s, between '%s'", t, c.Factor, op)
		case i%2 == 0:
			if slices.Contains(c.Levels, t) {
				return fmt.Errorf("level %s is ranked twice", t)
			}
			c.Levels = append(c.Levels, t)
		}
	}
	if op == "<" {
		slices.Reverse(c.Levels)
	}
	return nil
}

// terms reads factor=level tokens.
func terms(toks []string, what string) ([]report.Factor, error) {
	var out []report.Factor
	for _, t := range toks {
		f, l, ok := strings.Cut(t, "=")
		if !ok || f == "" || l == "" {
			return nil, fmt.Errorf("%q in %s: write factor=level, e.g. cache=on", t, what)
		}
		if slices.ContainsFunc(out, func(x report.Factor) bool { return x.Name == f }) {
			return nil, fmt.Errorf("%s is given twice in %s", f, what)
		}
		out = append(out, report.Factor{Name: f, Value: l})
	}
	return out, nil
}

// parseHeld reads the band a ratio or a flat trend is held within: "within 25%"
// (of the paper's figure for a ratio, of 1 for a flat trend) or "LOW to HIGH".
// Orders and rising or falling trends have none: they hold when every step is
// established at 95%.
func (c *Claim) parseHeld() error {
	banded := c.Kind == ClaimRatio || c.Kind == ClaimFlat
	switch {
	case !banded && c.Held != "":
		return fmt.Errorf("%s claim holds when every step is established at 95%%, so it takes no band: remove held", article(c.Kind))
	case banded && c.Held == "":
		eg := "held: within 25% (of the paper's figure), or held: 5 to 9"
		if c.Kind == ClaimFlat {
			eg = "held: within 10% (of the first level's value)"
		}
		return fmt.Errorf("held is missing: %s claim needs the band it holds within, e.g. %s", article(c.Kind), eg)
	case !banded:
		return nil
	}
	center := 1.0
	if c.Kind == ClaimRatio {
		center, _ = paperNumber(c.Paper) // checked by claim
	}
	text := strings.TrimSpace(c.Held)
	if pct, ok := strings.CutPrefix(text, "within "); ok {
		p, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(pct), "%")), 64)
		if err != nil || !strings.HasSuffix(strings.TrimSpace(pct), "%") || !(p > 0 && p < 100) {
			return fmt.Errorf("%q: give within P%% with P above 0 and below 100, e.g. within 25%%", c.Held)
		}
		c.Low, c.High = center*(1-p/100), center*(1+p/100)
		return nil
	}
	lo, hi, ok := strings.Cut(text, " to ")
	l, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
	h, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
	if !ok || err1 != nil || err2 != nil || !(l > 0) || !(h > l) || math.IsInf(h, 0) {
		return fmt.Errorf("%q: give within P%% or LOW to HIGH, two positive numbers, e.g. 5 to 9", c.Held)
	}
	if c.Kind == ClaimRatio && (center < l || center > h) {
		return fmt.Errorf("%s to %s leaves out the paper's own figure %s", lo, hi, c.Paper)
	}
	if c.Kind == ClaimFlat && (l > 1 || h < 1) {
		return fmt.Errorf("%s to %s leaves out 1: a flat trend's band is around 1 (each level's value over the first's)", lo, hi)
	}
	c.Low, c.High = l, h
	return nil
}

// paperNumber reads a paper's figure as a number: "6.9", "6.9x".
func paperNumber(s string) (float64, error) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "x"))
	v, err := strconv.ParseFloat(s, 64)
	if err == nil && !(v > 0 && !math.IsInf(v, 0)) {
		err = fmt.Errorf("not a positive number")
	}
	return v, err
}

// article is a kind with its article: "a ratio", "an order".
func article(kind string) string {
	switch kind {
	case ClaimOrder:
		return "an order"
	case ClaimRises, ClaimFalls:
		return "a trend that " + kind
	case ClaimFlat:
		return "a flat trend"
	}
	return "a " + kind
}
