package monitor_test

import (
	"cmp"
	"context"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/engine/enginetest"
	"tierbench/internal/engine/postgres"
	"tierbench/internal/metrics"
	"tierbench/internal/monitor"
	"tierbench/internal/workload/oltp"
	"tierbench/internal/workload/vuser"
)

// TestPerturbation measures whether sampling changes what a run measures, when
// TIERBENCH_MONITOR_PERTURB gives the length of the measured window (scripts/
// monitor-cost sets it): one point-select run on a managed PostgreSQL whose report
// intervals alternate between sampling (every TIERBENCH_MONITOR_SAMPLE, default 1s,
// with the sources TIERBENCH_MONITOR_SOURCES names, default all) and not, so that both see the same load from the rest of the
// machine; it logs the median of the ratios of each sampled interval's TPS to the
// mean of the unsampled ones on either side.
func TestPerturbation(t *testing.T) {
	window := os.Getenv("TIERBENCH_MONITOR_PERTURB")
	if window == "" {
		t.Skip("a measurement: set TIERBENCH_MONITOR_PERTURB=120s (scripts/monitor-cost)")
	}
	duration, err := time.ParseDuration(window)
	if err != nil {
		t.Fatal(err)
	}
	every := time.Second
	if s := os.Getenv("TIERBENCH_MONITOR_SAMPLE"); s != "" {
		if every, err = monitor.ParseSample(s); err != nil {
			t.Fatal(err)
		}
	}
	// Short intervals pair best: the rest of a shared machine changes its load within
	// seconds.
	const slot = 2 * time.Second
	ctx := context.Background()
	e := enginetest.OpenManaged(t, postgres.Installed(), engine.Config{Name: "postgres", Sessions: 4,
		Settings: map[string]string{"fsync": "off", "synchronous_commit": "off"}})
	m, err := oltp.Open("point-select")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oltp.Load(ctx, e, m, oltp.LoadConfig{Scale: 0.2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	wl, err := oltp.NewTransactions(ctx, e, m, oltp.TransactionsConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	alt := &alternator{t: t, e: e, every: every}
	if _, err := vuser.Run(ctx, wl, vuser.Config{Users: 4, Ramp: 5 * time.Second, Duration: duration,
		Interval: slot, Observer: alt}); err != nil {
		t.Fatal(err)
	}
	alt.toggle(false)
	// Each sampled interval against the mean of the unsampled ones on either side, so
	// that a drift of the machine's load favours neither.
	var ratios []float64
	for i := 1; i+1 < len(alt.tps); i++ {
		if alt.sampled[i] && !alt.sampled[i-1] && !alt.sampled[i+1] {
			if base := (alt.tps[i-1] + alt.tps[i+1]) / 2; base > 0 {
				ratios = append(ratios, alt.tps[i]/base)
			}
		}
	}
	if len(ratios) == 0 {
		t.Fatal("no pair of intervals: give a longer window")
	}
	sort.Float64s(ratios)
	q := func(p float64) float64 { return ratios[int(p*float64(len(ratios)-1))] }
	t.Logf("sampling every %s (sources: %s): %d sampled %s intervals, TPS over their unsampled neighbours': median %.3f, quartiles %.3f-%.3f",
		every, cmp.Or(os.Getenv("TIERBENCH_MONITOR_SOURCES"), "all"), len(ratios), slot, q(0.5), q(0.25), q(0.75))
}

// alternator starts a monitor at one measured interval's end and stops it at the
// next's, and keeps each interval's TPS and whether it was sampled.
type alternator struct {
	t       *testing.T
	e       engine.Engine
	every   time.Duration
	mon     *monitor.Monitor
	tps     []float64
	sampled []bool
}

func (a *alternator) Interval(rec metrics.IntervalRecord) {
	if rec.Phase != "measure" {
		return
	}
	a.tps = append(a.tps, rec.TPS)
	a.sampled = append(a.sampled, a.mon != nil)
	a.toggle(a.mon == nil)
}

func (a *alternator) Window(int, bool, time.Time) {}

// pick keeps the sources TIERBENCH_MONITOR_SOURCES names (host, processes, storage,
// engine; all when unset; "none" keeps none: a monitor that only ticks, the control
// that shows the method's noise).
func (a *alternator) pick(all ...monitor.Source) []monitor.Source {
	names := os.Getenv("TIERBENCH_MONITOR_SOURCES")
	if names == "" {
		return all
	}
	var out []monitor.Source
	for _, src := range all {
		if slices.Contains(strings.Split(names, ","), src.Name()) {
			out = append(out, src)
		}
	}
	return out
}

func (a *alternator) toggle(on bool) {
	if !on {
		if a.mon != nil {
			a.mon.Stop()
			a.mon = nil
		}
		return
	}
	host, err := monitor.NewHost("")
	if err != nil {
		a.t.Fatal(err)
	}
	procs, err := monitor.NewProcesses("", monitor.Process{Who: "tierbench", PID: os.Getpid()},
		monitor.Process{Who: "server", PID: a.e.(engine.Server).ServerPID(), Tree: true})
	if err != nil {
		a.t.Fatal(err)
	}
	disks, err := monitor.NewStorage("", "", []monitor.Directory{{Label: "data", Path: a.e.(engine.Server).DataDir()}})
	if err != nil {
		a.t.Fatal(err)
	}
	eng, _, err := monitor.NewEngine(context.Background(), a.e)
	if err != nil {
		a.t.Fatal(err)
	}
	a.mon, err = monitor.New(monitor.Config{Interval: a.every, Sources: a.pick(host, procs, disks, eng)})
	if err != nil {
		a.t.Fatal(err)
	}
	a.mon.Start()
}
