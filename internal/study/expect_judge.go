package study

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"tierbench/internal/report"
	"tierbench/internal/report/chart"
	"tierbench/internal/report/stats"
)

// Verdicts of a claim. A claim that cannot be judged (a cell excluded, failed, not
// run, or with one repetition) says so: it never passes.
const (
	VerdictHeld      = "held"
	VerdictDirection = "direction_only"
	VerdictNotHeld   = "not_held"
	VerdictCannot    = "cannot_judge"
)

// verdictWords are the verdicts as the report and the terminal say them.
var verdictWords = map[string]string{
	VerdictHeld:      "held",
	VerdictDirection: "held in direction only",
	VerdictNotHeld:   "not held",
	VerdictCannot:    "cannot be judged",
}

// Judgement is a claim judged against a study's runs.
type Judgement struct {
	Claim
	Verdict string `json:"verdict"`
	// Measured is the claim's figure with its 95% interval: a ratio's value, a
	// rising or falling trend's last level over its first, a flat trend's level that
	// departs most from the first, an order's closest two neighbours' difference; nil
	// when the claim cannot be judged.
	Measured *stats.Interval `json:"measured,omitempty"`
	// Figure says what was measured in words; Why why the verdict is what it is.
	Figure string `json:"figure"`
	Why    string `json:"why"`
	// Steps are the claim's quantity at each of its steps (a level's mean, or the
	// ratio at that level) with its 95% interval.
	Steps []JudgedStep `json:"steps,omitempty"`
}

// JudgedStep is a claim's quantity at one step: the mean of an order's level or of a
// trend's level, or a ratio's value there.
type JudgedStep struct {
	Label string         `json:"label,omitempty"`
	Cells []string       `json:"cells"`
	Value stats.Interval `json:"value"`
}

// Words is the verdict as people read it.
func (j Judgement) Words() string { return verdictWords[j.Verdict] }

// Line is the judgement in one line for the terminal.
func (j Judgement) Line() string {
	s := fmt.Sprintf("expect %s: %s: %s", j.ID, j.Words(), j.Text)
	if j.Figure != "" {
		s += ": " + j.Figure
	}
	s += fmt.Sprintf("; the paper: %s (%s)", j.Paper, j.Source)
	if j.Held != "" {
		s += fmt.Sprintf("; held within %s to %s", sig(j.Low, 3), sig(j.High, 3))
	}
	return s + "; " + j.Why
}

// judge is what judging reads: each cell's summary by ID and the repetitions the
// study has.
type judge struct {
	cells map[string]report.CellSummary
	reps  int
}

// Judge judges each claim against the study's cells' statistics.
func Judge(claims []Claim, sum *report.Summary, fs []FactorInfo, reps int) []Judgement {
	j := judge{cells: map[string]report.CellSummary{}, reps: reps}
	for _, c := range sum.Cells {
		j.cells[cellID(c.Factors)] = c
	}
	out := make([]Judgement, 0, len(claims))
	for _, c := range claims {
		out = append(out, j.claim(c, fs))
	}
	return out
}

// values are the metric's values in the cell of levels, or why the claim cannot be
// judged on them; with one repetition, that value and why (the claim's figure is
// then shown without an interval).
func (j judge) values(levels []report.Factor, metric string) ([]float64, string) {
	id := cellID(levels)
	cs, ok := j.cells[id]
	switch {
	case !ok:
		return nil, fmt.Sprintf("cell %s is not in the study (its exclude rules remove it)", id)
	case cs.Failed > 0:
		return nil, fmt.Sprintf("%d of cell %s's %d runs failed: run the study again with --retry-failed", cs.Failed, id, cs.Runs)
	case cs.Runs < j.reps:
		return nil, fmt.Sprintf("cell %s has %d of its %d repetitions (not run yet, or in a shard not given)", id, cs.Runs, j.reps)
	}
	vals := cs.Metrics[metric].Values
	switch {
	case len(vals) < cs.Runs:
		return nil, fmt.Sprintf("%d of cell %s's %d runs have no %s", cs.Runs-len(vals), id, cs.Runs, metric)
	case len(vals) < 2:
		return vals, fmt.Sprintf("cell %s has one repetition: a 95%% interval needs two or more (give repetitions: 3)", id)
	}
	return vals, ""
}

