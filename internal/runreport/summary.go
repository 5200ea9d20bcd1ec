package runreport

import (
	"fmt"
	"strings"

	"tierbench/internal/report"
	"tierbench/internal/report/chart"
	"tierbench/internal/result"
	"tierbench/internal/workload"
)

// summaryTimeCharts are the small multiples of metrics.jsonl: the host's CPU and each
// device's busy share; the throughput and latency come from intervals.jsonl
// (summaryIntervalCharts).
var summaryTimeCharts = []timeChart{
	{name: "summary-cpu", title: "Host CPU busy", y: chart.Axis{Label: "share of all CPUs", Unit: "%"},
		pick: among("host.cpu.all.", "_pct", "busy", "iowait"),
		note: "host.cpu.all.busy_pct and iowait_pct, as in the chart Host CPU."},
	{name: "summary-devices", title: "Devices busy", y: chart.Axis{Label: "busy", Unit: "%"},
		pick: device(map[string]string{"util_pct": ""}, "util_pct"),
		note: "Each disk's and emulated tier's util_pct, as in the chart Devices: utilisation."},
}

var summaryIntervalCharts = []intervalChart{
	{"summary-throughput", "Throughput", chart.Axis{Label: "transactions", Unit: "/s"},
		[]chart.SeriesOf{{Key: "tps", Name: "transactions"}, {Key: "errors_per_s", Name: "errors"}},
		"tps and errors_per_s of intervals.jsonl, as in the chart Throughput."},
	{"summary-latency", "Latency", chart.Axis{Label: "transaction latency", Unit: "ms"},
		[]chart.SeriesOf{{Key: "p50_ms", Name: "p50"}, {Key: "p95_ms", Name: "p95"}, {Key: "p99_ms", Name: "p99"}},
		"p50, p95 and p99 of intervals.jsonl's latency, as in the chart Latency (its max left out, which would flatten them)."},
}

// summarySection is the run at a glance, on one screen: its headline numbers, how it
// ended when that was not well, its verdict in a sentence, small multiples of its
// throughput, latency, CPU and devices over time, and what the report lacks.
func (r *run) summarySection(rep *Report, sec *report.Section, maxPoints int) {
	var hs []report.Highlight
	for _, m := range r.headline {
		mi := r.metricInfo(m)
		unit := m.Unit
		if strings.Contains(mi.Label(), unit) { // QphH@Size is its own unit
			unit = ""
		}
		hs = append(hs, report.Highlight{Title: mi.Label(), Value: m.Value, Unit: unit, What: mi.What})
	}
	if len(hs) > 0 {
		sec.AddHighlights(hs...)
	}
	if r.status != result.StatusOK {
		sec.AddText("Status: " + statusText(r) + ".")
	}
	if v := r.c.Verdict; v != nil {
		text := fmt.Sprintf("Verdict (%s): %s.", v.Window, strings.TrimSuffix(v.Headline, "."))
		if len(v.Levels) > 1 {
			var each []string
			for _, l := range v.Levels {
				each = append(each, l.Window+" "+l.Primary.Title())
			}
			text += " Each window: " + strings.Join(each, ", ") + "."
		}
		sec.AddText(text)
	}
	var multiples []*chart.Chart
	add := func(c *chart.Chart, src Source) {
		multiples = append(multiples, r.windowed(c))
		rep.Sources[c.Name] = src
	}
	if pts, group := thin(r.intervalSamples(), maxPoints); len(pts) > 0 {
		for _, ic := range summaryIntervalCharts {
			if c, keys := ic.build(pts, group); c != nil {
				add(c, Source{File: r.c.IntervalsFile, Keys: keys, Group: group})
			}
		}
	}
	if pts, group := thin(r.machineSamples(), maxPoints); len(pts) > 0 {
		for _, tc := range summaryTimeCharts {
			if c, keys := tc.build(pts, group); c != nil {
				add(c, Source{File: r.c.Monitoring.File, Keys: keys, Group: group})
			}
		}
	}
	if len(multiples) > 0 {
		sec.AddMultiples(multiples...)
	}
	for _, n := range r.notes {
		sec.AddText(n)
	}
}

// metricInfo describes a headline metric as the workload's registry does: its title
// and what it counts; its name alone for a workload this tierbench does not know.
func (r *run) metricInfo(m result.Metric) workload.MetricInfo {
	if r.meta != nil {
		if mi, ok := r.meta.Metric(m.Name); ok {
			return mi
		}
	}
	return workload.MetricInfo{Name: m.Name, Unit: m.Unit, Better: m.Better}
}
