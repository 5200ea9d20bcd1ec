package runreport

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"tierbench/internal/monitor"
	"tierbench/internal/report/chart"
	"tierbench/internal/report/quantity"
)

// MaxPoints bounds the points of a series over time: a longer run's samples are
// averaged in groups of consecutive samples, so that an hour sampled every second
// keeps the page light.
const MaxPoints = 1000

// timeChart is a chart over time of the series a pick chooses among the names the
// samples hold.
type timeChart struct {
	name, title string
	y           chart.Axis
	// pick says whether name belongs on the chart, as which series, and where the
	// series goes among the others (by key).
	pick func(name string) (label, key string, ok bool)
	note string
}

// among picks prefix+part+suffix for each part, labelled by the part (underscores as
// spaces), in the order given.
func among(prefix, suffix string, parts ...string) func(string) (string, string, bool) {
	return func(name string) (string, string, bool) {
		for i, p := range parts {
			if name == prefix+p+suffix {
				return strings.ReplaceAll(p, "_", " "), fmt.Sprintf("%03d", i), true
			}
		}
		return "", "", false
	}
}

// middle picks prefix+<label>+suffix for any label, ordered by the suffixes' order
// and then the label.
func middle(prefix string, suffixes map[string]string, order ...string) func(string) (string, string, bool) {
	return func(name string) (string, string, bool) {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			return "", "", false
		}
		for i, suf := range order {
			if mid, ok := strings.CutSuffix(rest, suf); ok && mid != "" {
				return strings.TrimSpace(mid + " " + suffixes[suf]), fmt.Sprintf("%s/%03d", mid, i), true
			}
		}
		return "", "", false
	}
}

// device picks the series of each disk (disk.<disk>.X) and emulated tier
// (emu.<tier>.X) whose X is one of suffixes (labelled by its value).
func device(suffixes map[string]string, order ...string) func(string) (string, string, bool) {
	return func(name string) (string, string, bool) {
		for k, kind := range []struct{ prefix, title string }{{"disk.", "disk "}, {"emu.", "tier "}} {
			rest, ok := strings.CutPrefix(name, kind.prefix)
			if !ok {
				continue
			}
			for i, suf := range order {
				if dev, ok := strings.CutSuffix(rest, "."+suf); ok && dev != "" {
					return strings.TrimSpace(kind.title + dev + " " + suffixes[suf]), fmt.Sprintf("%d/%s/%03d", k, dev, i), true
				}
			}
		}
		return "", "", false
	}
}

// eachCPU picks host.cpu.<n>.busy_pct, labelled "cpu <n>", in the CPUs' order.
func eachCPU(name string) (label, key string, ok bool) {
	rest, ok1 := strings.CutPrefix(name, "host.cpu.")
	n, ok2 := strings.CutSuffix(rest, ".busy_pct")
	if !ok1 || !ok2 || n == "" {
		return "", "", false
	}
	cpu, err := strconv.Atoi(n)
	if err != nil || cpu < 0 {
		return "", "", false // "all", and anything not a CPU's number
	}
	return "cpu " + n, fmt.Sprintf("%09d", cpu), true
}

// countAxis is the axis of a count of what label names (requests, sessions): no unit
// shown, the range of the count's (package quantity).
func countAxis(label string) chart.Axis {
	r := quantity.Of(label)
	return chart.Axis{Label: label, Range: &r}
}