// claim judges one claim.
func (j judge) claim(c Claim, fs []FactorInfo) Judgement {
	out := Judgement{Claim: c, Verdict: VerdictCannot}
	steps, err := c.steps(fs)
	if err != nil { // the study's factors changed since the claim was checked
		out.Why = err.Error()
		return out
	}
	// vals[i][k]: step i, side k. A claim on a cell of one repetition cannot be
	// judged, but its figure is shown: the values' own, without an interval.
	vals := make([][][]float64, len(steps))
	single := ""
	for i, st := range steps {
		for _, levels := range st.Cells {
			v, why := j.values(levels, c.Metric)
			switch {
			case why != "" && len(v) == 0:
				out.Why = why
				return out
			case why != "" && single == "":
				single = why
			}
			vals[i] = append(vals[i], v)
		}
		js := JudgedStep{Label: st.Label, Value: stepValue(vals[i])}
		for _, levels := range st.Cells {
			js.Cells = append(js.Cells, cellID(levels))
		}
		if math.IsNaN(js.Value.Value) || single == "" && !js.Value.OK() {
			out.Why = fmt.Sprintf("%s is not positive in %s: a ratio needs positive means", c.Metric, strings.Join(js.Cells, " or "))
			return out
		}
		out.Steps = append(out.Steps, js)
	}
	if single != "" {
		var parts []string
		for _, st := range out.Steps {
			label := st.Label
			if label != "" {
				label += " "
			}
			parts = append(parts, label+sig(st.Value.Value, 3))
		}
		out.Figure, out.Why = strings.Join(parts, ", ")+" (no interval)", single
		out.Steps = nil
		return out
	}
	switch c.Kind {
	case ClaimRatio:
		judgeRatio(&out)
	case ClaimOrder:
		judgeOrder(&out, vals)
	case ClaimRises, ClaimFalls:
		judgeTrend(&out, vals)
	case ClaimFlat:
		judgeFlat(&out, vals)
	}
	return out
}

// stepValue is a step's quantity: the mean of one cell (Student's interval), or the
// ratio of a numerator cell's mean to a denominator cell's.
func stepValue(sides [][]float64) stats.Interval {
	if len(sides) == 2 {
		return stats.RatioOfMeans(sides[1], sides[0])
	}
	return stats.MeanOf(sides[0])
}

// powers are a step's means as terms of a product, raised to power.
func powers(sides [][]float64, power float64) []stats.Power {
	if len(sides) == 2 {
		return []stats.Power{{Values: sides[0], Power: power}, {Values: sides[1], Power: -power}}
	}
	return []stats.Power{{Values: sides[0], Power: power}}
}

// judgeRatio: a band around 1 claims no difference, and holds when the interval lies
// inside it; otherwise the ratio claims a direction, established when the interval
// leaves out 1 on the paper's side, and holds when it is established and the ratio
// is inside the band.
func judgeRatio(out *Judgement) {
	iv := out.Steps[0].Value
	out.Measured = &iv
	out.Figure = ivText(iv, 3)
	banded(out, iv, "the ratio")
}

