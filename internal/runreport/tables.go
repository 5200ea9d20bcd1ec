package runreport

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"tierbench/internal/energy"
	"tierbench/internal/monitor"
	"tierbench/internal/report"
	"tierbench/internal/report/chart"
	"tierbench/internal/result"
	"tierbench/internal/verdict"
)

// headlineTable is the result's headline numbers (workload.Headliner), each with its
// title, its key in result.json and what it counts as the workload's registry entry
// describes it.
func (r *run) headlineTable() *report.Table {
	t := report.NewTable("headline", "Headline", report.Column{Label: "metric"}, report.Column{Label: "value"},
		report.Column{Label: "unit"}, report.Column{Label: "key"}, report.Column{Label: "better"}, report.Column{Label: "what it counts"})
	for _, m := range r.headline {
		mi := r.metricInfo(m)
		t.AddRow(report.Text(mi.Label()), report.Number(m.Value), report.Text(m.Unit), report.Text(m.Name), report.Text(string(m.Better)), report.Text(mi.What))
	}
	return t
}

// levelsTable is each level of users of a TPC-C run or a mix (nil for others).
func (r *run) levelsTable() *report.Table {
	if len(r.c.Levels) == 0 {
		return nil
	}
	t := report.NewTable("levels", "Levels of users",
		report.Column{Label: "users"}, report.Column{Label: "status"}, report.Column{Label: "measured", Unit: "s"},
		report.Column{Label: "TPS", Unit: "tx/s"}, report.Column{Label: "QPS", Unit: "statements/s"}, report.Column{Label: "errors"},
		report.Column{Label: "p50", Unit: "ms"}, report.Column{Label: "p95", Unit: "ms"}, report.Column{Label: "p99", Unit: "ms"},
		report.Column{Label: "max", Unit: "ms"})
	for _, l := range r.c.Levels {
		t.AddRow(report.Number(float64(l.Users)), report.Text(string(l.Status)), report.Number(l.Seconds),
			report.Number(l.TPS), report.Number(l.QPS), report.Number(float64(l.Errors)),
			report.Number(l.Latency.P50), report.Number(l.Latency.P95), report.Number(l.Latency.P99), report.Number(l.Latency.Max))
	}
	return t
}

