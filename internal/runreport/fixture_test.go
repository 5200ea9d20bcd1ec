package runreport_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tierbench/internal/energy"
	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/monitor"
	"tierbench/internal/result"
	"tierbench/internal/runreport"
	"tierbench/internal/verdict"
	"tierbench/internal/workload/oltp"
	"tierbench/internal/workload/vuser"
)

// The fixture is a run of a mix at 2 users, monitored every second for 3 s, with a
// disk (sda) and an emulated tier (data), whose numbers are chosen by hand so that
// every figure of the report can be worked out from them.

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// fixtureSamples are metrics.jsonl's lines. The fourth is a window's mark taken in
// the same millisecond as the third: the charts draw the third only.
func fixtureSamples() []monitor.Sample {
	host := func(busy, user, system, iowait, avail, cache float64) map[string]float64 {
		return map[string]float64{
			"host.cpu.all.busy_pct": busy, "host.cpu.all.user_pct": user, "host.cpu.all.system_pct": system,
			"host.cpu.all.irq_pct": 1, "host.cpu.all.iowait_pct": iowait, "host.cpu.all.steal_pct": 0,
			// per CPU: cpu 10 after cpu 2 (numeric order), "all" not among them
			"host.cpu.0.busy_pct": busy, "host.cpu.2.busy_pct": busy / 2, "host.cpu.10.busy_pct": 100 - busy,
			"host.mem.total_mib": 8000, "host.mem.available_mib": avail, "host.mem.used_mib": 8000 - avail,
			"host.mem.page_cache_mib": cache, "host.mem.dirty_mib": 10,
			"host.psi.cpu.some_pct": busy / 10, "host.psi.io.some_pct": iowait / 2, "host.psi.io.full_pct": iowait / 4,
		}
	}
	dev := func(v map[string]float64, base string, reads, writes, util, await, queue float64) {
		v[base+".read_iops"], v[base+".write_iops"], v[base+".flush_per_s"] = reads, writes, writes/10
		v[base+".read_mb_s"], v[base+".write_mb_s"] = reads*0.008, writes*0.04
		v[base+".util_pct"], v[base+".await_ms"], v[base+".queue_depth"] = util, await, queue
	}
	busy := func(busy, user, system, iowait, avail, cache, hit, commits, tb, server, cpuW float64) map[string]float64 {
		v := host(busy, user, system, iowait, avail, cache)
		dev(v, "disk.sda", 100, 40, 30, 2.5, 0.4)
		dev(v, "emu.data", 80, 20, 95, 12, 3)
		v["engine.buffer_hit_pct"], v["engine.commits_per_s"], v["engine.rollbacks_per_s"] = hit, commits, 1
		v["engine.sessions_active"], v["engine.lock_waits"], v["engine.wait.Lock.transactionid"] = 2, 1, 1
		v["proc.tierbench.cpu_cores"], v["proc.tierbench.cpu_wait_cores"], v["proc.tierbench.rss_mib"] = tb, 0.05, 21
		v["proc.server.cpu_cores"], v["proc.server.rss_mib"] = server, 80
		v["energy.cpu.watts"], v["energy.dram.watts"] = cpuW, 3
		// PostgreSQL's own: two counters in rows, one in bytes (as MB/s), a gauge
		v["engine.pg.tup_returned_per_s"], v["engine.pg.tup_fetched_per_s"] = 10*commits, 2*commits
		v["engine.pg.temp_bytes_per_s"] = 1e6 * hit
		v["engine.pg.sessions_idle_in_transaction"] = 1
		v["engine.pg.conflicts_per_s"], v["engine.pg.deadlocks_per_s"] = 0, 0 // zero throughout: named, not drawn
		return v
	}
	mark := at(2.0004)
	return []monitor.Sample{
		{Time: at(0), ElapsedS: 0, Values: map[string]float64{"host.mem.total_mib": 8000, "host.mem.available_mib": 6000,
			"proc.tierbench.rss_mib": 20, "energy.dram.watts": 3}},
		{Time: at(1), ElapsedS: 1, Values: busy(50, 30, 15, 4, 5900, 1100, 90, 120, 0.3, 0.9, 12)},
		{Time: at(2), ElapsedS: 2, Values: busy(60, 35, 20, 4, 5800, 1150, 92, 130, 0.35, 1.0, 13)},
		{Time: mark, ElapsedS: 2, Mark: "end 2 users", MarkTime: &mark, Values: busy(99, 99, 0, 0, 1, 1, 1, 1, 1, 1, 99)},
		{Time: at(3), ElapsedS: 3, Values: busy(70, 40, 25, 4, 5700, 1200, 88, 110, 0.4, 1.1, 14),
			Errors: map[string]string{"engine": "a test's timeout"}},
	}
}

