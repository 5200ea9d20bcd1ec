package study

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"tierbench/internal/params"
	"tierbench/internal/workload"
	"tierbench/internal/yamltext"
)

// File is a study file as read: what it runs, its factors and how they combine,
// and its sizes (named variants).
type File struct {
	// Path names the file in errors and in the report ("studies/smoke.yaml" for a
	// bundled study).
	Path   string
	Source []byte
	Name   string
	// Notes are shown in the plan and the report: what the study cannot do on this
	// host, where its devices come from.
	Notes []string
	// Workload is the registered workload every cell runs ("" when a factor sets it);
	// Phases its phases in order (nil: all of them).
	Workload string
	// WorkloadPos is where the workload was named, for errors.
	WorkloadPos Pos
	Phases      []workload.Phase
	Body
	Sizes []Size
}

// Body is what a size can change: everything but the name and the workload.
type Body struct {
	Description string
	// Params are fixed parameters, by flag name, in the file's order.
	Params  []Setting
	Factors []Factor
	// FactorsPos is where the factors field was written, for errors about them all.
	FactorsPos Pos
	// Zip groups factors that vary together (their levels are paired by position).
	Zip []Group
	// Exclude rules drop the cells they match.
	Exclude []Match
	// Baseline is the cell (or, partial, the cell of each group of the other factors)
	// comparisons are against; nil for none.
	Baseline *Match
	// Goal ranks the cells in the report (goal.go); nil for none.
	Goal        *Goal
	Repetitions int
	// Order is "fixed" or "shuffled" (with Seed).
	Order string
	Seed  int64
	// Timeout stops a cell's run that takes longer (0: none).
	Timeout time.Duration
	// Expect are the findings the study should show (expect.go).
	Expect []Claim
	// Snapshot loads each population once and copies it to the runs of its cells
	// (snapshot.go); SnapshotPos is where it was asked for.
	Snapshot    bool
	SnapshotPos Pos
	// given says which fields were written, for sizes.
	given map[string]bool
}

// Size is a named variant of the study: its fields replace the study's (params are
// merged by name, factors replaced by name).
type Size struct {
	Name string
	Body
	Pos Pos
}

// Value is a parameter's value as written: one value, or a list.
type Value struct {
	Values []string
	List   bool
	Pos    Pos
}

// Text is the value as one string: list elements joined by commas.
func (v Value) Text() string { return strings.Join(v.Values, ",") }

// Setting is a parameter and its value.
type Setting struct {
	Name  string
	Value Value
}

// Factor is a run setting the study varies, with its levels in order.
type Factor struct {
	Name   string
	Levels []Level
	Pos    Pos
}

// Level is one value of a factor. A plain level (a value, or a list for a parameter
// that takes several) sets the parameter of the factor's name, when there is one; a
// map level sets several parameters and names itself with its label.
type Level struct {
	// Label names the level in cell IDs, tables and charts: the value itself for a
	// plain level.
	Label string
	// Value is a plain level's value; nil for a map level.
	Value *Value
	// Settings are a map level's parameters.
	Settings []Setting
	Pos      Pos
}

// Group is a zip group: factors whose levels go together.
type Group struct {
	Factors []string
	Pos     Pos
}

// Match selects cells by their factors' levels: an exclude rule, or the baseline.
type Match struct {
	Terms []Term
	Pos   Pos
}

// Term is one factor of a match and the levels (labels) it matches.
type Term struct {
	Factor string
	Levels []string
	Pos    Pos
}

// Orders a study runs its cells in.
const (
	OrderFixed    = "fixed"
	OrderShuffled = "shuffled"
)

var (
	topFields  = []string{"name", "description", "notes", "workload", "phases", "params", "factors", "zip", "exclude", "repetitions", "order", "seed", "baseline", "goal", "timeout", "expect", "snapshot", "sizes"}
	sizeFields = []string{"description", "params", "factors", "zip", "exclude", "repetitions", "order", "seed", "baseline", "goal", "timeout", "expect", "snapshot"}
	nameRE     = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	refRE      = regexp.MustCompile(`\$\{([^}]*)\}`)
	// unclosedRE finds a reference that is not closed: "${dev" at a value's end.
	unclosedRE = regexp.MustCompile(`\$\{([^}]*)$`)
)

// studyDoc words a study file's YAML syntax errors.
var studyDoc = yamltext.Doc{
	What:  "a study file",
	Empty: "a study needs at least a name and a workload",
	Holds: "one mapping (name, workload, params, factors, ...)",
}