// windowsTable summarises the run's window and each measured window from the
// monitoring section, as the summary's monitoring lines do: CPU shares and devices
// from the counters' rise over the window, memory and waits as means.
func (r *run) windowsTable() *report.Table {
	m := r.c.Monitoring
	if m == nil {
		return nil
	}
	var ws []*monitor.WindowSummary
	if m.Run != nil {
		ws = append(ws, m.Run)
	}
	for i := range m.Windows {
		ws = append(ws, &m.Windows[i])
	}
	if len(ws) == 0 {
		return nil
	}
	type col struct {
		report.Column
		get func(*monitor.WindowSummary) (float64, bool)
	}
	// rate is counter name's rate over the window, divided by div (1e6: bytes to MB).
	rate := func(name string, div float64) func(*monitor.WindowSummary) (float64, bool) {
		return func(w *monitor.WindowSummary) (float64, bool) {
			c, ok := w.Counters[name]
			return c.PerS / div, ok
		}
	}
	mean := func(name string) func(*monitor.WindowSummary) (float64, bool) {
		return func(w *monitor.WindowSummary) (float64, bool) { return w.Mean(name) }
	}
	share := func(mode string) func(*monitor.WindowSummary) (float64, bool) {
		return func(w *monitor.WindowSummary) (float64, bool) {
			return w.Share("host.cpu.all."+mode+"_s", "host.cpu.all.total_s")
		}
	}
	cols := []col{
		{report.Column{Label: "CPU busy", Unit: "%"}, share("busy")},
		{report.Column{Label: "user", Unit: "%"}, share("user")},
		{report.Column{Label: "system", Unit: "%"}, share("system")},
		{report.Column{Label: "iowait", Unit: "%"}, share("iowait")},
		{report.Column{Label: "steal", Unit: "%"}, share("steal")},
		{report.Column{Label: "CPU pressure", Unit: "%"}, mean("host.psi.cpu.some_pct")},
		{report.Column{Label: "I/O pressure", Unit: "%"}, mean("host.psi.io.some_pct")},
		{report.Column{Label: "page cache", Unit: "MiB"}, mean("host.mem.page_cache_mib")},
		{report.Column{Label: "server CPU", Unit: "cores"}, rate("proc.server.cpu_s", 1)},
		{report.Column{Label: "tierbench CPU", Unit: "cores"}, rate("proc.tierbench.cpu_s", 1)},
		{report.Column{Label: "buffer hits", Unit: "%"}, func(w *monitor.WindowSummary) (float64, bool) { return w.BufferHitPct() }},
		{report.Column{Label: "commits", Unit: "/s"}, rate("engine.commits", 1)},
		{report.Column{Label: "waiting for locks", Unit: "sessions"}, mean("engine.lock_waits")},
	}
	for _, dev := range devices(ws) {
		base := dev.prefix + "." + dev.name
		requests := []string{"reads", "writes", "flushes"} // an emulated device's await counts its flushes
		wait := "latency_s"
		if dev.prefix == "disk" {
			requests, wait = []string{"reads", "writes"}, "rw_wait_s"
		}
		cols = append(cols,
			col{report.Column{Label: dev.title + " util", Unit: "%"}, func(w *monitor.WindowSummary) (float64, bool) {
				c, ok := w.Counters[base+".busy_s"]
				return min(100, 100*c.PerS), ok
			}},
			col{report.Column{Label: dev.title + " read", Unit: "MB/s"}, rate(base+".read_bytes", 1e6)},
			col{report.Column{Label: dev.title + " written", Unit: "MB/s"}, rate(base+".write_bytes", 1e6)},
			col{report.Column{Label: dev.title + " await", Unit: "ms"}, func(w *monitor.WindowSummary) (float64, bool) {
				secs, ok := w.Counters[base+"."+wait]
				n := 0.0
				for _, c := range requests {
					n += w.Counters[base+"."+c].Delta
				}
				if !ok || n <= 0 {
					return 0, false
				}
				return 1000 * secs.Delta / n, true
			}})
	}
	// A row per figure and a column per window: the figures grow with the devices,
	// and a table as wide as all of them would not fit a page.
	users := func(w *monitor.WindowSummary) (float64, bool) { return float64(w.Users), w.Users > 0 }
	at := func(f func(*monitor.WindowSummary) float64) func(*monitor.WindowSummary) (float64, bool) {
		return func(w *monitor.WindowSummary) (float64, bool) { return f(w), true }
	}
	cols = append([]col{
		{report.Column{Label: "users"}, users},
		{report.Column{Label: "start", Unit: "s"}, at(func(w *monitor.WindowSummary) float64 { return r.since(w.Start) })},
		{report.Column{Label: "end", Unit: "s"}, at(func(w *monitor.WindowSummary) float64 { return r.since(w.End) })},
		{report.Column{Label: "covered", Unit: "s"}, at(func(w *monitor.WindowSummary) float64 { return w.CoveredS })},
		{report.Column{Label: "samples"}, at(func(w *monitor.WindowSummary) float64 { return float64(w.Samples) })},
	}, cols...)
	columns := []report.Column{{Label: "figure"}}
	for _, w := range ws {
		columns = append(columns, report.Column{Label: w.Label})
	}
	t := report.NewTable("windows", "Per-window summaries", columns...)
	t.Note = "A column per window: the run's, and each measured one. Start and end in seconds since the monitor's first sample. CPU shares, CPU cores, commits and device figures are the counters' rise over the window (as iostat and the summary compute them); pressure, page cache and lock waits are means of the samples. A disk's figures include other processes' I/O. A dash: not measured."
	for _, c := range cols {
		row := []report.Entry{report.Text(c.Heading())}
		for _, w := range ws {
			row = append(row, number(c.get(w)))
		}
		t.AddRow(row...)
	}
	return t
}

// number is an entry for v, or a dash when there is none.
func number(v float64, ok bool) report.Entry {
	if !ok {
		return report.Text(report.Missing)
	}
	return report.Number(v)
}

type deviceOf struct{ prefix, name, title string }