// fixtureIntervals are intervals.jsonl's lines: three report intervals of 1 s.
func fixtureIntervals() []metrics.IntervalRecord {
	rec := func(s, tps, p95 float64) metrics.IntervalRecord {
		return metrics.IntervalRecord{Time: at(s), ElapsedS: s, IntervalS: 1, Phase: "measure", Users: 2, TPS: tps, QPS: 2 * tps,
			Latency: metrics.Latency{P50: p95 / 4, P95: p95, P99: 2 * p95, Max: 10 * p95}}
	}
	return []metrics.IntervalRecord{rec(1, 100, 4), rec(2, 110, 5), rec(3, 90, 6)}
}

func fixtureMonitoring() *monitor.Summary {
	run := monitor.WindowSummary{Label: "run", Start: at(0), End: at(3), CoveredS: 3, Samples: 3,
		Series: map[string]monitor.Stats{
			"host.psi.cpu.some_pct": {Mean: 6}, "host.psi.io.some_pct": {Mean: 2},
			"host.mem.page_cache_mib": {Mean: 1150}, "engine.lock_waits": {Mean: 1},
		},
		Counters: map[string]monitor.CounterDelta{
			"host.cpu.all.busy_s": {Delta: 3, PerS: 1}, "host.cpu.all.total_s": {Delta: 6, PerS: 2},
			"host.cpu.all.user_s": {Delta: 2.1}, "host.cpu.all.system_s": {Delta: 1.2},
			"host.cpu.all.iowait_s": {Delta: 0.24}, "host.cpu.all.steal_s": {Delta: 0},
			"proc.tierbench.cpu_s": {Delta: 1.05, PerS: 0.35}, "proc.server.cpu_s": {Delta: 3, PerS: 1},
			"engine.buffer_hits": {Delta: 900}, "engine.buffer_misses": {Delta: 100}, "engine.commits": {Delta: 360, PerS: 120},
			"disk.sda.busy_s": {Delta: 0.9, PerS: 0.3}, "disk.sda.read_bytes": {PerS: 800000}, "disk.sda.write_bytes": {PerS: 1600000},
			"disk.sda.reads": {Delta: 300}, "disk.sda.writes": {Delta: 120}, "disk.sda.rw_wait_s": {Delta: 1.05},
			// 3.672 s over 240 + 60 + 6 requests: 12 ms each.
			"emu.data.busy_s": {Delta: 2.97, PerS: 0.99}, "emu.data.read_bytes": {PerS: 640000}, "emu.data.write_bytes": {PerS: 800000},
			"emu.data.reads": {Delta: 240}, "emu.data.writes": {Delta: 60}, "emu.data.flushes": {Delta: 6}, "emu.data.latency_s": {Delta: 3.672},
		}}
	level := run
	level.Label, level.Users, level.Start, level.End, level.CoveredS, level.Samples = "2 users", 2, at(0.5), at(2), 1.5, 2
	return &monitor.Summary{IntervalS: 1, File: "metrics.jsonl", CSVFile: "metrics.csv", Samples: 5, Start: at(0), End: at(3),
		Run: &run, Windows: []monitor.WindowSummary{level}, Series: []monitor.SeriesInfo{
			{Name: "engine.commits", Kind: monitor.Counter, Unit: "transactions"}, // not the engine's own
			{Name: "engine.wait.<event>", Kind: monitor.Value, Unit: "sessions"},  // neither
			{Name: "engine.pg.tup_returned", Kind: monitor.Counter, Unit: "rows"},
			{Name: "engine.pg.tup_returned_per_s", Kind: monitor.Value, Unit: "per_s"},
			{Name: "engine.pg.tup_fetched", Kind: monitor.Counter, Unit: "rows"},
			{Name: "engine.pg.tup_fetched_per_s", Kind: monitor.Value, Unit: "per_s"},
			{Name: "engine.pg.temp_bytes", Kind: monitor.Counter, Unit: "bytes"},
			{Name: "engine.pg.temp_bytes_per_s", Kind: monitor.Value, Unit: "per_s"},
			{Name: "engine.pg.sessions_idle_in_transaction", Kind: monitor.Value, Unit: "sessions"},
			{Name: "engine.pg.checkpoints", Kind: monitor.Counter, Unit: "checkpoints"}, // in no sample: no chart
			{Name: "engine.pg.conflicts", Kind: monitor.Counter, Unit: "queries"},       // zero: no chart
			{Name: "engine.pg.deadlocks", Kind: monitor.Counter, Unit: "rows"},          // zero: beside tup_*
		}}
}

