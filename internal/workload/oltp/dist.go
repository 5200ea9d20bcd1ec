package oltp

import (
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"tierbench/internal/yamltext"
)

// ValueSpec says how values are drawn: a column's population or a transaction's
// parameter. Dist selects the distribution; the other fields are its settings.
type ValueSpec struct {
	Dist string
	// Min and Max bound uniform, zipfian, nurand and words; Float makes uniform draw
	// real numbers rounded to Decimals.
	Min, Max        float64
	HasRange, Float bool
	Decimals        int
	Start, Divide   int64
	Cycle           int64
	Table, Column   string
	Theta           float64
	// Reverse makes zipfian favour the largest value (the newest key) instead of the smallest.
	Reverse bool
	// Scramble makes zipfian spread its popular values over the range instead of
	// ranking them in order (scrambleRank).
	Scramble         bool
	A                int64
	Pattern          string
	Prefix, Suffix   string
	MinLen, MaxLen   int
	MinTime, MaxTime time.Time
	Values           []any
	Weights          []float64

	node *yaml.Node
	path string
}

// distFields lists every distribution and the settings it takes.
var distFields = map[string][]string{
	"sequence":  {"start", "divide", "cycle", "table", "column"},
	"uniform":   {"min", "max", "decimals"},
	"zipfian":   {"min", "max", "table", "theta", "reverse", "scramble"},
	"nurand":    {"a", "min", "max", "table"},
	"key":       {"table"},
	"text":      {"pattern", "min_length", "max_length", "prefix", "suffix"},
	"words":     {"min", "max", "prefix", "suffix"},
	"date":      {"min", "max"},
	"timestamp": {"min", "max"},
	"choice":    {"values", "weights"},
	"bytes":     {"min", "max"},
	"const":     {"value"},
	"now":       {},
}

func distNames() []string {
	out := make([]string, 0, len(distFields))
	for n := range distFields {
		out = append(out, n)
	}
	return sorted(out)
}

const (
	dateLayout      = "2006-01-02"
	timestampLayout = "2006-01-02 15:04:05"
)