// machineCharts are the charts of metrics.jsonl, in the order the report shows them.
var machineCharts = []timeChart{
	{name: "host-cpu", title: "Host CPU", y: chart.Axis{Label: "share of all CPUs", Unit: "%"},
		pick: among("host.cpu.all.", "_pct", "busy", "user", "system", "irq", "iowait", "steal"),
		note: "host.cpu.all.<mode>_pct: each mode's share of every CPU's time since the sample before; busy is 100 - idle - iowait."},
	{name: "host-cpu-each", title: "Host CPU, each CPU", y: chart.Axis{Label: "share of the CPU", Unit: "%"},
		pick: eachCPU,
		note: "host.cpu.<n>.busy_pct: each CPU's busy share (100 - idle - iowait) since the sample before. One CPU near 100% while the others have room is one thread's limit (a single writer, a lock holder), which the share of all CPUs hides."},
	{name: "host-memory", title: "Host memory and page cache", y: chart.Axis{Label: "memory", Unit: "MiB"},
		pick: among("host.mem.", "_mib", "available", "used", "page_cache", "dirty", "writeback", "swap_used"),
		note: "host.mem.<kind>_mib from /proc/meminfo: available is MemAvailable, used MemTotal - MemAvailable (the two add up to the host's memory), page cache Cached + Buffers."},
	{name: "host-pressure", title: "Pressure stall information", y: chart.Axis{Label: "share of the time stalled", Unit: "%"},
		pick: middle("host.psi.", map[string]string{".some_pct": "some", ".full_pct": "full"}, ".some_pct", ".full_pct"),
		note: "host.psi.<resource>.some_pct and full_pct: the share of the time some (or every non-idle) task stalled on the resource."},
	{name: "device-iops", title: "Devices: I/O operations", y: chart.Axis{Label: "operations", Unit: "/s"},
		pick: device(map[string]string{"read_iops": "reads", "write_iops": "writes", "flush_per_s": "flushes"}, "read_iops", "write_iops", "flush_per_s"),
		note: "disk.<disk>.* are the whole disks under the run's directories (all their users' I/O); emu.<tier>.* each emulated device."},
	{name: "device-mb-s", title: "Devices: data rates", y: chart.Axis{Label: "data rate", Unit: "MB/s"},
		pick: device(map[string]string{"read_mb_s": "read", "write_mb_s": "written"}, "read_mb_s", "write_mb_s"),
		note: "10^6 bytes a second."},
	{name: "device-util", title: "Devices: utilisation", y: chart.Axis{Label: "busy", Unit: "%"},
		pick: device(map[string]string{"util_pct": ""}, "util_pct"),
		note: "The share of the time the device had I/O in flight (iostat's %util); for an emulated device, its model's busy time."},
	{name: "device-await", title: "Devices: await", y: chart.Axis{Label: "mean time a request took", Unit: "ms"},
		pick: device(map[string]string{"await_ms": ""}, "await_ms"),
		note: "Queueing included (iostat's await); an emulated device's counts its flushes."},
	{name: "device-queue", title: "Devices: queue depth", y: countAxis("requests"),
		pick: device(map[string]string{"queue_depth": ""}, "queue_depth"),
		note: "A disk's mean requests in flight since the sample before (iostat's aqu-sz); an emulated device's requests at the sample."},
	{name: "engine-hit-ratio", title: "Engine: buffer hit ratio", y: chart.Axis{Label: "page reads served by the buffer", Unit: "%"},
		pick: among("engine.", "_pct", "buffer_hit"),
		note: "engine.buffer_hit_pct: buffer hits over hits and misses since the sample before (no point where there were none)."},
	{name: "engine-commits", title: "Engine: commits, rollbacks, deadlocks", y: chart.Axis{Label: "rate", Unit: "/s"},
		pick: among("engine.", "_per_s", "commits", "rollbacks", "deadlocks"),
		note: "As the engine counts them (engine.<counter>_per_s)."},
	{name: "engine-sessions", title: "Engine: sessions and what they wait on", y: countAxis("sessions"),
		pick: func(name string) (string, string, bool) {
			if l, k, ok := among("engine.", "", "sessions_active", "lock_waits", "io_waits", "lock_wait_s_per_s")(name); ok {
				return map[string]string{"sessions active": "active", "lock waits": "waiting for a lock", "io waits": "waiting for I/O",
					"lock wait s per s": "lock wait time (s a second)"}[l], "0/" + k, true
			}
			if ev, ok := strings.CutPrefix(name, "engine.wait."); ok && ev != "" {
				return "wait " + ev, "1/" + ev, true
			}
			return "", "", false
		},
		note: "Sessions at each sample (engine.sessions_active, engine.lock_waits, engine.io_waits, engine.wait.<event>); engine.lock_wait_s_per_s is the time sessions waited for locks a second, the mean sessions waiting."},
	{name: "process-cpu", title: "Processes: CPU", y: chart.Axis{Label: "CPU", Unit: "cores"},
		pick: middle("proc.", map[string]string{".cpu_cores": "", ".cpu_wait_cores": "waiting for a CPU"}, ".cpu_cores", ".cpu_wait_cores"),
		note: "proc.<who>.cpu_cores: CPU seconds a second of tierbench and of the server's process tree; cpu_wait_cores: the time their threads were runnable but waited for a CPU."},
	{name: "process-rss", title: "Processes: resident memory", y: chart.Axis{Label: "resident memory", Unit: "MiB"},
		pick: middle("proc.", map[string]string{".rss_mib": ""}, ".rss_mib"),
		note: "proc.<who>.rss_mib: private pages summed over the process tree, shared pages counted once."},
	{name: "energy-watts", title: "Energy: watts per component", y: chart.Axis{Label: "power", Unit: "W"},
		pick: middle("energy.", map[string]string{".watts": ""}, ".watts"),
		note: "energy.<component>.watts at each sample, measured or modelled as the energy table says."},
}

