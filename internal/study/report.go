package study

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"tierbench/internal/metrics"
	"tierbench/internal/report"
	"tierbench/internal/report/chart"
	"tierbench/internal/report/quantity"
	"tierbench/internal/result"
	"tierbench/internal/workload"
)

// Files a study report writes beside report.html and figures/.
const (
	CellsCSVFile = "cells.csv"
	SummaryFile  = "summary.json"
)

// Report is a study's report: the page, and the numbers behind it.
type Report struct {
	Doc     *report.Document
	Summary *report.Summary
	Cells   []report.Cell
	Metrics []report.Metric
	// Notes say what the report left out of the runs' files.
	Notes []string
	// Claims are the study's expected findings, judged.
	Claims []Judgement
	// Hosts are the machines the runs ran on, and host as a blocking factor.
	Hosts *HostSummary
	// study and fingerprint say which study it is of.
	study, fingerprint string
	// headline marks the headline metrics' keys; varying each factor's levels over
	// the cells.
	headline map[string]bool
	varying  map[string]map[string]bool
}

// Write writes the report into dir: report.html, figures/*.png and .svg, cells.csv
// (every run's numbers) and summary.json (every cell's statistics), each atomically.
func (r *Report) Write(dir string) error {
	if err := r.Doc.Write(dir); err != nil {
		return err
	}
	var csv bytes.Buffer
	if err := report.WriteCellsCSV(&csv, r.Cells, r.Metrics); err != nil {
		return err
	}
	if err := metrics.WriteFile(filepath.Join(dir, CellsCSVFile), csv.Bytes()); err != nil {
		return err
	}
	// summary.json says which study it is of, so that a report of another study is
	// not written over it (checkOut).
	return metrics.WriteJSONFile(filepath.Join(dir, SummaryFile), struct {
		summaryHead
		*report.Summary
		Claims []Judgement  `json:"claims,omitempty"`
		Hosts  *HostSummary `json:"hosts,omitempty"`
	}{summaryHead{Study: r.study, Fingerprint: r.fingerprint}, r.Summary, r.Claims, r.Hosts})
}

// reportBuilder holds what the report's sections share.
type reportBuilder struct {
	res   *Results
	rec   *Record
	sum   *report.Summary
	defs  []metricDef
	axes  map[string]Axis
	cells []report.Cell
	// verdicts are the runs' verdicts of their headline windows.
	verdicts map[runKey]*verdictLine
	// missing is what the runs' energy totals leave out of the whole system.
	missing energyMissing
	// notes say what the runs' files lacked.
	notes []string
}

// BuildReport makes the report of a study's results: its plan; per headline metric
// a table (mean, SD, min, max, 95% CI, % against the baseline with Welch's p) and a
// chart chosen by the factors (lines over the first numeric factor that varies, one
// per configuration of the others, or grouped bars over a categorical one); then,
// where the runs' results have them, latency percentiles, the emulated devices'
// utilisation and MB/s, the energy and CO2 of each cell; and every run with how it
// ended.
func BuildReport(res *Results) (*Report, error) {
	b := &reportBuilder{res: res, rec: res.Record, axes: map[string]Axis{}, verdicts: map[runKey]*verdictLine{}}
	for _, f := range b.rec.Factors {
		b.axes[f.Name] = f.Axis
	}
	if err := b.collect(); err != nil {
		return nil, err
	}
	ms := make([]report.Metric, len(b.defs))
	for i, d := range b.defs {
		ms[i] = d.Metric
	}
	var err error
	if against, what := b.against(); against != nil {
		b.sum, err = report.SummariseAgainst(b.cells, ms, against, what)
	} else {
		b.sum, err = report.Summarise(b.cells, ms, "")
	}
	if err != nil {
		return nil, err
	}
	title := "Study " + b.rec.Name
	if b.rec.Size != "" {
		title += " (size " + b.rec.Size + ")"
	}
	doc := report.New(title)
	doc.Subtitle = b.rec.Description
	doc.Section("Plan").AddPlan(b.plan())
	rep := &Report{Doc: doc, Summary: b.sum, Cells: b.cells, Metrics: ms, Notes: b.notes, study: b.rec.Name, fingerprint: b.rec.Fingerprint, headline: map[string]bool{}, varying: map[string]map[string]bool{}}
	for _, d := range b.group(groupHeadline) {
		rep.headline[d.Key] = true
	}
	for _, c := range b.sum.Cells {
		for _, f := range c.Factors {
			if rep.varying[f.Name] == nil {
				rep.varying[f.Name] = map[string]bool{}
			}
			rep.varying[f.Name][f.Value] = true
		}
	}
	rep.Hosts = b.hostSummary(rep)
	if fs := rep.Findings(); len(fs) > 0 {
		doc.Section("Against the baseline").AddText("Each headline metric's mean against the baseline's, with Welch's t-test (two-sided, significant when p < 0.05):").
			AddPre(strings.Join(fs, "\n"))
	}
	if rep.Claims = Judge(b.rec.Expect, b.sum, b.rec.Factors, b.rec.Repetitions); len(rep.Claims) > 0 {
		doc.Section("Expected findings").AddText(claimsText...).AddTable(claimsTable(rep.Claims))
	}
	if err := b.sections(doc); err != nil {
		return nil, err
	}
	if len(b.verdicts) > 0 {
		doc.Section("Verdicts").AddText("What limited each run's headline window, as its verdict section says (see each result.json for the evidence).").
			AddTable(b.verdictTable())
	}
	rep.hostSection(doc)
	doc.Section("Runs").AddTable(b.runsTable())
	return rep, nil
}

