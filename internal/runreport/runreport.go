package runreport

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"tierbench/internal/monitor"
	"tierbench/internal/report"
	"tierbench/internal/report/chart"
	"tierbench/internal/rundir"
	"tierbench/internal/verdict"
)

// Report is a run's report: the document, and which series of which file each chart
// draws, so that a test can check every point against the file.
type Report struct {
	Doc *report.Document
	// Sources says, for each chart by name, what it draws.
	Sources map[string]Source
	// Origin says what time 0 of the charts is.
	Origin string
	// Notes say what the run directory lacks, or what of it was damaged and left out
	// (a torn last line); the report says them too.
	Notes []string
}

// Source is what a chart draws: for each series, in order, the key of File's lines it
// was taken from. For metrics.jsonl a key is a value's name (its x is the line's
// elapsed_s); for intervals.jsonl one of tps, qps and errors_per_s, or of the
// latency's p50_ms, p95_ms, p99_ms and max_ms (its x is the line's time since time
// 0). Group is how many consecutive lines each point averages (1: none). For
// result.json (the energy chart of a run without samples) a key is a series of the
// energy section's chart, whose points are at the chart's start plus end_s.
type Source struct {
	File  string
	Keys  []string
	Group int
	// Scales multiply each key's values (nil, or a 0: 1), as the chart shows them
	// (bytes as MB).
	Scales []float64
}

// Options change how a report is built; the zero value is the default.
type Options struct {
	// MaxPoints bounds each series over time (MaxPoints when 0).
	MaxPoints int
}

// Build reads the run directory dir and makes its report.
func Build(dir string, opt Options) (*Report, error) {
	r, err := read(dir)
	if err != nil {
		return nil, err
	}
	maxPoints := opt.MaxPoints
	if maxPoints == 0 {
		maxPoints = MaxPoints
	}
	title := "tierbench run: " + r.workload
	if e := r.engineText(); e != "" {
		title += " on " + e
	}
	doc := report.New(title)
	doc.Subtitle = fmt.Sprintf("%s, status %s", dir, statusText(r))
	if r.c.Started != "" {
		doc.Subtitle += ", started " + r.c.Started
	}
	rep := &Report{Doc: doc, Sources: map[string]Source{}, Origin: r.originText, Notes: r.notes}
	// The summary first, on one screen; then what was run, the charts over time, and
	// the evidence: the verdict's findings and checks, the per-window figures.
	r.summarySection(rep, doc.Section("Summary"), maxPoints)
	r.runSection(doc.Section("Run"))
	r.charts(rep, maxPoints)
	if r.c.Verdict != nil {
		verdictSection(doc.Section("Bottleneck verdict"), r.c.Verdict)
	}
	if t := r.windowsTable(); t != nil {
		doc.Section("Per-window summaries").AddTable(t)
	}
	if st := r.c.Storage; st != nil && len(st.Tiers) > 0 {
		doc.Section("Storage").AddTable(storageTable(st))
	}
	if r.c.Energy != nil {
		energySection(doc.Section("Energy"), r.c.Energy)
	}
	return rep, nil
}

// runSection says what was run, how it ended, what it measured and, for people, the
// summary's monitoring and verdict lines.
func (r *run) runSection(sec *report.Section) {
	items := []report.Item{{Key: "Directory", Value: r.dir}, {Key: "Workload", Value: r.workload}}
	if e := r.engineText(); e != "" {
		items = append(items, report.Item{Key: "Engine", Value: e})
	}
	items = append(items, report.Item{Key: "Status", Value: statusText(r)})
	if r.c.Started != "" {
		items = append(items, report.Item{Key: "Started", Value: r.c.Started})
	}
	items = append(items, report.Item{Key: "Monitoring", Value: r.monitoringText()})
	if r.c.Verdict != nil {
		items = append(items, report.Item{Key: "Verdict", Value: fmt.Sprintf("%s: %s", r.c.Verdict.Window, r.c.Verdict.Headline)})
	}
	sec.AddPlan(report.Plan{Items: items})
	if len(r.headline) > 0 {
		sec.AddTable(r.headlineTable())
	}
	if t := r.levelsTable(); t != nil {
		sec.AddTable(t)
	}
	if m := r.c.Monitoring; m != nil && m.Run != nil {
		var lines bytes.Buffer
		monitor.WriteLines(&lines, m, nil)
		verdict.WriteLines(&lines, r.c.Verdict)
		sec.AddPre(lines.String())
	}
}