// banded judges a measured interval against the claim's band (Low to High).
func banded(out *Judgement, iv stats.Interval, what string) {
	lo, hi := out.Low, out.High
	inBand := iv.Value >= lo && iv.Value <= hi
	band := sig(lo, 3) + " to " + sig(hi, 3)
	if lo <= 1 && hi >= 1 {
		switch {
		case iv.Low >= lo && iv.High <= hi:
			out.Verdict, out.Why = VerdictHeld, fmt.Sprintf("%s's 95%% interval lies within %s", what, band)
		case inBand:
			out.Verdict, out.Why = VerdictDirection, fmt.Sprintf("%s is within %s but its 95%% interval is not: not established at 95%%", what, band)
		default:
			out.Verdict, out.Why = VerdictNotHeld, fmt.Sprintf("%s is outside %s", what, band)
		}
		return
	}
	up := lo > 1
	agrees := iv.Value > 1 == up
	established := up && iv.Low > 1 || !up && iv.High < 1
	side := "above"
	if !up {
		side = "below"
	}
	switch {
	case agrees && established && inBand:
		out.Verdict, out.Why = VerdictHeld, fmt.Sprintf("%s is within %s and its 95%% interval is %s 1", what, band, side)
	case agrees && established:
		out.Verdict, out.Why = VerdictDirection, fmt.Sprintf("%s is %s 1 (established at 95%%) but outside %s", what, side, band)
	case agrees && inBand:
		out.Verdict, out.Why = VerdictDirection, fmt.Sprintf("%s is within %s but its 95%% interval includes 1: the direction is not established at 95%%", what, band)
	case agrees:
		out.Verdict, out.Why = VerdictDirection, fmt.Sprintf("%s is %s 1 but outside %s, and its 95%% interval includes 1", what, side, band)
	default:
		out.Verdict, out.Why = VerdictNotHeld, fmt.Sprintf("%s is not %s 1, as the paper's is", what, side)
	}
}

// judgeOrder: each level against the next by Welch's interval of the difference of
// their means; held when every difference is established above 0, in direction only
// when the means are in the claimed order but some difference is not established.
func judgeOrder(out *Judgement, vals [][][]float64) {
	var means, diffs []string
	var weakest *stats.Interval
	reversed, unsure := "", ""
	for i := range out.Steps {
		means = append(means, fmt.Sprintf("%s %s", out.Steps[i].Label, sig(out.Steps[i].Value.Value, 4)))
		if i == 0 {
			continue
		}
		d := stats.DiffOfMeans(vals[i][0], vals[i-1][0])
		pair := out.Steps[i-1].Label + " - " + out.Steps[i].Label
		diffs = append(diffs, pair+" "+ivText(d, 3))
		if weakest == nil || d.Low < weakest.Low {
			weakest = &d
		}
		switch {
		case !(d.Value > 0) && reversed == "":
			reversed = pair
		case !(d.Low > 0) && unsure == "":
			unsure = pair
		}
	}
	out.Measured = weakest
	out.Figure = strings.Join(means, " > ") + "; differences: " + strings.Join(diffs, ", ")
	switch {
	case reversed != "":
		out.Verdict, out.Why = VerdictNotHeld, fmt.Sprintf("%s is not above 0: the means are not in the claimed order", reversed)
	case unsure != "":
		out.Verdict, out.Why = VerdictDirection, fmt.Sprintf("the means are in the claimed order, but the 95%% interval of %s includes 0: not established at 95%%", unsure)
	default:
		out.Verdict, out.Why = VerdictHeld, "every difference between neighbours has its 95% interval above 0"
	}
}