// collect makes a report cell per study cell with each recorded run's numbers: its
// headline metrics and the extras of its result file.
func (b *reportBuilder) collect() error {
	known := map[string]bool{}
	define := func(d metricDef) {
		if !known[d.Key] {
			known[d.Key] = true
			b.defs = append(b.defs, d)
		}
	}
	var later []metricDef // extras come after every headline metric
	for _, c := range b.rec.Cells {
		rc := report.Cell{ID: c.ID, Factors: c.Factors}
		for _, r := range b.res.CellRuns(c.ID) {
			run := report.Run{Repetition: r.Repetition, Dir: r.Dir, Host: hostKey(r), Metrics: map[string]float64{}}
			if r.Status != result.StatusOK {
				run.Error = r.Error
				if run.Error == "" {
					run.Error = string(r.Status)
				}
			}
			for _, m := range r.Metrics {
				define(metricDef{newMetric(m.Name, headlineLabel(c.Workload, m.Name), m.Unit, m.Better == result.LowerIsBetter), groupHeadline})
				run.Metrics[m.Name] = m.Value
			}
			if r.Status == result.StatusOK {
				defs, vals, notes, err := extras(r)
				if err != nil {
					// The run's headline numbers are in its cell.json; one damaged
					// result file costs the report that run's details, not the report.
					b.notes = append(b.notes, fmt.Sprintf("%s rep %d: %v: its latency, devices, energy and verdict are left out (its headline numbers are in its %s)",
						c.ID, r.Repetition, oneLine(err), RunFile))
					err = nil
				}
				if notes.verdict != nil && b.verdicts != nil {
					b.verdicts[runKey{c.ID, r.Repetition}] = notes.verdict
				}
				if notes.energy {
					b.missing.add(c.ID, notes.energyMissing)
				}
				later = append(later, defs...)
				for k, v := range vals {
					if _, headline := run.Metrics[k]; !headline {
						run.Metrics[k] = v
					}
				}
			}
			rc.Runs = append(rc.Runs, run)
		}
		b.cells = append(b.cells, rc)
	}
	for _, d := range later {
		switch d.Key {
		case "energy_j", "co2_g":
			d.Label = b.missing.label(d.Label)
		}
		define(d)
	}
	return nil
}

// newMetric is a report metric with the range of its unit (package quantity), which
// its intervals and axes keep within.
func newMetric(key, label, unit string, lower bool) report.Metric {
	return report.Metric{Key: key, Label: label, Unit: unit, LowerIsBetter: lower, Range: quantity.Of(unit)}
}

// headlineLabel is a headline metric's title as its workload's registry entry gives
// it ("QphH@Size" for qphh_at_size), or its name.
func headlineLabel(wl, name string) string {
	if m, err := workload.Get(wl); err == nil {
		if mi, ok := m.Metric(name); ok {
			return mi.Label()
		}
	}
	return name
}