// valueSpec reads a distribution: a mapping with dist: and its settings, or just the
// name of one that needs no settings (sequence, now).
func (c *checker) valueSpec(n *yaml.Node, path string) *ValueSpec {
	s := &ValueSpec{node: n, path: path, Divide: 1, Start: 1, Theta: 0.99}
	if n.Kind == yaml.ScalarNode {
		s.Dist = n.Value
		if _, ok := distFields[s.Dist]; !ok {
			c.errorf(n, path, "unknown distribution %q (valid: %s)", s.Dist, strings.Join(distNames(), ", "))
			return nil
		}
		if s.Dist != "sequence" && s.Dist != "now" {
			c.errorf(n, path, "distribution %s needs settings: write {dist: %s, ...}", s.Dist, s.Dist)
			return nil
		}
		return s
	}
	pre := c.mapping(n, path)
	s.Dist = c.str(pre, "dist", true)
	if s.Dist == "" {
		return nil
	}
	allowed, ok := distFields[s.Dist]
	if !ok {
		c.errorf(pre.at("dist"), path+".dist", "unknown distribution %q (valid: %s)", s.Dist, strings.Join(distNames(), ", "))
		return nil
	}
	f := c.mapping(n, path, append([]string{"dist"}, allowed...)...)
	switch s.Dist {
	case "sequence":
		s.Start = c.integer(f, "start", 1)
		s.Divide = c.integer(f, "divide", 1)
		if s.Divide < 1 {
			c.errorf(f.at("divide"), path+".divide", "must be >= 1")
		}
		s.Cycle = c.integer(f, "cycle", 0)
		if s.Cycle < 0 {
			c.errorf(f.at("cycle"), path+".cycle", "must be >= 1")
		}
		s.Table, s.Column = c.str(f, "table", false), c.str(f, "column", false)
		if s.Column != "" && s.Table == "" {
			c.errorf(f.at("column"), path+".column", "give table: too")
		}
	case "uniform", "zipfian", "nurand", "words":
		s.Table = c.str(f, "table", false)
		hasMin, hasMax := f.has("min"), f.has("max")
		s.Min, s.Max = c.num(f, "min", 0), c.num(f, "max", 0)
		s.HasRange = hasMin || hasMax
		switch {
		case s.Table != "" && s.HasRange:
			c.errorf(f.at("table"), path+".table", "give either table: or min: and max:")
		case s.Table == "" && !(hasMin && hasMax):
			what := "min: and max:"
			if contains(allowed, "table") {
				what += " (or table: for 1 to the table's rows)"
			}
			c.errorf(n, path, "give %s", what)
		case s.HasRange && s.Min > s.Max:
			c.errorf(f.at("min"), path+".min", "%v is above max %v", s.Min, s.Max)
		}
		if s.Dist == "uniform" {
			s.Decimals = int(c.integer(f, "decimals", -1))
			s.Float = s.Decimals >= 0 || strings.Contains(raw(f, "min")+raw(f, "max"), ".")
			if s.Decimals < 0 {
				s.Decimals = 2
			}
			if s.Decimals > 9 {
				c.errorf(f.at("decimals"), path+".decimals", "at most 9")
			}
		} else if s.HasRange && (s.Min != float64(int64(s.Min)) || s.Max != float64(int64(s.Max))) {
			c.errorf(f.at("min"), path, "min and max must be whole numbers for %s", s.Dist)
		}
		if s.Dist == "words" && s.HasRange && s.Min < 1 {
			c.errorf(f.at("min"), path+".min", "at least 1 word")
		}
		if s.Dist == "zipfian" {
			s.Reverse = c.boolean(f, "reverse")
			s.Scramble = c.boolean(f, "scramble")
			if s.Reverse && s.Scramble {
				c.errorf(f.at("scramble"), path+".scramble", "give reverse: or scramble:, not both (a scrambled order has no newest end)")
			}
			s.Theta = c.num(f, "theta", 0.99)
			if s.Theta <= 0 {
				c.errorf(f.at("theta"), path+".theta", "must be above 0 (YCSB uses 0.99)")
			}
		}
		if s.Dist == "nurand" {
			s.A = c.integer(f, "a", 0)
			if s.A < 1 {
				c.errorf(f.at("a"), path+".a", "give A of NURand(A, x, y), above 0 (TPC-C uses 255, 1023, 8191)")
			}
		}
		s.Prefix, s.Suffix = c.str(f, "prefix", false), c.str(f, "suffix", false)
	case "key":
		s.Table = c.str(f, "table", true)
	case "bytes":
		if !f.has("min") || !f.has("max") {
			c.errorf(n, path, "give min: and max:, the size of a value in bytes (e.g. 150000 and 250000 for product images)")
			break
		}
		lo, hi := c.integer(f, "min", 0), c.integer(f, "max", 0)
		s.Min, s.Max, s.HasRange = float64(lo), float64(hi), true
		switch {
		case lo < 0:
			c.errorf(f.at("min"), path+".min", "%d: a size of 0 bytes or more", lo)
		case lo > hi:
			c.errorf(f.at("min"), path+".min", "%d is above max %d", lo, hi)
		case hi > MaxBlobBytes:
			c.errorf(f.at("max"), path+".max", "%d bytes is more than the %d (4 MiB) a value may have", hi, MaxBlobBytes)
		}
	case "text":
		s.Pattern = c.str(f, "pattern", false)
		s.MinLen, s.MaxLen = int(c.integer(f, "min_length", 0)), int(c.integer(f, "max_length", 0))
		s.Prefix, s.Suffix = c.str(f, "prefix", false), c.str(f, "suffix", false)
		switch {
		case s.Pattern != "" && (f.has("min_length") || f.has("max_length")):
			c.errorf(f.at("pattern"), path, "give either pattern: or min_length: and max_length:")
		case s.Pattern == "" && !(f.has("min_length") && f.has("max_length")):
			c.errorf(n, path, "give pattern: (# digit, @ letter, ^ capital, * letter or digit) or min_length: and max_length:")
		case s.Pattern == "" && (s.MinLen < 0 || s.MinLen > s.MaxLen):
			c.errorf(f.at("min_length"), path+".min_length", "need 0 <= min_length <= max_length")
		}
	case "date", "timestamp":
		layouts := []string{dateLayout}
		if s.Dist == "timestamp" {
			layouts = append(layouts, timestampLayout)
		}
		s.MinTime = c.time(f, "min", layouts)
		s.MaxTime = c.time(f, "max", layouts)
		if s.MaxTime.Before(s.MinTime) {
			c.errorf(f.at("min"), path+".min", "after max")
		}
	case "choice":
		for i, v := range c.list(f, "values") {
			if v.Kind != yaml.ScalarNode {
				c.errorf(v, yamltext.Item(path+".values", i), "must be a single value")
				continue
			}
			s.Values = append(s.Values, scalar(v))
		}
		if len(s.Values) == 0 {
			c.errorf(f.at("values"), path+".values", "give at least one value")
		}
		if f.has("weights") {
			for i, w := range c.strs(f, "weights") {
				x, err := strconv.ParseFloat(w, 64)
				if err != nil || x < 0 {
					c.errorf(f.at("weights"), yamltext.Item(path+".weights", i), "%q: give a number >= 0", w)
				}
				s.Weights = append(s.Weights, x)
			}
			if len(s.Weights) != len(s.Values) {
				c.errorf(f.at("weights"), path+".weights", "%d weights for %d values", len(s.Weights), len(s.Values))
			} else if sum(s.Weights) == 0 {
				c.errorf(f.at("weights"), path+".weights", "every weight is 0")
			}
		}
	case "const":
		v, ok := f.values["value"]
		if !ok || v.Kind != yaml.ScalarNode {
			c.errorf(f.at("value"), path+".value", "give a single value")
		} else {
			s.Values = []any{scalar(v)}
		}
	}
	return s
}