// judgeTrend: the last level's quantity over the first's, with its interval; held
// when it is established in the claimed direction and every step between
// neighbouring levels goes that way, in direction only when the last is on the
// claimed side of the first.
func judgeTrend(out *Judgement, vals [][][]float64) {
	last := len(vals) - 1
	iv := stats.ProductOfMeans(append(powers(vals[last], 1), powers(vals[0], -1)...)...)
	if !iv.OK() {
		out.Why = fmt.Sprintf("%s is not positive at every level: a trend is judged by ratios, which need positive means", out.Metric)
		out.Steps = nil
		return
	}
	out.Measured = &iv
	up := out.Kind == ClaimRises
	var steps []string
	against := ""
	digits := 4 // a mean
	if out.Num != nil {
		digits = 3 // a ratio
	}
	for i, st := range out.Steps {
		steps = append(steps, fmt.Sprintf("%s=%s %s", out.Factor, st.Label, sig(st.Value.Value, digits)))
		if i > 0 && (st.Value.Value > out.Steps[i-1].Value.Value) != up && against == "" {
			against = out.Steps[i-1].Label + " to " + st.Label
		}
	}
	out.Figure = fmt.Sprintf("%s=%s over %s=%s: %s; at %s", out.Factor, out.Steps[last].Label, out.Factor, out.Steps[0].Label,
		ivText(iv, 3), strings.Join(steps, ", "))
	word, side := "rise", "above"
	if !up {
		word, side = "fall", "below"
	}
	agrees := iv.Value > 1 == up
	established := up && iv.Low > 1 || !up && iv.High < 1
	switch {
	case !agrees:
		out.Verdict, out.Why = VerdictNotHeld, fmt.Sprintf("the last level is not %s the first", side)
	case established && against == "":
		out.Verdict, out.Why = VerdictHeld, fmt.Sprintf("every step %ss and the last level over the first has its 95%% interval %s 1", word, side)
	case against != "":
		out.Verdict, out.Why = VerdictDirection, fmt.Sprintf("the last level is %s the first, but %s does not %s", side, against, word)
	default:
		out.Verdict, out.Why = VerdictDirection, fmt.Sprintf("every step %ss, but the 95%% interval of the last level over the first includes 1: not established at 95%%", word)
	}
}

// judgeFlat: each level's quantity over the first's; held when every interval lies
// within the band, in direction only when every value does.
func judgeFlat(out *Judgement, vals [][][]float64) {
	var worst stats.Interval
	worstAt, outside, unsure := "", "", ""
	var parts []string
	for i := 1; i < len(vals); i++ {
		iv := stats.ProductOfMeans(append(powers(vals[i], 1), powers(vals[0], -1)...)...)
		if !iv.OK() {
			out.Why = fmt.Sprintf("%s is not positive at every level: a trend is judged by ratios, which need positive means", out.Metric)
			out.Steps = nil
			return
		}
		label := out.Steps[i].Label
		parts = append(parts, fmt.Sprintf("%s %s", label, sig(iv.Value, 3)))
		if worstAt == "" || math.Abs(math.Log(iv.Value)) > math.Abs(math.Log(worst.Value)) {
			worst, worstAt = iv, label
		}
		switch {
		case (iv.Value < out.Low || iv.Value > out.High) && outside == "":
			outside = label
		case (iv.Low < out.Low || iv.High > out.High) && unsure == "":
			unsure = label
		}
	}
	out.Measured = &worst
	first := out.Steps[0].Label
	out.Figure = fmt.Sprintf("the largest departure from %s=%s is at %s=%s: %s; over %s=%s at each: %s",
		out.Factor, first, out.Factor, worstAt, ivText(worst, 3), out.Factor, first, strings.Join(parts, ", "))
	band := sig(out.Low, 3) + " to " + sig(out.High, 3)
	switch {
	case outside != "":
		out.Verdict, out.Why = VerdictNotHeld, fmt.Sprintf("at %s=%s the value over %s=%s's is outside %s", out.Factor, outside, out.Factor, first, band)
	case unsure != "":
		out.Verdict, out.Why = VerdictDirection, fmt.Sprintf("every value is within %s, but at %s=%s its 95%% interval is not: not established at 95%%", band, out.Factor, unsure)
	default:
		out.Verdict, out.Why = VerdictHeld, fmt.Sprintf("every level's 95%% interval over %s=%s's lies within %s", out.Factor, first, band)
	}
}

// ivText is an estimate with its interval: "1.74 (95% CI 1.62 to 1.87)".
func ivText(iv stats.Interval, digits int) string {
	if !iv.OK() {
		return sig(iv.Value, digits)
	}
	return fmt.Sprintf("%s (95%% CI %s to %s)", sig(iv.Value, digits), sig(iv.Low, digits), sig(iv.High, digits))
}

// sig is v to digits significant digits, without an exponent for everyday sizes.
func sig(v float64, digits int) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	if err != nil {
		return chart.FormatNumber(v)
	}
	return chart.FormatNumber(r)
}