// intervalChart is a chart over time of intervals.jsonl: the keys are those
// intervalSamples gives an interval record.
type intervalChart struct {
	name, title string
	y           chart.Axis
	series      []chart.SeriesOf
	note        string
}

// build makes the chart of samples; nil when no series has a point.
func (ic intervalChart) build(samples []chart.Sample, group int) (*chart.Chart, []string) {
	return finish(chart.FromSamples(chart.TimeSeries, ic.name, ic.title, ic.y, samples, ic.series...), seriesKeys(ic.series), ic.note, group)
}

// intervalCharts are the charts of intervals.jsonl.
var intervalCharts = []intervalChart{
	{"throughput", "Throughput", chart.Axis{Label: "rate", Unit: "/s"},
		[]chart.SeriesOf{{Key: "tps", Name: "transactions"}, {Key: "qps", Name: "statements"}, {Key: "errors_per_s", Name: "errors"}},
		"Each report interval of intervals.jsonl at its end (ramp-up included): tps, qps and errors_per_s."},
	{"latency", "Latency", chart.Axis{Label: "transaction latency", Unit: "ms"},
		[]chart.SeriesOf{{Key: "p50_ms", Name: "p50"}, {Key: "p95_ms", Name: "p95"}, {Key: "p99_ms", Name: "p99"}, {Key: "max_ms", Name: "max"}},
		"Each report interval's latency over every transaction type (intervals.jsonl's latency)."},
}

// machineSamples are the monitor's samples as chart samples at their elapsed_s,
// leaving out a sample taken in the same millisecond as the one before it (a
// window's mark right after a tick): a line's x must increase.
func (r *run) machineSamples() []chart.Sample {
	var out []chart.Sample
	for _, s := range r.samples {
		t := s.ElapsedS
		if len(out) > 0 && t <= out[len(out)-1].T {
			continue
		}
		out = append(out, chart.Sample{T: t, Values: s.Values})
	}
	return out
}

// intervalSamples are the report intervals as chart samples at their end's time
// since the origin, with the keys intervalCharts draw.
func (r *run) intervalSamples() []chart.Sample {
	var out []chart.Sample
	for _, rec := range r.intervals {
		t := r.since(rec.Time)
		if len(out) > 0 && t <= out[len(out)-1].T {
			continue
		}
		l := rec.Latency
		out = append(out, chart.Sample{T: t, Values: map[string]float64{
			"tps": rec.TPS, "qps": rec.QPS, "errors_per_s": rec.ErrorsPS,
			"p50_ms": l.P50, "p95_ms": l.P95, "p99_ms": l.P99, "max_ms": l.Max,
		}})
	}
	return out
}