func fixtureVerdict() *verdict.Section {
	v := verdict.Verdict{Window: "2 users", Users: 2, Primary: verdict.Device,
		Headline: "device-bound: tier data (emulated hdd-7200; holds data) busy 99% of the window",
		Findings: []verdict.Finding{
			{Rule: verdict.Device, Fired: true, ExplainsPct: 80, Resource: "tier data (emulated hdd-7200; holds data)",
				Text: "busy 99% of the window", Fires: "any", Checks: []verdict.Check{
					{Name: "utilisation", Measured: 99, Op: ">=", Threshold: 90, Unit: "pct", From: "emu.data.busy_s (rise over the window)", Met: true},
				}},
			{Rule: verdict.Lock, ExplainsPct: 10, Resource: "locks", Text: "users waited for locks 10% of their time", Fires: "all",
				Checks: []verdict.Check{{Name: "users' time waiting for locks", Measured: 10, Op: ">=", Threshold: 50, Unit: "pct", From: "engine.lock_waits (mean)"}},
				Waits:  []verdict.Wait{{Name: "Lock.transactionid", Pct: 10}}},
		},
		TimePct: map[string]float64{"io": 80, "lock": 10, "cpu.server": 30, "cpu.tierbench": 12},
	}
	return verdict.NewSection(verdict.Defaults, []verdict.Verdict{v}, 0)
}