// Parse reads a study file; path names it in errors. Errors are a *FileError, each
// problem as file:line: field: what is wrong and what is valid. Parse checks the
// file's shape; Expand checks it against the workloads' parameters.
func Parse(path string, data []byte) (*File, error) {
	p := newProblems(path)
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		line, msg := studyDoc.Problem(data, err)
		p.add(Pos{Line: line}, "%s", msg)
		return nil, p.err()
	}
	if len(doc.Content) == 0 {
		p.add(Pos{}, "empty: %s", studyDoc.Empty)
		return nil, p.err()
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		p.add(Pos{Line: next.Line}, "a second YAML document (after '---'): a study file holds one, and the rest would be ignored")
		return nil, p.err()
	case !errors.Is(err, io.EOF):
		line, msg := studyDoc.Problem(data, err)
		p.add(Pos{Line: line}, "%s", msg)
		return nil, p.err()
	}
	f := &File{Path: path, Source: data}
	root := doc.Content[0]
	entries := p.mapping(root, "", topFields...)
	var body []entry
	for _, e := range entries {
		switch e.key.Value {
		case "name":
			if s, ok := p.scalar(e); ok {
				if !nameRE.MatchString(s) {
					p.add(at(e.value, e.field), "%q: use lower-case letters, digits, '.', '_' and '-' (e.g. hybrid-placement)", s)
				}
				f.Name = s
			}
		case "notes":
			f.Notes, _ = p.scalars(e.value, e.field)
		case "workload":
			if s, ok := p.scalar(e); ok {
				f.Workload, f.WorkloadPos = s, at(e.value, e.field)
			}
		case "phases":
			if ps, ok := p.scalars(e.value, e.field); ok {
				for _, s := range ps {
					f.Phases = append(f.Phases, workload.Phase(s))
				}
			}
		case "sizes":
			for _, se := range p.mapping(e.value, e.field) {
				if !nameRE.MatchString(se.key.Value) {
					p.add(at(se.key, se.field), "%q: a size's name is lower-case letters, digits, '.', '_' and '-' (e.g. quick)", se.key.Value)
				}
				s := Size{Name: se.key.Value, Pos: at(se.key, se.field)}
				s.Body = p.body(p.mapping(se.value, se.field, sizeFields...))
				f.Sizes = append(f.Sizes, s)
			}
		default:
			body = append(body, e)
		}
	}
	f.Body = p.body(body)
	if f.Name == "" && p.Len() == 0 {
		p.add(at(root, "name"), "missing: name the study (e.g. name: hybrid-placement)")
	}
	if f.Workload == "" && !f.factorSets("workload") && p.Len() == 0 {
		p.add(at(root, "workload"), "missing: name the workload every cell runs (%s), or make workload a factor", strings.Join(workload.Names(), ", "))
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return f, nil
}

// factorSets reports whether a factor of the file or of a size sets name.
func (f *File) factorSets(name string) bool {
	bodies := []Body{f.Body}
	for _, s := range f.Sizes {
		bodies = append(bodies, s.Body)
	}
	for _, b := range bodies {
		for _, fc := range b.Factors {
			if fc.Name == name {
				return true
			}
			for _, l := range fc.Levels {
				for _, s := range l.Settings {
					if s.Name == name {
						return true
					}
				}
			}
		}
	}
	return false
}

// body reads the fields a study and its sizes share.
func (p *problems) body(entries []entry) Body {
	b := Body{given: map[string]bool{}}
	for _, e := range entries {
		b.given[e.key.Value] = true
		switch e.key.Value {
		case "description":
			if s, ok := p.scalar(e); ok {
				b.Description = strings.TrimSpace(s)
			}
		case "params":
			for _, pe := range p.mapping(e.value, e.field) {
				if v, ok := p.value(pe.value, pe.field); ok {
					b.Params = append(b.Params, Setting{Name: pe.key.Value, Value: v})
				}
			}
		case "factors":
			b.FactorsPos = at(e.key, e.field)
			for _, fe := range p.mapping(e.value, e.field) {
				if fc, ok := p.factor(fe); ok {
					b.Factors = append(b.Factors, fc)
				}
			}
		case "zip":
			b.Zip = p.zip(e)
		case "exclude":
			if e.value.Kind != yaml.SequenceNode {
				p.add(at(e.value, e.field), "must be a list of rules such as {engine: sqlite, placement: III}")
				continue
			}
			for i, r := range e.value.Content {
				if m, ok := p.match(r, yamltext.Item(e.field, i)); ok {
					b.Exclude = append(b.Exclude, m)
				}
			}
		case "baseline":
			if m, ok := p.match(e.value, e.field); ok {
				b.Baseline = &m
			}
		case "goal":
			b.Goal = p.goal(e)
		case "repetitions":
			if s, ok := p.scalar(e); ok {
				n, err := strconv.Atoi(strings.TrimSpace(s))
				if err != nil || n < 1 || n > 1000 {
					p.add(at(e.value, e.field), "%q: give how many times each cell runs, from 1 to 1000", s)
				}
				b.Repetitions = n
			}
		case "order":
			if s, ok := p.scalar(e); ok {
				if s != OrderFixed && s != OrderShuffled {
					p.add(at(e.value, e.field), "%q: valid orders are fixed (repetition 1 of every cell, then 2, ...) and shuffled (with seed)", s)
				}
				b.Order = s
			}
		case "seed":
			if s, ok := p.scalar(e); ok {
				n, err := params.ParseDecimal(s)
				if err != nil {
					p.add(at(e.value, e.field), "%q: the shuffle's seed is a whole number", s)
				}
				b.Seed = n
			}
		case "expect":
			b.Expect = p.expect(e)
		case "snapshot":
			if s, ok := p.scalar(e); ok {
				v, err := strconv.ParseBool(strings.TrimSpace(s))
				if err != nil {
					p.add(at(e.value, e.field), "%q: give true (load each population once and copy it to every run that uses it) or false", s)
				}
				b.Snapshot, b.SnapshotPos = v, at(e.value, e.field)
			}
		case "timeout":
			if s, ok := p.scalar(e); ok {
				d, err := time.ParseDuration(strings.TrimSpace(s))
				if err != nil || d < 0 {
					p.add(at(e.value, e.field), "%q: give a duration such as 20m or 1h30m (0: no timeout)", s)
				}
				b.Timeout = d
			}
		}
	}
	return b
}

