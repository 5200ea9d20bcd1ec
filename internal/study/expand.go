package study

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"tierbench/internal/params"
	"tierbench/internal/report"
	"tierbench/internal/workload"
)

// Cell is one configuration of a study: its factors' levels and every parameter its
// runs set (all but --out, which is each run's directory).
type Cell struct {
	// Index is the cell's place in the expansion (the first factor varies slowest),
	// from 0; shards split cells by it.
	Index int    `json:"index"`
	ID    string `json:"id"`
	// Factors are the cell's level of each factor, by label, in the file's order.
	Factors  []report.Factor     `json:"factors"`
	Workload string              `json:"workload"`
	Phases   []workload.Phase    `json:"phases"`
	Values   map[string][]string `json:"params"`
	// Fingerprint identifies what the cell runs: its workload, phases and values.
	Fingerprint string `json:"fingerprint"`
}

// Plan is a study expanded: its factors and its cells, in order.
type Plan struct {
	Study   *Study
	Factors []FactorInfo
	Cells   []Cell
	// Excluded counts the cells exclude rules removed.
	Excluded int
	// Notes are what the expansion noticed that is not an error (a rule that
	// matches no cell).
	Notes []string
	// Fingerprint identifies the study by its cells: two directories with the same
	// fingerprint hold runs of one study (shards, or one study resumed).
	Fingerprint string
	// Claims are the study's expected findings, checked against its cells.
	Claims []Claim
	// Populations say how each cell's load is had with snapshot: true (snapshot.go);
	// nil without.
	Populations map[string]*Population
}

// FactorInfo describes a factor for reports: its levels and how they read as an
// axis.
type FactorInfo struct {
	Name   string   `json:"name"`
	Levels []string `json:"levels"`
	Axis   Axis     `json:"axis"`
}

// Cell is the cell with ID id, or nil.
func (p *Plan) Cell(id string) *Cell {
	for i := range p.Cells {
		if p.Cells[i].ID == id {
			return &p.Cells[i]
		}
	}
	return nil
}