func raw(f *fields, key string) string {
	if v, ok := f.values[key]; ok {
		return v.Value
	}
	return ""
}

func sum(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t
}

func (c *checker) time(f *fields, key string, layouts []string) time.Time {
	text := c.str(f, key, true)
	if text == "" {
		return time.Time{}
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, text); err == nil {
			return t
		}
	}
	c.errorf(f.at(key), yamltext.Field(f.path, key), "%q: write %s", text, strings.Join(layouts, " or "))
	return time.Time{}
}

// scalar reads a YAML scalar as int64, float64 or, if quoted or neither, text.
func scalar(n *yaml.Node) any {
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
		if i, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return f
		}
	}
	return n.Value
}

// loadSpec checks a column's population spec.
func (c *checker) loadSpec(m *Mix, s *ValueSpec) {
	switch s.Dist {
	case "now":
		c.errorf(s.node, s.path, "now is not reproducible: use date or timestamp with min: and max: for the population")
	case "sequence":
		if s.Table != "" {
			c.errorf(s.node, s.path, "in the population a sequence counts the rows (start:, divide:); table: is for transaction parameters")
		}
	}
	if s.Table != "" && s.Dist != "sequence" {
		c.populatedKey(m, s)
	}
	for _, text := range s.literals() {
		if strings.ContainsAny(text, "|\\\n\r") {
			c.errorf(s.node, s.path, "%q: the population's text may not contain |, \\ or line breaks (the bulk loader's separators)", text)
		}
	}
}

// populatedKey checks that a table-ranged spec names a table whose key is 1..rows.
func (c *checker) populatedKey(m *Mix, s *ValueSpec) {
	ref := m.Table(s.Table)
	if ref == nil {
		c.errorf(s.node, s.path+".table", "no table %q in the mix", s.Table)
		return
	}
	kc := ref.Column(ref.KeyColumn())
	if kc == nil || kc.Value == nil || kc.Value.Dist != "sequence" || kc.Value.Start != 1 || kc.Value.Divide != 1 || kc.Value.Cycle != 0 {
		c.errorf(s.node, s.path+".table", "table %s needs a one-column primary key filled by {dist: sequence} from 1, so that its keys are 1 to its rows", s.Table)
	}
}

// runSpec checks a transaction parameter's spec.
func (c *checker) runSpec(m *Mix, s *ValueSpec, path string) {
	if s.Dist == "sequence" && (s.Divide != 1 || s.Cycle != 0) {
		c.errorf(s.node, path, "divide: and cycle: are for the population only")
	}
	if s.Table == "" {
		return
	}
	ref := m.Table(s.Table)
	if ref == nil {
		c.errorf(s.node, path+".table", "no table %q in the mix", s.Table)
		return
	}
	col := s.Column
	if col == "" {
		col = ref.KeyColumn()
		if col == "" {
			c.errorf(s.node, path+".table", "table %s has a primary key of several columns: name the column with column:", s.Table)
			return
		}
	}
	cc := ref.Column(col)
	if cc == nil {
		c.errorf(s.node, path+".column", "no column %q in table %s", col, s.Table)
		return
	}
	if k := cc.Type.Kind; k != "int" && k != "bigint" && k != "smallint" {
		c.errorf(s.node, path+".table", "%s.%s is %s: keys to draw from must be integers", s.Table, col, k)
	}
	s.Column = col
}

// literals are the fixed texts a spec can produce.
func (s *ValueSpec) literals() []string {
	out := []string{s.Prefix, s.Suffix}
	if s.Pattern != "" {
		out = append(out, s.Pattern)
	}
	for _, v := range s.Values {
		if t, ok := v.(string); ok {
			out = append(out, t)
		}
	}
	return out
}