// factor reads one factor: a list of levels.
func (p *problems) factor(e entry) (Factor, bool) {
	fc := Factor{Name: e.key.Value, Pos: at(e.key, e.field)}
	if !nameRE.MatchString(fc.Name) {
		p.add(fc.Pos, "%q: a factor is named as a parameter (users, buffer, data) or in lower-case letters, digits and '-'", fc.Name)
		return fc, false
	}
	if e.value.Kind != yaml.SequenceNode {
		p.add(at(e.value, e.field), "must be a list of the factor's values, e.g. [1, 2, 4]")
		return fc, false
	}
	if len(e.value.Content) == 0 {
		p.add(at(e.value, e.field), "empty: give the factor's values, e.g. [1, 2, 4]")
		return fc, false
	}
	labels := map[string]bool{}
	for i, n := range e.value.Content {
		field := yamltext.Item(e.field, i)
		var l Level
		switch n.Kind {
		case yaml.ScalarNode, yaml.SequenceNode:
			v, ok := p.value(n, field)
			if !ok {
				return fc, false
			}
			if refRE.MatchString(v.Text()) {
				p.add(v.Pos, "%q: a plain value cannot refer to a factor; give a map with a label, e.g. {label: ssd, data: \"pagecache(${device})\"}", v.Text())
				return fc, false
			}
			l = Level{Label: v.Text(), Value: &v, Pos: v.Pos}
		case yaml.MappingNode:
			for _, se := range p.mapping(n, field) {
				if se.key.Value == "label" {
					if s, ok := p.scalar(se); ok {
						l.Label = s
					}
					continue
				}
				if v, ok := p.value(se.value, se.field); ok {
					l.Settings = append(l.Settings, Setting{Name: se.key.Value, Value: v})
				}
			}
			l.Pos = at(n, field)
			if l.Label == "" {
				p.add(l.Pos, "a value that sets several parameters needs a label, the level's name in tables and charts: {label: I, data: hdd, temp: hdd}")
				return fc, false
			}
			if len(l.Settings) == 0 {
				p.add(l.Pos, "sets nothing: give the parameters this level sets beside its label")
				return fc, false
			}
		default:
			p.add(at(n, field), "must be a value, a list, or a map of parameters with a label")
			return fc, false
		}
		if l.Label == "" {
			p.add(l.Pos, "an empty value: give the level a value")
			return fc, false
		}
		if labels[l.Label] {
			p.add(l.Pos, "%q is given twice", l.Label)
			return fc, false
		}
		labels[l.Label] = true
		fc.Levels = append(fc.Levels, l)
	}
	return fc, true
}

// zip reads the zip groups: a list of lists of factor names (one list alone is one
// group).
func (p *problems) zip(e entry) []Group {
	if e.value.Kind != yaml.SequenceNode {
		p.add(at(e.value, e.field), "must be a list of groups of factors, e.g. [[sf, streams]]")
		return nil
	}
	groups := e.value.Content
	if len(groups) > 0 && groups[0].Kind == yaml.ScalarNode {
		groups = []*yaml.Node{e.value}
	}
	var out []Group
	for i, g := range groups {
		field := yamltext.Item(e.field, i)
		names, ok := p.scalars(g, field)
		if !ok {
			continue
		}
		if len(names) < 2 {
			p.add(at(g, field), "a zip group pairs two factors or more, e.g. [sf, streams]")
			continue
		}
		out = append(out, Group{Factors: names, Pos: at(g, field)})
	}
	return out
}

// match reads an exclude rule or the baseline: factor: level, or factor: [levels].
func (p *problems) match(n *yaml.Node, field string) (Match, bool) {
	m := Match{Pos: at(n, field)}
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		p.add(m.Pos, "must map factors to their values, e.g. {engine: sqlite, placement: I}")
		return m, false
	}
	for _, e := range p.mapping(n, field) {
		levels, ok := p.scalars(e.value, e.field)
		if !ok {
			return m, false
		}
		m.Terms = append(m.Terms, Term{Factor: e.key.Value, Levels: levels, Pos: at(e.key, e.field)})
	}
	return m, len(m.Terms) > 0
}