// charts adds the sections of charts over time: throughput and latency from the
// intervals, the machine from the samples (or, without them, the energy section's
// watts).
func (r *run) charts(rep *Report, maxPoints int) {
	sections := map[string]*report.Section{}
	intro := "Time 0 is " + r.originText + "."
	if m := r.c.Monitoring; m != nil && len(m.Windows) > 0 {
		var ws []string
		for _, w := range m.Windows {
			ws = append(ws, fmt.Sprintf("%s from %s to %s s", w.Label, chart.FormatNumber(r.since(w.Start)), chart.FormatNumber(r.since(w.End))))
		}
		intro += " The measured windows (the bands behind each chart): " + strings.Join(ws, ", ") + "."
	}
	add := func(section string, c *chart.Chart, src Source) {
		if sections[section] == nil {
			sections[section] = rep.Doc.Section(section).AddText(intro)
		}
		sections[section].AddChart(r.windowed(c))
		rep.Sources[c.Name] = src
	}
	if pts, group := thin(r.intervalSamples(), maxPoints); len(pts) > 0 {
		for _, ic := range intervalCharts {
			if c, keys := ic.build(pts, group); c != nil {
				add("Throughput and latency", c, Source{File: r.c.IntervalsFile, Keys: keys, Group: group})
			}
		}
	}
	if pts, group := thin(r.machineSamples(), maxPoints); len(pts) > 0 {
		for _, tc := range machineCharts {
			if c, keys := tc.build(pts, group); c != nil {
				add(sectionOf(tc.name), c, Source{File: r.c.Monitoring.File, Keys: keys, Group: group})
			}
			if tc.name == "engine-sessions" {
				for _, ec := range r.engineOwnCharts() {
					if c, src := ec.build(pts, group); c != nil {
						src.File = r.c.Monitoring.File
						add(sectionOf(c.Name), c, src)
					}
				}
			}
		}
	}
	if _, ok := rep.Sources["energy-watts"]; !ok {
		// Without samples (--sample off) the energy recorder still charts its watts.
		if c, keys := r.energyChart(); c != nil {
			add(sectionOf(c.Name), c, Source{File: ResultFile, Keys: keys, Group: 1})
		}
	}
}

// windowed adds the run's measured windows to c, a chart over time: the bands behind
// its lines.
func (r *run) windowed(c *chart.Chart) *chart.Chart {
	if m := r.c.Monitoring; m != nil {
		for _, w := range m.Windows {
			c.AddWindow(w.Label, r.since(w.Start), r.since(w.End))
		}
	}
	return c
}

// Write builds the report of the run directory dir and writes it there:
// dir/report.html and its figures (report.Document.Write, atomically). It returns
// the page's path and the report's notes (Report.Notes), for the terminal.
func Write(dir string, opt Options) (string, []string, error) {
	rep, err := Build(dir, opt)
	if err != nil {
		return "", nil, err
	}
	if err := rep.Doc.Write(dir); err != nil {
		return "", nil, err
	}
	return filepath.Join(dir, rundir.ReportFile), rep.Notes, nil
}

func seriesKeys(ss []chart.SeriesOf) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Key)
	}
	return out
}

// sectionOf is the section a chart of the machine goes in.
func sectionOf(name string) string {
	switch {
	case name == "energy-watts":
		return "Energy over time"
	case strings.HasPrefix(name, "engine-"):
		return "Engine internals"
	case strings.HasPrefix(name, "device-"):
		return "Devices"
	case strings.HasPrefix(name, "process-"):
		return "Processes"
	}
	return "Host"
}

func statusText(r *run) string {
	if r.status == "" {
		return "unknown"
	}
	if r.why != "" {
		return string(r.status) + " (" + r.why + ")"
	}
	return string(r.status)
}