// Expand checks the study against the registered workloads' parameters and turns it
// into cells: the cross product of its factors (zip groups varying together), minus
// what exclude rules remove, each with its parameters, ${name} references filled in.
// Errors are a *FileError naming file:line: field.
func Expand(s *Study) (*Plan, error) {
	e := &expansion{s: s, p: newProblems(s.File.Path), ix: indexes{}, seen: map[string]bool{}}
	e.checkShape()
	if err := e.p.err(); err != nil {
		return nil, err
	}
	dims := e.dims()
	if total := combinations(s.Factors, dims); total > maxCombinations {
		count := countText(total)
		if total == math.MaxInt {
			count = "more than " + count
		}
		e.p.add(e.s.FactorsPos, "%s cells (%s): a study holds at most %s cells; vary fewer levels, zip factors that vary together, or split it into several studies",
			count, e.dimsText(dims), countText(maxCells))
		return nil, e.p.err()
	}
	plan := &Plan{Study: s}
	kept := 0
	e.eachCombination(dims, func(combo []int) {
		if e.excluded(combo) {
			plan.Excluded++
			return
		}
		if kept++; kept > maxCells {
			return // counted, not made: the study is refused below
		}
		c := e.cell(combo)
		c.Index = len(plan.Cells)
		plan.Cells = append(plan.Cells, c)
	})
	if kept > maxCells {
		excluded := ""
		if plan.Excluded > 0 {
			excluded = fmt.Sprintf(" = %s, of which %s are excluded", countText(kept+plan.Excluded), countText(plan.Excluded))
		}
		e.p.add(e.s.FactorsPos, "%s cells (%s%s): a study holds at most %s cells; vary fewer levels, zip factors that vary together, exclude more, or split it into several studies",
			countText(kept), e.dimsText(dims), excluded, countText(maxCells))
		return nil, e.p.err()
	}
	if err := e.p.err(); err != nil {
		return nil, err
	}
	plan.Notes = append(plan.Notes, dropUnusedTiers(plan.Cells)...)
	for i, r := range s.Exclude {
		if e.ruleHits[i] == 0 {
			plan.Notes = append(plan.Notes, fmt.Sprintf("%s:%d: %s matches no cell", s.File.Path, r.Pos.Line, r.Pos.Field))
		}
	}
	if len(plan.Cells) == 0 {
		e.p.add(s.Exclude[0].Pos, "the exclude rules remove all %d cells: nothing would run; exclude fewer", plan.Excluded)
		return nil, e.p.err()
	}
	if b := s.Baseline; b != nil && !slices.ContainsFunc(plan.Cells, func(c Cell) bool { return matches(*b, c.Factors) }) {
		why := "no cell has these levels"
		if plan.Excluded > 0 {
			why = "the exclude rules remove every cell that has them"
		}
		e.p.add(b.Pos, "%s is not a cell: %s; give levels of a cell that runs", describe(*b), why)
		return nil, e.p.err()
	}
	plan.Factors = e.factorInfo(plan.Cells)
	if b := s.Baseline; b != nil {
		var zip [][]string
		for _, g := range s.Zip {
			zip = append(zip, g.Factors)
		}
		levels := func(factor string) []string {
			for _, f := range plan.Factors {
				if f.Name == factor {
					return f.Levels
				}
			}
			return nil
		}
		if n := unbased(plan.Cells, withZipped(b.Terms, zip, levels)); n != "" {
			plan.Notes = append(plan.Notes, n)
		}
	}
	plan.Claims = e.checkClaims(plan)
	plan.Populations = e.populations(plan)
	if err := e.p.err(); err != nil {
		return nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", s.File.Name)
	for _, c := range plan.Cells {
		fmt.Fprintf(h, "%s %s\n", c.ID, c.Fingerprint)
	}
	plan.Fingerprint = hex.EncodeToString(h.Sum(nil))[:16]
	return plan, nil
}

// expansion is the state of one Expand.
type expansion struct {
	s  *Study
	p  *problems
	ix indexes
	// zipOf maps a factor to its zip group; referenced names the factors a value
	// refers to.
	zipOf      map[string]int
	referenced map[string]bool
	ruleHits   []int
	// seen holds the problems reported once for all cells.
	seen map[string]bool
}

// addOnce reports a problem once, however many cells have it.
func (e *expansion) addOnce(pos Pos, format string, args ...any) {
	key := fmt.Sprintf("%d %s ", pos.Line, pos.Field) + fmt.Sprintf(format, args...)
	if !e.seen[key] {
		e.seen[key] = true
		e.p.add(pos, format, args...)
	}
}

func (e *expansion) factor(name string) *Factor {
	for i := range e.s.Factors {
		if e.s.Factors[i].Name == name {
			return &e.s.Factors[i]
		}
	}
	return nil
}

func (e *expansion) factorNames() string {
	if len(e.s.Factors) == 0 {
		return "the study has no factors"
	}
	names := make([]string, len(e.s.Factors))
	for i, f := range e.s.Factors {
		names[i] = f.Name
	}
	return "factors are " + strings.Join(names, ", ")
}

// checkShape checks what needs no workload: who sets what, zip groups, references,
// rules and the baseline against the factors' levels, and the cell IDs.
func (e *expansion) checkShape() {
	s, p := e.s, e.p
	setBy := map[string]string{}
	for _, st := range s.Params {
		switch st.Name {
		case "out":
			p.add(st.Value.Pos, "a study gives each run its own --out (OUT/cells/CELL/rep-N): remove it")
		case workloadKey:
			p.add(st.Value.Pos, "name the workload in the study's workload field, or make it a factor")
		}
		setBy[st.Name] = "params"
	}
	if f := e.factor(workloadKey); f != nil && s.File.Workload != "" {
		p.add(f.Pos, "the study's workload is %s: remove the workload field to make it a factor", s.File.Workload)
	}
	for _, f := range s.Factors {
		if f.Name == "out" {
			p.add(f.Pos, "a study gives each run its own --out (OUT/cells/CELL/rep-N): it cannot be a factor")
		}
		names := map[string]Pos{}
		for _, l := range f.Levels {
			if l.Value != nil {
				names[f.Name] = f.Pos
			}
			for _, st := range l.Settings {
				if st.Name == "out" || st.Name == "label" {
					p.add(st.Value.Pos, "a level cannot set --out")
				}
				names[st.Name] = st.Value.Pos
			}
		}
		for _, n := range slices.Sorted(maps.Keys(names)) {
			switch by, dup := setBy[n]; {
			case dup && by == "params":
				p.add(names[n], "%s is also given in params: a factor's values replace them, remove one", n)
			case dup:
				p.add(names[n], "%s is also set by factor %s: one parameter, one factor", n, by)
			default:
				setBy[n] = f.Name
			}
		}
		e.checkIDs(f)
	}
	e.zipOf = map[string]int{}
	for gi, g := range s.Zip {
		counts := make([]string, 0, len(g.Factors))
		n := -1
		equal := true
		for _, name := range g.Factors {
			f := e.factor(name)
			if f == nil {
				p.add(g.Pos, "%q is not a factor: %s", name, e.factorNames())
				continue
			}
			if _, dup := e.zipOf[name]; dup {
				p.add(g.Pos, "%s is in two zip groups: a factor varies with one group", name)
				continue
			}
			e.zipOf[name] = gi
			counts = append(counts, fmt.Sprintf("%s %d", name, len(f.Levels)))
			if n >= 0 && len(f.Levels) != n {
				equal = false
			}
			n = len(f.Levels)
		}
		if !equal {
			p.add(g.Pos, "zipped factors pair their values by position, so they need as many values each: %s", strings.Join(counts, ", "))
		}
	}
	e.referenced = map[string]bool{}
	check := func(v Value, own string) {
		for _, text := range v.Values {
			if m := unclosedRE.FindStringSubmatch(text); m != nil {
				p.add(v.Pos, "%q: the reference ${%s is not closed: write ${%s}", text, m[1], m[1])
				e.referenced[m[1]] = true
			}
		}
		for _, m := range refRE.FindAllStringSubmatch(v.Text(), -1) {
			name := m[1]
			switch {
			case e.factor(name) == nil:
				p.add(v.Pos, "${%s} refers to no factor: %s", name, e.factorNames())
			case name == own:
				p.add(v.Pos, "${%s} refers to its own factor", name)
			default:
				e.referenced[name] = true
			}
		}
	}
	for _, st := range s.Params {
		check(st.Value, "")
	}
	for _, f := range s.Factors {
		for _, l := range f.Levels {
			if l.Value != nil {
				check(*l.Value, f.Name)
			}
			for _, st := range l.Settings {
				check(st.Value, f.Name)
			}
		}
	}
	e.ruleHits = make([]int, len(s.Exclude))
	for _, r := range s.Exclude {
		e.checkMatch(r)
	}
	if g := s.Goal; g != nil {
		for i, name := range g.Per {
			if e.factor(name) == nil {
				p.add(g.PerPos[i], "%q is not a factor: %s", name, e.factorNames())
			}
		}
	}
	if b := s.Baseline; b != nil {
		e.checkMatch(*b)
		for _, t := range b.Terms {
			if len(t.Levels) != 1 {
				p.add(t.Pos, "the baseline names one value of each factor it gives, e.g. {%s: %s}", t.Factor, t.Levels[0])
			}
		}
	}
}

// checkMatch checks that a rule's factors and levels exist.
func (e *expansion) checkMatch(m Match) {
	for _, t := range m.Terms {
		f := e.factor(t.Factor)
		if f == nil {
			e.p.add(t.Pos, "%q is not a factor: %s", t.Factor, e.factorNames())
			continue
		}
		for _, l := range t.Levels {
			if !slices.ContainsFunc(f.Levels, func(x Level) bool { return x.Label == l }) {
				e.p.add(t.Pos, "%q is not a value of %s: its values are %s", l, f.Name, strings.Join(levelLabels(*f), ", "))
			}
		}
	}
}

func levelLabels(f Factor) []string {
	out := make([]string, len(f.Levels))
	for i, l := range f.Levels {
		out[i] = l.Label
	}
	return out
}

// checkIDs refuses levels whose labels make the same directory name.
func (e *expansion) checkIDs(f Factor) {
	by := map[string]string{}
	for _, l := range f.Levels {
		id := idPart(l.Label)
		if other, dup := by[id]; dup {
			e.p.add(l.Pos, "%q and %q make the same cell directory name (%s): give them labels that differ in letters or digits", other, l.Label, id)
		}
		by[id] = l.Label
	}
}

// A study's size is bounded before its cells are made: each cell is validated, kept in
// study.json and drawn in the report, and a matrix of millions (a factor given a
// thousand levels by mistake) would take minutes and gigabytes before the first run.
// 10,000 cells at one second a run is three hours per repetition.
const (
	// maxCells bounds the cells a study runs, after its exclude rules.
	maxCells = 10_000
	// maxCombinations bounds the cross product the exclude rules are applied to.
	maxCombinations = 1_000_000
)

// dims are the factors that vary together, the first slowest: a factor alone, or
// the factors of a zip group; each is a list of indexes into the study's factors.
func (e *expansion) dims() [][]int {
	fs := e.s.Factors
	var dims [][]int
	done := map[int]bool{}
	for i, f := range fs {
		gi, zipped := e.zipOf[f.Name]
		if !zipped {
			dims = append(dims, []int{i})
			continue
		}
		if done[gi] {
			continue
		}
		done[gi] = true
		var dim []int
		for j, g := range fs {
			if gj, ok := e.zipOf[g.Name]; ok && gj == gi {
				dim = append(dim, j)
			}
		}
		dims = append(dims, dim)
	}
	return dims
}

// combinations is the size of the cross product of dims, counted without making it
// (math.MaxInt when it is larger).
func combinations(fs []Factor, dims [][]int) int {
	n := 1
	for _, d := range dims {
		l := len(fs[d[0]].Levels)
		if n > math.MaxInt/l {
			return math.MaxInt
		}
		n *= l
	}
	return n
}

// eachCombination calls f with each combination of the dims' levels (a level index
// per factor), the first dim varying slowest. The slice is reused between calls.
func (e *expansion) eachCombination(dims [][]int, f func(combo []int)) {
	fs := e.s.Factors
	combo := make([]int, len(fs))
	at := make([]int, len(dims))
	for {
		for d, dim := range dims {
			for _, fi := range dim {
				combo[fi] = at[d]
			}
		}
		f(combo)
		d := len(dims) - 1
		for ; d >= 0; d-- {
			if at[d]++; at[d] < len(fs[dims[d][0]].Levels) {
				break
			}
			at[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

// dimsText writes the dims as "users 10 x (sf, streams) 3".
func (e *expansion) dimsText(dims [][]int) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		names := make([]string, len(d))
		for j, fi := range d {
			names[j] = e.s.Factors[fi].Name
		}
		name := names[0]
		if len(names) > 1 {
			name = "(" + strings.Join(names, ", ") + ")"
		}
		parts[i] = fmt.Sprintf("%s %d", name, len(e.s.Factors[d[0]].Levels))
	}
	return strings.Join(parts, " x ")
}

// countText writes a count with thousands separated: 1,000,000.
func countText(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// levelsOf are the labels of a combination's levels as report factors.
func (e *expansion) levelsOf(combo []int) []report.Factor {
	out := make([]report.Factor, len(combo))
	for i, k := range combo {
		f := e.s.Factors[i]
		out[i] = report.Factor{Name: f.Name, Value: f.Levels[k].Label}
	}
	return out
}

func (e *expansion) excluded(combo []int) bool {
	fs := e.levelsOf(combo)
	for i, r := range e.s.Exclude {
		if matches(r, fs) {
			e.ruleHits[i]++
			return true
		}
	}
	return false
}

// matches reports whether the levels fs have every term of m.
func matches(m Match, fs []report.Factor) bool {
	for _, t := range m.Terms {
		v := report.Cell{Factors: fs}.Factor(t.Factor)
		if !slices.Contains(t.Levels, v) {
			return false
		}
	}
	return true
}

// describe writes a match as the file does: {engine: sqlite, placement: I}.
func describe(m Match) string {
	parts := make([]string, len(m.Terms))
	for i, t := range m.Terms {
		v := strings.Join(t.Levels, ", ")
		if len(t.Levels) > 1 {
			v = "[" + v + "]"
		}
		parts[i] = t.Factor + ": " + v
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// cell makes the cell of a combination: its workload and every value it sets.
func (e *expansion) cell(combo []int) Cell {
	s := e.s
	c := Cell{Factors: e.levelsOf(combo), Workload: s.File.Workload, Phases: s.File.Phases, Values: map[string][]string{}}
	workloadPos := s.File.WorkloadPos
	type set struct {
		name string
		v    Value
	}
	var sets []set
	for _, st := range s.Params {
		sets = append(sets, set{st.Name, st.Value})
	}
	type plainLevel struct {
		f *Factor
		l Level
	}
	var plain []plainLevel // plain levels of factors not yet known to be parameters
	for i, k := range combo {
		f := &s.Factors[i]
		l := f.Levels[k]
		if l.Value != nil {
			if f.Name == workloadKey {
				c.Workload, workloadPos = l.Label, l.Pos
				continue
			}
			plain = append(plain, plainLevel{f, l})
			sets = append(sets, set{f.Name, *l.Value})
		}
		for _, st := range l.Settings {
			if st.Name == workloadKey {
				c.Workload, workloadPos = st.Value.Text(), st.Value.Pos
				continue
			}
			sets = append(sets, set{st.Name, st.Value})
		}
	}
	pi, err := e.ix.get(c.Workload, c.Phases)
	if err != nil {
		e.addOnce(workloadPos, "%v", err)
		return c
	}
	c.Phases = pi.phases
	for _, st := range sets {
		if !pi.has(st.name) {
			if i := slices.IndexFunc(plain, func(pl plainLevel) bool { return pl.f.Name == st.name }); i >= 0 {
				f, l := plain[i].f, plain[i].l
				switch {
				case e.referenced[st.name]:
					continue // a factor of its own, for ${name}
				case slices.ContainsFunc(f.Levels, func(l Level) bool { return l.Value == nil }):
					// The other levels are maps: this one lacks its label and
					// parameters, not the study a parameter.
					m := f.Levels[slices.IndexFunc(f.Levels, func(l Level) bool { return l.Value == nil })]
					e.addOnce(l.Pos, "%q is a plain value, which would set a parameter %s, and %s has none: write it as a map with a label as the factor's other values are, e.g. {label: %s, %s: %s}",
						l.Label, st.name, pi.workload, l.Label, m.Settings[0].Name, l.Label)
				default:
					e.addOnce(f.Pos, "unknown factor %q: %s, and no value refers to ${%s}", st.name, pi.unknown(st.name), st.name)
				}
				continue
			}
			e.addOnce(st.v.Pos, "%s", pi.unknown(st.name))
			continue
		}
		vals := make([]string, len(st.v.Values))
		for i, v := range st.v.Values {
			vals[i] = refRE.ReplaceAllStringFunc(v, func(ref string) string {
				return report.Cell{Factors: c.Factors}.Factor(refRE.FindStringSubmatch(ref)[1])
			})
		}
		c.Values[st.name] = vals
	}
	c.ID = cellID(c.Factors)
	c.Fingerprint = fingerprint(c)
	return c
}

// cellID is a cell's directory name: name=label of each factor, joined by commas,
// with characters a shell or a file system would trip on replaced by '_'.
func cellID(fs []report.Factor) string {
	if len(fs) == 0 {
		return "cell"
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Name + "=" + idPart(f.Value)
	}
	id := strings.Join(parts, ",")
	if len(id) > 200 { // a file name has 255 bytes at most
		sum := sha256.Sum256([]byte(id))
		id = id[:180] + "~" + hex.EncodeToString(sum[:])[:8]
	}
	return id
}

func idPart(label string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._+-", r) {
			return r
		}
		return '_'
	}, label)
}

// fingerprint hashes what a cell runs: a change to any value changes it.
func fingerprint(c Cell) string {
	keys := slices.Sorted(maps.Keys(c.Values))
	type kv struct {
		K string   `json:"k"`
		V []string `json:"v"`
	}
	vals := make([]kv, len(keys))
	for i, k := range keys {
		vals[i] = kv{k, c.Values[k]}
	}
	b, _ := json.Marshal(struct {
		W string           `json:"w"`
		P []workload.Phase `json:"p"`
		V []kv             `json:"v"`
	}{c.Workload, c.Phases, vals})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// factorInfo describes each factor and how its levels read as an axis.
func (e *expansion) factorInfo(cells []Cell) []FactorInfo {
	out := make([]FactorInfo, len(e.s.Factors))
	for i, f := range e.s.Factors {
		fi := FactorInfo{Name: f.Name, Levels: levelLabels(f), Axis: AxisCategory}
		plain := true
		for _, l := range f.Levels {
			plain = plain && l.Value != nil && !l.Value.List
		}
		if plain {
			var kind params.Kind
			if pi, err := e.ix.get(cells[0].Workload, cells[0].Phases); err == nil {
				kind = pi.kind(f.Name)
			}
			fi.Axis = axisOf(kind, fi.Levels)
		}
		out[i] = fi
	}
	return out
}

// baselineOf maps each cell to the cell it is compared with: the cell with the
// baseline's levels of the factors the baseline names and the cell's own levels of
// the others (a baseline cell maps to itself). A cell whose baseline cell is not
// among cells, because an exclude rule removed it, is not in the map.
func baselineOf(cells []Cell, baseline []Term) map[string]string {
	byLevels := map[string]string{}
	for _, c := range cells {
		byLevels[cellID(c.Factors)] = c.ID
	}
	out := map[string]string{}
	for _, c := range cells {
		if id, ok := byLevels[cellID(baselineLevels(c.Factors, baseline))]; ok {
			out[c.ID] = id
		}
	}
	return out
}

// withZipped is the baseline with the factors zipped to its factors: zipped factors
// move together, so the baseline cell has each partner's level at the position of the
// baseline's level (zip: [[users, buffer]] with baseline users=4 fixes buffer at the
// level paired with 4 too).
func withZipped(baseline []Term, zip [][]string, levels func(string) []string) []Term {
	out := slices.Clone(baseline)
	named := func(f string) bool { return slices.ContainsFunc(out, func(t Term) bool { return t.Factor == f }) }
	for _, t := range baseline {
		at := slices.Index(levels(t.Factor), t.Levels[0])
		if at < 0 {
			continue
		}
		for _, g := range zip {
			if !slices.Contains(g, t.Factor) {
				continue
			}
			for _, f := range g {
				if ls := levels(f); !named(f) && at < len(ls) {
					out = append(out, Term{Factor: f, Levels: []string{ls[at]}})
				}
			}
		}
	}
	return out
}

// baselineLevels are the levels of the cell a cell of levels fs is compared with.
func baselineLevels(fs []report.Factor, baseline []Term) []report.Factor {
	fs = slices.Clone(fs)
	for i := range fs {
		for _, t := range baseline {
			if t.Factor == fs[i].Name {
				fs[i].Value = t.Levels[0]
			}
		}
	}
	return fs
}

// unbased says which cells have no cell to be compared with, their baseline cell
// being excluded, or "" when every cell has one: those cells are reported without a
// comparison, and a reader must know why.
func unbased(cells []Cell, baseline []Term) string {
	against := baselineOf(cells, baseline)
	var named []string
	n := 0
	for _, c := range cells {
		if _, ok := against[c.ID]; ok {
			continue
		}
		n++
		if len(named) < maxNamed {
			named = append(named, fmt.Sprintf("%s (its baseline %s is excluded)", c.ID, cellID(baselineLevels(c.Factors, baseline))))
		}
	}
	if n == 0 {
		return ""
	}
	more := ""
	if n > len(named) {
		more = fmt.Sprintf(" and %d more", n-len(named))
	}
	are, them := "cells are", "them"
	if n == 1 {
		are, them = "cell is", "it"
	}
	return fmt.Sprintf("%d %s compared with no baseline: %s%s; exclude %s too, or keep a baseline cell for each", n, are, strings.Join(named, "; "), more, them)
}