// against maps each cell to its baseline: the cell with the baseline's levels of the
// factors it names, the levels paired with them of the factors zipped to those, and
// the cell's own levels of the others. nil without a baseline.
func (b *reportBuilder) against() (map[string]string, string) {
	if len(b.rec.Baseline) == 0 {
		return nil, ""
	}
	terms := withZipped(b.rec.Baseline, b.rec.Zip, b.levels)
	out := baselineOf(b.rec.Cells, terms)
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = t.Factor + "=" + t.Levels[0]
	}
	what := strings.Join(parts, " ")
	var free []string
	for _, f := range b.rec.Factors {
		if len(f.Levels) > 1 && !slices.ContainsFunc(terms, func(t Term) bool { return t.Factor == f.Name }) {
			free = append(free, f.Name)
		}
	}
	if len(free) > 0 {
		what += " with the same " + strings.Join(free, " and ")
	}
	return out, what
}

// plan is the report's plan block: what was run, and what the directories hold.
func (b *reportBuilder) plan() report.Plan {
	rec := b.rec
	var items []report.Item
	add := func(k, format string, args ...any) {
		items = append(items, report.Item{Key: k, Value: fmt.Sprintf(format, args...)})
	}
	workloads := []string{}
	for _, c := range rec.Cells {
		w := fmt.Sprintf("%s (%s)", c.Workload, joinPhases(c))
		if !slices.Contains(workloads, w) {
			workloads = append(workloads, w)
		}
	}
	add("Workload", "%s", strings.Join(workloads, "; "))
	var fs []string
	for _, f := range rec.Factors {
		fs = append(fs, fmt.Sprintf("%s: %s", f.Name, strings.Join(f.Levels, ", ")))
	}
	if len(fs) > 0 {
		add("Factors", "%s", strings.Join(fs, "; "))
	}
	for _, z := range rec.Zip {
		add("Zip", "%s vary together", strings.Join(z, ", "))
	}
	for _, x := range rec.Exclude {
		add("Exclude", "%s", x)
	}
	order := "fixed"
	if rec.Order == OrderShuffled {
		order = fmt.Sprintf("shuffled (seed %d)", rec.Seed)
	}
	add("Cells", "%d cells x %d repetitions = %d runs, order %s", len(rec.Cells), rec.Repetitions, len(rec.Cells)*rec.Repetitions, order)
	if b.sum.Baseline != "" {
		add("Baseline", "%s", b.sum.Baseline)
	}
	if rec.TimeoutS > 0 {
		add("Timeout", "%gs a run", rec.TimeoutS)
	}
	if rec.Size != "" {
		add("Size", "%s: %s", rec.Size, rec.SizeDescription)
	}
	ok, failed := 0, 0
	for _, r := range b.res.Runs {
		if r.Status == result.StatusOK {
			ok++
		} else {
			failed++
		}
	}
	missing := len(rec.Cells)*rec.Repetitions - ok - failed
	runs := fmt.Sprintf("%d ok, %d failed", ok, failed)
	if missing > 0 {
		runs += fmt.Sprintf(", %d not run (yet, or in a shard not given)", missing)
	}
	add("Runs", "%s", runs)
	if m := b.missingItem(); m != "" {
		add("Not run", "%s", m)
	}
	add("Hosts", "%s", b.hostsItem())
	add("Directories", "%s", strings.Join(b.res.Dirs, ", "))
	for _, n := range append(append(slices.Clone(rec.Notes), b.res.Notes...), b.notes...) {
		add("Note", "%s", n)
	}
	return report.Plan{Description: rec.Description, Items: items, Source: rec.Source}
}