// thin averages samples in groups of consecutive ones when there are more than max,
// each group at its last sample's time; it returns the group size (1: none).
func thin(samples []chart.Sample, max int) ([]chart.Sample, int) {
	if max <= 0 || len(samples) <= max {
		return samples, 1
	}
	k := (len(samples) + max - 1) / max
	var out []chart.Sample
	for i := 0; i < len(samples); i += k {
		group := samples[i:min(i+k, len(samples))]
		sum, n := map[string]float64{}, map[string]int{}
		for _, s := range group {
			for key, v := range s.Values {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					continue // no number (null in the file): the group's others make the point
				}
				sum[key] += v
				n[key]++
			}
		}
		mean := make(map[string]float64, len(sum))
		for key, v := range sum {
			mean[key] = v / float64(n[key])
		}
		out = append(out, chart.Sample{T: group[len(group)-1].T, Values: mean})
	}
	return out, k
}

// build makes the chart of samples; nil when no series has a point. keys are the
// series' sample keys, in the chart's order.
func (tc timeChart) build(samples []chart.Sample, group int) (*chart.Chart, []string) {
	type found struct{ name, label, key string }
	seen := map[string]bool{}
	var picked []found
	for _, s := range samples {
		for name := range s.Values {
			if seen[name] {
				continue
			}
			seen[name] = true
			if label, key, ok := tc.pick(name); ok {
				picked = append(picked, found{name, label, key})
			}
		}
	}
	sort.Slice(picked, func(i, j int) bool { return picked[i].key < picked[j].key })
	var series []chart.SeriesOf
	var keys []string
	for _, p := range picked {
		series = append(series, chart.SeriesOf{Key: p.name, Name: p.label})
		keys = append(keys, p.name)
	}
	return finish(chart.FromSamples(chart.TimeSeries, tc.name, tc.title, tc.y, samples, series...), keys, tc.note, group)
}

// finish drops the chart when it has nothing to draw and says how its points were
// made.
func finish(c *chart.Chart, keys []string, note string, group int) (*chart.Chart, []string) {
	if len(c.Series) == 0 {
		return nil, nil
	}
	points := 0
	for _, s := range c.Series {
		points += len(s.Points)
	}
	if points == 0 {
		return nil, nil
	}
	if group > 1 {
		note += fmt.Sprintf(" Each point is the mean of %d consecutive samples, at the last one's time.", group)
	}
	c.Note = note
	return c, keys
}

// energyChart is the energy section's chart of watts per component (the total
// left out: the energy table has it), for a run without samples; nil without one.
func (r *run) energyChart() (*chart.Chart, []string) {
	if r.c.Energy == nil || r.c.Energy.Chart == nil {
		return nil, nil
	}
	ec := r.c.Energy.Chart
	c := chart.New(chart.TimeSeries, "energy-watts", "Energy: watts per component", chart.Axis{Label: "time since start", Unit: "s"}, chart.Axis{Label: "power", Unit: "W"})
	var keys []string
	for _, s := range ec.Series {
		if s.Name == "total" {
			continue
		}
		var pts []chart.Point
		for i, w := range s.Watts {
			if i < len(ec.EndS) && !math.IsNaN(w) {
				x := r.since(ec.Start.Add(time.Duration(ec.EndS[i] * float64(time.Second))))
				if len(pts) == 0 || x > pts[len(pts)-1].X {
					pts = append(pts, chart.XY(x, w))
				}
			}
		}
		if len(pts) > 0 {
			c.Add(s.Name, pts...)
			keys = append(keys, s.Name)
		}
	}
	return finish(c, keys, "The energy section's watts of each component, each the average over an interval that ends at its time (result.json's energy chart; the run was not sampled).", 1)
}

// engineOwnChart is a chart of the engine's own series of one unit: its counters'
// rates, or its gauges.
type engineOwnChart struct {
	name, title string
	y           chart.Axis
	series      []chart.SeriesOf
	note        string
}