// devices are the disks and emulated tiers any window counted, disks first.
func devices(ws []*monitor.WindowSummary) []deviceOf {
	seen := map[deviceOf]bool{}
	var out []deviceOf
	for _, w := range ws {
		for name := range w.Counters {
			for _, kind := range []struct{ prefix, title string }{{"disk", "disk "}, {"emu", "tier "}} {
				rest, ok := strings.CutPrefix(name, kind.prefix+".")
				if dev, ok2 := strings.CutSuffix(rest, ".busy_s"); ok && ok2 && dev != "" {
					d := deviceOf{kind.prefix, dev, kind.title + dev}
					if !seen[d] {
						seen[d] = true
						out = append(out, d)
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].prefix != out[j].prefix {
			return out[i].prefix == "disk"
		}
		return out[i].name < out[j].name
	})
	return out
}

// verdictSection adds the verdict of each window with its findings, their checks
// against their thresholds, and the thresholds.
func verdictSection(sec *report.Section, v *verdict.Section) {
	sec.AddText(fmt.Sprintf("Headline (%s): %s", v.Window, v.Headline))
	cols := []report.Column{{Label: "window"}, {Label: "users"}, {Label: "verdict"}, {Label: "explains", Unit: "% of the users' time"},
		{Label: "lock", Unit: "%"}, {Label: "io", Unit: "%"}, {Label: "cpu.server", Unit: "%"}, {Label: "cpu.tierbench", Unit: "%"}}
	app := false // the application's gates, for workloads that have them
	for _, l := range v.Levels {
		_, ok := l.TimePct["app"]
		app = app || ok
	}
	if app {
		cols = append(cols, report.Column{Label: "app", Unit: "%"})
	}
	cols = append(cols, report.Column{Label: "socket", Unit: "%"}, report.Column{Label: "other", Unit: "%"}, report.Column{Label: "pause", Unit: "%"},
		report.Column{Label: "headline"})
	t := report.NewTable("verdicts", "Verdict of each window", cols...)
	t.Note = "The users' time by what it went to (verdict.Verdict's time_pct): app is their wait for the application's gates, socket (other with an engine inside tierbench) the rest of their time in transactions, pause their time outside them; the shares add up to 100 unless the measures overlap."
	for _, l := range v.Levels {
		explains := report.Text(report.Missing)
		if f := l.Fired(); len(f) > 0 {
			explains = report.Number(f[0].ExplainsPct)
		}
		pct := func(k string) report.Entry { p, ok := l.TimePct[k]; return number(p, ok) }
		row := []report.Entry{report.Text(l.Window), number(float64(l.Users), l.Users > 0), report.Text(l.Primary.Title()), explains,
			pct("lock"), pct("io"), pct("cpu.server"), pct("cpu.tierbench")}
		if app {
			row = append(row, pct("app"))
		}
		t.AddRow(append(row, pct("socket"), pct("other"), pct("pause"), report.Text(l.Headline))...)
	}
	sec.AddTable(t)
	for i, l := range v.Levels {
		sub := sec.Section("Window " + l.Window + ": " + l.Primary.Title())
		name := fmt.Sprintf("verdict-%d-%s", i+1, chart.Slug(l.Window))
		findings := report.NewTable(name+"-findings", "Findings, those that fired first",
			report.Column{Label: "rule"}, report.Column{Label: "fired"}, report.Column{Label: "explains", Unit: "%"},
			report.Column{Label: "resource"}, report.Column{Label: "fires when"}, report.Column{Label: "what was measured"})
		checks := report.NewTable(name+"-checks", "Checks against their thresholds",
			report.Column{Label: "rule"}, report.Column{Label: "resource"}, report.Column{Label: "check"},
			report.Column{Label: "measured"}, report.Column{Label: "op"}, report.Column{Label: "threshold"},
			report.Column{Label: "unit"}, report.Column{Label: "met"}, report.Column{Label: "from"})
		for _, f := range l.Findings {
			findings.AddRow(report.Text(string(f.Rule)), report.Text(yes(f.Fired)), report.Number(f.ExplainsPct),
				report.Text(f.Resource), report.Text(f.Fires), report.Text(f.Text))
			for _, c := range f.Checks {
				checks.AddRow(report.Text(string(f.Rule)), report.Text(f.Resource), report.Text(c.Name), report.Number(c.Measured),
					report.Text(c.Op), report.Number(c.Threshold), report.Text(c.Unit), report.Text(yes(c.Met)), report.Text(c.From))
			}
			if f.CPU != nil {
				u := f.CPU
				used := fmt.Sprintf("tierbench %s cores, others %s", chart.FormatNumber(u.Tierbench), chart.FormatNumber(u.Others))
				wait := "tierbench " + chart.FormatNumber(u.TierbenchWait)
				if u.Server != 0 || u.ServerWait != 0 { // none for an engine inside tierbench
					used = fmt.Sprintf("server %s cores, %s", chart.FormatNumber(u.Server), used)
					wait = fmt.Sprintf("server %s, %s", chart.FormatNumber(u.ServerWait), wait)
				}
				sub.AddText(fmt.Sprintf("Who used the CPU (%s finding): %s of %s CPUs busy; %s; waiting for a CPU: %s cores.",
					f.Rule, pctText(u.BusyPct), chart.FormatNumber(u.CPUs), used, wait))
			}
			if len(f.Waits) > 0 {
				var parts []string
				for _, w := range f.Waits {
					parts = append(parts, fmt.Sprintf("%s %s", w.Name, pctText(w.Pct)))
				}
				sub.AddText(fmt.Sprintf("Waits (%s finding), share of the users' time: %s.", f.Rule, strings.Join(parts, ", ")))
			}
		}
		sub.AddText(l.Headline)
		if len(l.NotJudged) > 0 {
			sub.AddText("Not judged: " + strings.Join(l.NotJudged, "; ") + ".")
		}
		if len(findings.Rows) > 0 {
			sub.AddTable(findings)
		}
		if len(checks.Rows) > 0 {
			sub.AddTable(checks)
		}
	}
	th := report.NewTable("thresholds", "Thresholds the verdicts were judged by",
		report.Column{Label: "threshold"}, report.Column{Label: "value"})
	tv := reflect.ValueOf(v.Thresholds)
	for i := range tv.NumField() {
		name, _, _ := strings.Cut(tv.Type().Field(i).Tag.Get("json"), ",")
		th.AddRow(report.Text(name), report.Number(tv.Field(i).Float()))
	}
	th.Note = "Percentages are 0 to 100; device_queue is in requests. The package documentation of internal/verdict says why each."
	sec.AddTable(th)
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func pctText(v float64) string { return chart.FormatNumber(v) + "%" }

// energySection adds each energy window's figures per component and in total.
func energySection(sec *report.Section, e *energy.Section) {
	sec.AddText(fmt.Sprintf("Grid intensity %s g CO2/kWh (%s). %s.", chart.FormatNumber(e.GridIntensity), e.GridIntensitySource, e.Model))
	for _, u := range e.Unavailable {
		sec.AddText(fmt.Sprintf("Not available on this host: %s: %s.", u.What, u.Why))
	}
	for _, u := range e.NotCounted {
		sec.AddText(fmt.Sprintf("Not counted: %s: %s.", u.What, u.Why))
	}
	for _, c := range e.Components {
		text := fmt.Sprintf("%s: %s (%s), %s.", c.Name, c.Method, measuredText(c.Measured), c.Source)
		if len(c.Notes) > 0 {
			text += " " + strings.Join(c.Notes, "; ") + "."
		}
		sec.AddText(text)
	}
	for i, w := range e.Windows {
		if text := energy.MissingText(e, &e.Windows[i], "see above"); text != "" {
			sec.AddText(fmt.Sprintf("Energy, %s: the total is not the whole system's: it leaves out %s.", w.Label, text))
		}
		t := report.NewTable(fmt.Sprintf("energy-%d-%s", i+1, chart.Slug(w.Label)),
			fmt.Sprintf("Energy, %s (%s s)", w.Label, chart.FormatNumber(w.Seconds)),
			report.Column{Label: "component"}, report.Column{Label: "method"}, report.Column{Label: "measured or modelled"},
			report.Column{Label: "energy", Unit: "J"}, report.Column{Label: "low", Unit: "J"}, report.Column{Label: "high", Unit: "J"},
			report.Column{Label: "energy", Unit: "Wh"}, report.Column{Label: "average", Unit: "W"}, report.Column{Label: "peak", Unit: "W"},
			report.Column{Label: "CO2", Unit: "g"}, report.Column{Label: "per transaction", Unit: "J"}, report.Column{Label: "per query", Unit: "J"},
			report.Column{Label: "covered", Unit: "s"}, report.Column{Label: "in total"}, report.Column{Label: "source"})
		t.Note = "Peak W is the highest average over one sampling interval. Low and high bound a modelled figure from its inputs' bands. A dash: no transactions or queries counted in the window."
		for _, f := range append(append([]energy.Figures(nil), w.Components...), w.Total) {
			inTotal := yes(f.InTotal)
			if f.Name == "total" {
				inTotal = ""
			}
			if f.Note != "" {
				inTotal = strings.TrimSpace(inTotal + " (" + f.Note + ")")
			}
			t.AddRow(report.Text(f.Name), report.Text(string(f.Method)), report.Text(measuredText(f.Measured)),
				report.Number(f.Joules), report.Number(f.JoulesLow), report.Number(f.JoulesHigh), report.Number(f.Wh),
				report.Number(f.AvgW), report.Number(f.PeakW), report.Number(f.CO2g),
				number(f.JPerTransaction, f.JPerTransaction != 0), number(f.JPerQuery, f.JPerQuery != 0),
				report.Number(f.CoveredS), report.Text(inTotal), report.Text(f.Source))
		}
		sec.AddTable(t)
	}
	sciTable(sec, e.SCI)
}

// sciTable adds the SCI (docs/energy.md, "SCI"): its operational and embodied grams
// and each embodied item, a default figure said to be one.
func sciTable(sec *report.Section, sci *energy.SCI) {
	if sci == nil {
		return
	}
	text := fmt.Sprintf("SCI, %s: %s g operational + %s g embodied", sci.Window, chart.FormatNumber(sci.OperationalG), chart.FormatNumber(sci.EmbodiedG))
	if sci.GPerTransaction > 0 {
		text += fmt.Sprintf(" = %s g CO2e per transaction", chart.FormatNumber(sci.GPerTransaction))
	}
	if len(sci.NotCounted) > 0 {
		text += "; embodied not counted: " + strings.Join(sci.NotCounted, "; ")
	}
	sec.AddText(text + ".")
	if len(sci.Embodied) == 0 {
		return
	}
	t := report.NewTable("sci-embodied", fmt.Sprintf("Embodied carbon, %s (%s s)", sci.Window, chart.FormatNumber(sci.Seconds)),
		report.Column{Label: "item"}, report.Column{Label: "embodied", Unit: "kg CO2e"}, report.Column{Label: "life", Unit: "years"},
		report.Column{Label: "time share"}, report.Column{Label: "share", Unit: "g"}, report.Column{Label: "figure"}, report.Column{Label: "source"})
	t.Note = "Each item's embodied carbon times the window's share of its life. A default figure stands for a class of hardware, not this one's: give the host's with --host-embodied-kg."
	for _, it := range sci.Embodied {
		figure := "profile or flag"
		if it.Default {
			figure = "default"
		}
		t.AddRow(report.Text(it.Name), report.Number(it.Kg), report.Number(it.LifeYears), report.Number(it.TimeShare),
			report.Number(it.G), report.Text(figure), report.Text(it.Source))
	}
	sec.AddTable(t)
}

func measuredText(m bool) string {
	if m {
		return "measured"
	}
	return "modelled"
}

// engineText names the engine: "postgres 15.18 (managed)".
func (r *run) engineText() string {
	e := r.c.Engine
	if e == nil || e.Name == "" {
		return ""
	}
	s := e.Name
	if e.Version != "" {
		s += " " + e.Version
	}
	if e.Mode != "" {
		s += " (" + string(e.Mode) + ")"
	}
	return s
}

// monitoringText says what was sampled and how often.
func (r *run) monitoringText() string {
	m := r.c.Monitoring
	if m == nil {
		return "not monitored"
	}
	s := fmt.Sprintf("%d samples every %s s", m.Samples, strconv.FormatFloat(m.IntervalS, 'f', -1, 64))
	if m.File != "" {
		s += " in " + m.File
	}
	return s
}

// storageTable is each tier of the storage section: where it was and what its
// emulated device did over the whole mount.
func storageTable(s *result.Storage) *report.Table {
	t := report.NewTable("storage", "Tiers and their devices",
		report.Column{Label: "tier"}, report.Column{Label: "holds"}, report.Column{Label: "device or directory"},
		report.Column{Label: "reads"}, report.Column{Label: "writes"}, report.Column{Label: "flushes"},
		report.Column{Label: "IOPS"}, report.Column{Label: "media IOPS"}, report.Column{Label: "utilisation", Unit: "%"},
		report.Column{Label: "p50", Unit: "ms"}, report.Column{Label: "p99", Unit: "ms"},
		report.Column{Label: "energy", Unit: "J"}, report.Column{Label: "CO2", Unit: "g"})
	t.Note = "From mount to unmount, as the emulator counted (the storage section of result.json): reads, writes and IOPS are what the engine asked of the mount, media IOPS what reached the device under a page cache. A directory tier has no counters here; the disk under it is in the charts and the per-window summaries."
	for _, tier := range s.Tiers {
		holds := strings.Join(tier.Classes, ", ")
		d := tier.Device
		if d == nil {
			row := []report.Entry{report.Text(tier.Name), report.Text(holds), report.Text(tier.Dir)}
			for range len(t.Columns) - len(row) {
				row = append(row, report.Text(report.Missing))
			}
			t.AddRow(row...)
			continue
		}
		t.AddRow(report.Text(tier.Name), report.Text(holds), report.Text(tier.Spec),
			report.Number(float64(d.Reads)), report.Number(float64(d.Writes)), report.Number(float64(d.Flushes)),
			report.Number(d.IOPS), report.Number(d.MediaIOPS), report.Number(100*d.Utilisation),
			report.Number(d.Latency.P50/1e3), report.Number(d.Latency.P99/1e3), report.Number(d.EnergyJ), report.Number(d.CO2g))
	}
	return t
}