// sections add a section per group of metrics: a table per metric, and charts.
func (b *reportBuilder) sections(doc *report.Document) error {
	results := doc.Section("Results")
	if g := b.rec.Goal; g != nil {
		sec := results.Section("Goal")
		for _, r := range g.RankPer(b.sum) {
			sec.AddText(g.Text(r))
			for i, c := range r.Ranked {
				sec.AddText(fmt.Sprintf("%d. %s: %s %.4g", i+1, c.ID, g.Metric, c.Mean))
			}
			for _, e := range r.Excluded {
				sec.AddText("Not meeting the conditions: " + e)
			}
		}
	}
	for _, d := range b.group(groupHeadline) {
		sec := results.Section(d.Key)
		if err := b.addTable(sec, d.Key); err != nil {
			return err
		}
		c, err := b.factorChart(d.Key)
		if err != nil {
			return err
		}
		if c != nil {
			sec.AddChart(c)
		}
	}
	type perCell struct {
		name, title, y, unit string
		stacked              bool
		keys                 []string
	}
	lat := b.keys(groupLatency, "")
	util, mbs := b.keys(groupDevices, "util_"), b.keys(groupDevices, "mb_s_")
	sections := []struct {
		title string
		group string
		text  string
		bars  []perCell
	}{
		{"Latency", groupLatency, "Latency percentiles of all transactions together at the headline level of users.",
			[]perCell{{name: "latency-per-cell", title: "Latency percentiles per cell", y: "latency", unit: "ms", keys: lat}}},
		{"Devices", groupDevices, "Utilisation and MB/s of each emulated device over the measured window (without one, from mount to unmount), the engine's MB/s, and tierbench's own CPU.",
			[]perCell{{name: "utilisation-per-cell", title: "Device utilisation per cell", y: "utilisation", unit: "%", keys: util},
				{name: "mb-s-per-cell", title: "Device MB/s per cell", y: "read + write", unit: "MB/s", keys: mbs}}},
		{"Host CPU", groupMonitoring, "The host's CPU busy and iowait shares (all CPUs, 100% is every CPU busy) over each run's headline window, from its monitoring section (metrics.jsonl).",
			[]perCell{{name: "host-cpu-per-cell", title: "Host CPU busy per cell", y: "busy", unit: "%", keys: b.keys(groupMonitoring, "busy")}}},
		{"Energy and CO2", groupEnergy, "The energy and CO2 of each run's total (see the energy section of each result.json for how each part was measured or modelled, and what the total leaves out of the whole system), and the emulated devices' own.",
			[]perCell{{name: "energy-per-cell", title: "Energy per cell, by component", y: "energy", unit: "J", stacked: true, keys: b.keys(groupParts, "")},
				{name: "co2-per-cell", title: "CO2 per cell", y: "CO2", unit: "g", keys: b.keys(groupEnergy, "co2_g")}}},
		{"Cost and carbon per unit of work", groupCost, "What each run's cloud volumes and host cost over its measured window and per unit of work (the cost section of each result.json, with the prices' sources), its SCI (operational and embodied CO2e per transaction) and TPC-Energy's watts per performance (docs/cloud.md, docs/energy.md).",
			[]perCell{{name: "cost-per-cell", title: "Cost per million transactions per cell", y: "cost", unit: "USD", keys: b.keys(groupCost, "usd_per_million")},
				{name: "sci-per-cell", title: "CO2e per transaction per cell", y: "CO2e", unit: "g", keys: b.keys(groupCost, "sci_g")}}},
	}
	for _, s := range sections {
		defs := b.group(s.group)
		if len(defs) == 0 {
			continue
		}
		sec := doc.Section(s.title).AddText(s.text)
		if t := b.missing.text(); s.group == groupEnergy && t != "" {
			sec.AddText(t)
		}
		for _, pc := range s.bars {
			if c := b.perCellChart(pc.name, pc.title, chart.Axis{Label: pc.y, Unit: pc.unit}, pc.keys, pc.stacked); c != nil {
				sec.AddChart(c)
			}
		}
		if s.group == groupCost {
			for _, c := range b.costCharts() {
				sec.AddChart(c)
			}
		}
		for _, d := range defs {
			if err := b.addTable(sec, d.Key); err != nil {
				return err
			}
		}
		if s.group == groupEnergy {
			for _, d := range b.group(groupParts) {
				if err := b.addTable(sec, d.Key); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (b *reportBuilder) addTable(sec *report.Section, key string) error {
	t, err := b.sum.Table(key)
	if err != nil {
		return err
	}
	sec.AddTable(t)
	return nil
}

// group lists the metrics of a group in their order.
func (b *reportBuilder) group(g string) []metricDef {
	var out []metricDef
	for _, d := range b.defs {
		if d.group == g {
			out = append(out, d)
		}
	}
	return out
}

// keys lists the keys of a group's metrics that contain part.
func (b *reportBuilder) keys(g, part string) []string {
	var out []string
	for _, d := range b.group(g) {
		if strings.Contains(d.Key, part) {
			out = append(out, d.Key)
		}
	}
	return out
}

// factorChart charts a metric over the factors: lines over the first numeric factor
// that varies (one line per combination of the others), else grouped bars over the
// first factor that varies; nil for a study of one cell or a metric no cell has.
func (b *reportBuilder) factorChart(key string) (*chart.Chart, error) {
	varying := b.sum.Varying()
	if len(varying) == 0 || !b.anyValue(key) {
		return nil, nil
	}
	spec := report.ChartSpec{Metric: key, X: varying[0], Kind: chart.Bar}
	for _, f := range varying {
		if ax := b.axes[f]; ax.Numeric() {
			spec = report.ChartSpec{Metric: key, X: f, Kind: chart.Line, XValue: ax.Value, XUnit: ax.Unit(), XLog: wideRange(ax, b.levels(f))}
			break
		}
	}
	spec.With = b.zippedWith(spec.X)
	return b.sum.Chart(spec)
}

// zippedWith are the factors zipped to factor that vary over the cells: they move
// with it along an axis.
func (b *reportBuilder) zippedWith(factor string) []string {
	var out []string
	for _, g := range b.rec.Zip {
		if !slices.Contains(g, factor) {
			continue
		}
		for _, f := range g {
			if f != factor && slices.Contains(b.sum.Varying(), f) {
				out = append(out, f)
			}
		}
	}
	return out
}

func (b *reportBuilder) levels(factor string) []string {
	for _, f := range b.rec.Factors {
		if f.Name == factor {
			return f.Levels
		}
	}
	return nil
}

// wideRange reports whether numeric levels span two orders of magnitude or more
// (users 5 to 2000): a logarithmic axis then shows them apart.
func wideRange(ax Axis, levels []string) bool {
	lo, hi := 0.0, 0.0
	for i, l := range levels {
		v, err := ax.Value(l)
		if err != nil || v <= 0 {
			return false
		}
		if i == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return lo > 0 && hi/lo >= 100
}

func (b *reportBuilder) anyValue(keys ...string) bool {
	for _, c := range b.sum.Cells {
		for _, k := range keys {
			if c.Metrics[k].Stats.N > 0 {
				return true
			}
		}
	}
	return false
}

// cellLabel names a cell along a per-cell chart's x: its levels of the factors that
// vary, or its ID.
func (b *reportBuilder) cellLabel(cs report.CellSummary) string {
	var parts []string
	for _, f := range b.sum.Varying() {
		parts = append(parts, report.Cell{Factors: cs.Factors}.Factor(f))
	}
	if len(parts) == 0 {
		return cs.ID
	}
	return strings.Join(parts, " / ")
}

// perCellChart draws metrics (keys, one series each) as bars per cell: grouped with
// their 95% CI, or stacked (the means). nil when no cell has any of them.
func (b *reportBuilder) perCellChart(name, title string, y chart.Axis, keys []string, stacked bool) *chart.Chart {
	if len(keys) == 0 || !b.anyValue(keys...) {
		return nil
	}
	var cats []string
	for _, cs := range b.sum.Cells {
		cats = append(cats, b.cellLabel(cs))
	}
	xl := strings.Join(b.sum.Varying(), " / ")
	if xl == "" {
		xl = "cell"
	}
	c := chart.NewBars(name, title, cats, chart.Axis{Label: xl}, y, stacked)
	var methods []string
	for _, k := range keys {
		m, _ := b.sum.Metric(k)
		var pts []chart.Point
		for i, cs := range b.sum.Cells {
			st := cs.Metrics[k].Stats
			switch {
			case st.N == 0:
			case st.N >= 2 && !stacked:
				pts = append(pts, chart.XYCI(float64(i), st.Mean, st.CILow, st.CIHigh))
				if d := st.Method.Describe(); !slices.Contains(methods, d) {
					methods = append(methods, d)
				}
			default:
				pts = append(pts, chart.XY(float64(i), st.Mean))
			}
		}
		c.Add(m.Label, pts...)
	}
	c.Note = "Bars are the means over repetitions"
	if len(methods) > 0 {
		c.Note += "; error bars, their 95% confidence intervals (" + strings.Join(methods, "; ") + ")"
	}
	c.Note += "."
	return c
}

// costRates pair each cost per unit of work with the headline rate it divides: cost
// per million transactions with TPS (docs/cloud.md, "Cost"), TPC-H's price/performance
// with QphH@Size.
var costRates = []struct{ cost, rate string }{
	{"usd_per_million_transactions", "tps"},
	{"usd_per_kqphh", "qphh_at_size"},
}

// costCharts draw each cost per unit of work against its headline rate, one point
// per cell (its own series, so the legend names it): x the rate's mean over the
// cell's repetitions, y the cost's mean with its 95% confidence interval as an error
// bar. A Line chart of one-point series is a scatter: a lone point has no line. Cells
// without a price (no cost) are left out, and the note names them.
func (b *reportBuilder) costCharts() []*chart.Chart {
	var out []*chart.Chart
	for _, cr := range costRates {
		cm, ok := b.sum.Metric(cr.cost)
		rm, ok2 := b.sum.Metric(cr.rate)
		if !ok || !ok2 || !b.anyValue(cr.cost) {
			continue
		}
		c := chart.New(chart.Line, "cost-vs-"+chart.Slug(cr.rate), cm.Label+" against "+rm.Label,
			chart.Axis{Label: rm.Label, Unit: rm.Unit}, chart.Axis{Label: "cost", Unit: cm.Unit})
		var methods, left []string
		for _, cs := range b.sum.Cells {
			st, rt := cs.Metrics[cr.cost].Stats, cs.Metrics[cr.rate].Stats
			if st.N == 0 || rt.N == 0 {
				left = append(left, b.cellLabel(cs))
				continue
			}
			p := chart.XY(rt.Mean, st.Mean)
			if st.N >= 2 {
				p = chart.XYCI(rt.Mean, st.Mean, st.CILow, st.CIHigh)
				if d := st.Method.Describe(); !slices.Contains(methods, d) {
					methods = append(methods, d)
				}
			}
			c.Add(b.cellLabel(cs), p)
		}
		c.Note = "Each point is a cell: its mean " + rm.Label + " over repetitions against its mean " + cm.Label
		if len(methods) > 0 {
			c.Note += ", with the 95% confidence interval of the cost as an error bar (" + strings.Join(methods, "; ") + ")"
		}
		c.Note += ". Lower and to the right is cheaper work at a higher rate."
		if len(left) > 0 {
			c.Note += " Left out, without a cost: " + strings.Join(left, ", ") + "."
		}
		out = append(out, c)
	}
	return out
}

// runsTable lists every run: how it ended, how long it took, where it is.
func (b *reportBuilder) runsTable() *report.Table {
	t := report.NewTable("runs", "Every run", report.Column{Label: "cell"}, report.Column{Label: "repetition"},
		report.Column{Label: "status"}, report.Column{Label: "time", Unit: "s"}, report.Column{Label: "error"}, report.Column{Label: "host"}, report.Column{Label: "directory"})
	for _, c := range b.rec.Cells {
		for _, r := range b.res.CellRuns(c.ID) {
			st := report.Text(string(r.Status))
			if r.Status != result.StatusOK {
				st.Class = report.ClassWorse
			}
			t.AddRow(report.Text(c.ID), report.NumberAs(float64(r.Repetition), fmt.Sprint(r.Repetition)), st,
				report.NumberAs(r.Seconds, fmt.Sprintf("%.1f", r.Seconds)), report.Text(r.Error), report.Text(hostKey(r)), report.Text(r.Dir))
		}
	}
	t.Note = "Each run's directory holds its result files, stdout.log and stderr.log (the commands it ran and what they printed), and cell.json."
	return t
}

// verdictTable lists each run's verdict of its headline window.
func (b *reportBuilder) verdictTable() *report.Table {
	t := report.NewTable("verdicts", "Verdict of each run", report.Column{Label: "cell"}, report.Column{Label: "repetition"},
		report.Column{Label: "window"}, report.Column{Label: "bottleneck"}, report.Column{Label: "verdict"})
	for _, c := range b.rec.Cells {
		for _, r := range b.res.CellRuns(c.ID) {
			v := b.verdicts[runKey{c.ID, r.Repetition}]
			if v == nil {
				continue
			}
			t.AddRow(report.Text(c.ID), report.NumberAs(float64(r.Repetition), fmt.Sprint(r.Repetition)),
				report.Text(v.Window), report.Text(v.Primary), report.Text(v.Headline))
		}
	}
	return t
}