// engineOwnCharts are the engine's own statistics (engine.<engine>.<stat> in the
// monitor's catalogue: pg, mariadb, sqlite), one chart per unit: counters as rates
// per second, gauges as sampled. Bytes are shown as MB/s, or MiB.
func (r *run) engineOwnCharts() []engineOwnChart {
	m := r.c.Monitoring
	if m == nil {
		return nil
	}
	type group struct {
		unit, engine string
		rate         bool
		keys         []string
	}
	groups := map[string]*group{}
	var order []string
	for _, s := range m.Series {
		rest, ok := strings.CutPrefix(s.Name, "engine.")
		eng, stat, ok2 := strings.Cut(rest, ".")
		if !ok || !ok2 || eng == "wait" || stat == "" {
			continue
		}
		key, rate := s.Name, false
		switch s.Kind {
		case monitor.Counter:
			key, rate = s.Name+"_per_s", true
		case monitor.Value:
			if strings.HasSuffix(s.Name, "_per_s") {
				continue // a counter's rate: taken with its counter's unit
			}
		default:
			continue
		}
		g := fmt.Sprintf("%s %s %v", eng, s.Unit, rate)
		if groups[g] == nil {
			groups[g] = &group{unit: s.Unit, engine: eng, rate: rate}
			order = append(order, g)
		}
		groups[g].keys = append(groups[g].keys, key)
	}
	sort.Strings(order)
	var out []engineOwnChart
	for _, k := range order {
		g := groups[k]
		sort.Strings(g.keys)
		unit, scale := g.unit, 1.0
		switch {
		case unit == "bytes" && g.rate:
			unit, scale = "MB", 1e-6
		case unit == "bytes":
			unit, scale = "MiB", 1.0/(1<<20)
		}
		ec := engineOwnChart{y: countAxis(g.unit)}
		if scale != 1 {
			ec.y = chart.Axis{Label: "size", Unit: unit}
		}
		prefix := "engine." + g.engine + "."
		if g.rate {
			ec.name = chart.Slug("engine-own-" + g.engine + "-" + g.unit + "-per-s")
			ec.title = fmt.Sprintf("Engine (%s): %s a second", g.engine, g.unit)
			ec.y = chart.Axis{Label: "rate", Unit: unit + "/s"}
			ec.note = fmt.Sprintf("The engine's own counters counted in %s (%s<stat> in metrics.jsonl), as rates since the sample before.", g.unit, prefix)
		} else {
			ec.name = chart.Slug("engine-own-" + g.engine + "-" + g.unit)
			ec.title = fmt.Sprintf("Engine (%s): %s", g.engine, g.unit)
			ec.note = fmt.Sprintf("The engine's own gauges in %s (%s<stat> in metrics.jsonl), as sampled.", g.unit, prefix)
		}
		if scale != 1 {
			ec.note += fmt.Sprintf(" Shown in %s: the samples' bytes times %g.", unit, scale)
		}
		for _, key := range g.keys {
			label := strings.TrimSuffix(strings.TrimPrefix(key, prefix), "_per_s")
			ec.series = append(ec.series, chart.SeriesOf{Key: key, Name: strings.ReplaceAll(label, "_", " "), Scale: scale})
		}
		out = append(out, ec)
	}
	return out
}

// build makes the chart of samples and its source; nil when nothing has a point.
func (ec engineOwnChart) build(samples []chart.Sample, group int) (*chart.Chart, Source) {
	c, keys := finish(chart.FromSamples(chart.TimeSeries, ec.name, ec.title, ec.y, samples, ec.series...), seriesKeys(ec.series), ec.note, group)
	if c == nil {
		return nil, Source{}
	}
	// An engine counts many things a run never does (temp files, conflicts): a series
	// that is zero throughout is named in the note, not drawn, and a chart of nothing
	// else is left out.
	var kept []chart.Series
	var zero []string
	src := Source{Group: group}
	for i, s := range c.Series {
		if !slices.ContainsFunc(s.Points, func(p chart.Point) bool { return p.Y != 0 }) {
			if len(s.Points) > 0 {
				zero = append(zero, s.Name)
			}
			continue
		}
		kept = append(kept, s)
		src.Keys = append(src.Keys, keys[i])
		src.Scales = append(src.Scales, ec.series[i].Scale)
	}
	if len(kept) == 0 {
		return nil, Source{}
	}
	c.Series = kept
	if len(zero) > 0 {
		c.Note += " Zero throughout, not drawn: " + strings.Join(zero, ", ") + "."
	}
	return c, src
}