func fixtureEnergy() *energy.Section {
	fig := func(name string, j, avg, peak float64, measured bool) energy.Figures {
		return energy.Figures{Name: name, Method: energy.MethodModel, Measured: measured, Source: "by hand", Joules: j,
			JoulesLow: 0.8 * j, JoulesHigh: 1.2 * j, Wh: j / 3600, AvgW: avg, PeakW: peak, CO2g: j / 3.6e6 * 400,
			JPerTransaction: j / 330, CoveredS: 3, InTotal: true}
	}
	total := fig("total", 48, 16, 17, false)
	total.Method = ""
	return &energy.Section{GridIntensity: 400, GridIntensitySource: "by hand", Model: "E = E_cpu + E_dram",
		Components:  []energy.Component{{Name: "cpu", Method: energy.MethodModel, Source: "by hand"}, {Name: "dram", Method: energy.MethodConstant, Source: "by hand"}},
		Unavailable: []energy.Unavailable{{What: "RAPL", Why: "a test has none"}},
		NotCounted:  []energy.Unavailable{{What: "base power", Why: "give --base-watts"}},
		Windows: []energy.WindowResult{{Label: "run", Start: at(0), End: at(3), Seconds: 3, Transactions: 330,
			Components: []energy.Figures{fig("cpu", 39, 13, 14, false), fig("dram", 9, 3, 3, false)}, Total: total,
			Missing: []energy.Unavailable{{What: "base", Why: "give --base-watts"}, {What: "storage:wal", Why: "a test gives it no time"}}}},
		// A default host figure beside a given device one: 3 s of a 5-year life is
		// 3 / (5 x 31,557,600) = 1.9013e-8 of 100 kg, 0.0019013 g; of a 6-year life
		// 1.5844e-8 of 1,314.1 kg, 0.020821 g.
		SCI: &energy.SCI{Window: "run", Seconds: 3, OperationalG: 48 / 3.6e6 * 400, EmbodiedG: 0.0019013 + 0.020821,
			Embodied: []energy.EmbodiedShare{
				{Name: "data: nvme", Kg: 100, LifeYears: 5, TimeShare: 1.9013e-8, G: 0.0019013, Source: "profile"},
				{Name: "host", Kg: energy.HostEmbodiedKg, LifeYears: 6, TimeShare: 1.5844e-8, G: 0.020821, Source: energy.HostEmbodiedSource, Default: true}}},
		// The cpu model covers no utilisation in the second interval.
		Chart: &energy.Chart{Start: at(0), EndS: []float64{1, 2, 3}, Series: []energy.ChartSeries{
			{Name: "cpu", InTotal: true, Watts: energy.Floats{12, math.NaN(), 14}},
			{Name: "dram", InTotal: true, Watts: energy.Floats{3, 3, 3}},
			{Name: "total", InTotal: true, Watts: energy.Floats{15, math.NaN(), 17}},
		}}}
}

func fixtureResult() *oltp.Result {
	res := &oltp.Result{RunResult: vuser.RunResult{Benchmark: "oltp-mix", Status: result.StatusOK, Started: t0,
		Engine: engine.Info{Name: "sqlite", Version: "3.99.0", Mode: "embedded"}, DurationS: 3, Loop: "closed",
		Users: 2, TPS: 110, QPS: 220, IntervalsFile: "intervals.jsonl"}, Mix: "fixture",
		Levels: []vuser.LevelReport{{Users: 2, Status: result.StatusOK, Seconds: 3, TPS: 110, QPS: 220,
			Latency: metrics.Latency{P50: 1.25, P95: 5, P99: 10, Max: 50}}}}
	res.Monitoring, res.Verdict, res.Energy = fixtureMonitoring(), fixtureVerdict(), fixtureEnergy()
	res.Storage = &result.Storage{Tiers: []result.TierResult{
		{Name: "data", Kind: "emulated", Spec: "hdd-7200", Dir: "/mnt/data", Classes: []string{"data"},
			Device: &result.DeviceResult{Reads: 240, Writes: 60, Flushes: 6, IOPS: 102, MediaIOPS: 102, Utilisation: 0.99,
				Latency: result.LatencySummary{P50: 8000, P99: 25000}, EnergyJ: 21.5, CO2g: 0.0024}},
		{Name: "wal", Kind: "directory", Dir: "/srv/wal", Classes: []string{"wal"}},
	}}
	return res
}

// writeFixture writes the fixture run into a new directory: result.json, and
// metrics.jsonl and intervals.jsonl one JSON value a line.
func writeFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, runreport.ResultFile), fixtureResult())
	writeLines(t, filepath.Join(dir, "metrics.jsonl"), fixtureSamples())
	writeLines(t, filepath.Join(dir, "intervals.jsonl"), fixtureIntervals())
	return dir
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeLines[T any](t *testing.T, path string, vs []T) {
	t.Helper()
	var b strings.Builder
	for _, v := range vs {
		line, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s\n", line)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
