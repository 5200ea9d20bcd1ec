package twin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/lifecycle"
	"tierbench/internal/placement"
	"tierbench/internal/resultfile"
	"tierbench/internal/workload"
	"tierbench/internal/workload/tpch"
)

// caseRun runs one case's loads and rounds.
type caseRun struct {
	opts ValidateOptions
	c    Case
	// realData is where the real side's database lives: a directory under DIR.
	realData string
	// settings are what the engine gets on an emulated tier (engine.IOSettings), given
	// to the real side too, so that the two sides differ in their device alone.
	settings []string
	flush    engine.FlushMethod
}

// outDir is the run directory of a side: OUT/CASE/SIDE.
func (r *caseRun) outDir(side Side) string {
	return filepath.Join(r.opts.Out, r.c.String(), string(side))
}

// prepare makes the directories and works out the engine's settings. The emulated
// side's tiers live in WORK (memory): OUT/CASE/emulated/tiers links there.
func (r *caseRun) prepare() error {
	for _, d := range []string{r.realData, r.outDir(Real), r.outDir(Emulated)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := r.linkTiers(); err != nil {
		return err
	}
	// MariaDB defaults to O_DIRECT on a real directory and to the page cache on an
	// emulated one; each side gets the same method: direct where the engine has it
	// by default (its reads then reach the device, past the page cache), else buffered.
	r.flush = engine.Buffered
	if r.c.Engine == "mysql" {
		r.flush = engine.Direct
	}
	io, err := engine.IOSettingsOf(r.c.Engine)
	if err != nil {
		return err
	}
	major := 0
	if io.ServerMajor != nil {
		if major, err = io.ServerMajor(); err != nil {
			return fmt.Errorf("%s: %w", r.c.Engine, err)
		}
	}
	set, err := io.For(r.c.Engine, true, r.flush, major)
	if err != nil {
		return err
	}
	r.settings = nil
	for _, s := range set {
		r.settings = append(r.settings, s.Name+"="+s.Value)
	}
	return nil
}

// linkTiers points OUT/CASE/emulated/tiers at WORK/CASE, again if a run removed it.
func (r *caseRun) linkTiers() error {
	target := filepath.Join(r.opts.Work, r.c.String())
	if err := os.MkdirAll(target, 0o755); err != nil {
		return err
	}
	link := filepath.Join(r.outDir(Emulated), "tiers")
	if dest, err := os.Readlink(link); err == nil && dest == target {
		return nil
	}
	os.Remove(link)
	return os.Symlink(target, link)
}

// values are the run settings of one side: the engine, the buffer, the same settings
// on both sides, and where the database goes.
func (r *caseRun) values(side Side, buffer string) map[string][]string {
	v := map[string][]string{
		"engine": {r.c.Engine}, "out": {r.outDir(side)}, "buffer": {buffer},
		"set": r.settings, "flush-method": {string(r.flush)},
	}
	if r.c.Engine == "sqlite" {
		delete(v, "flush-method") // SQLite has none
	}
	if side == Real {
		v["data"] = []string{r.realData}
		return v
	}
	v["data"] = []string{r.opts.Spec}
	v["emulator"] = []string{r.opts.Emulator}
	if len(r.opts.Profiles) > 0 {
		v["profiles"] = r.opts.Profiles
	}
	return v
}

func num64(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// load loads the case's database on one side: oltp load, or TPC-H's first run with
// --keep-db (its figures are not counted: the rounds reuse its database).
func (r *caseRun) load(ctx context.Context, side Side) error {
	s := r.opts.Sizes
	if side == Emulated {
		if err := r.linkTiers(); err != nil {
			return err
		}
	}
	var spec lifecycle.Spec
	switch r.c.Workload {
	case "oltp":
		v := r.values(side, s.Buffer)
		v["mix"], v["scale"] = []string{s.Mix}, []string{num64(s.Scale)}
		spec = lifecycle.Spec{Workload: "oltp", Phases: []workload.Phase{workload.Load}, Values: v}
	case "tpch":
		v := r.values(side, s.TPCHBuffer)
		v["sf"], v["keep-db"], v["seed"] = []string{num64(s.SF)}, []string{"true"}, []string{"1"}
		spec = lifecycle.Spec{Workload: "tpch", Phases: []workload.Phase{workload.Run}, Values: v}
	default:
		return fmt.Errorf("no workload %q in a validation: give oltp or tpch", r.c.Workload)
	}
	log, err := r.log(side)
	if err != nil {
		return err
	}
	defer log.Close()
	spec.IO = lifecycle.IO{Stdout: log, Stderr: log, Command: "tierbench device validate"}
	spec.Emulator = r.opts.EmulatorOptions
	o, err := lifecycle.Execute(ctx, spec)
	if err != nil {
		return err
	}
	if st, why := o.Status(); st != "ok" {
		return fmt.Errorf("%s: %s", st, why)
	}
	return nil
}

// log is the side's log file, OUT/CASE/SIDE.log: what its runs printed.
func (r *caseRun) log(side Side) (*os.File, error) {
	return os.OpenFile(filepath.Join(r.opts.Out, r.c.String(), string(side)+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// run runs one round on one side and reads its metrics from its result file.
func (r *caseRun) run(ctx context.Context, side Side, round int) RunRecord {
	rec := RunRecord{Case: r.c.String(), Side: side, Round: round, Load: loadAverage(), Status: "ok"}
	fail := func(err error) RunRecord {
		rec.Status, rec.Why = "failed", oneLine(err)
		if ctx.Err() != nil {
			rec.Status = "interrupted"
		}
		return rec
	}
	s := r.opts.Sizes
	var spec lifecycle.Spec
	switch r.c.Workload {
	case "oltp":
		v := r.values(side, s.Buffer)
		v["mix"], v["users"] = []string{s.Mix}, []string{strconv.Itoa(s.Users)}
		v["ramp"], v["duration"] = []string{s.Ramp.String()}, []string{s.Duration.String()}
		v["seed"] = []string{strconv.Itoa(round)}
		spec = lifecycle.Spec{Workload: "oltp", Phases: []workload.Phase{workload.Run}, Values: v}
	case "tpch":
		v := r.values(side, s.TPCHBuffer)
		v["sf"], v["keep-db"], v["skip-load"] = []string{num64(s.SF)}, []string{"true"}, []string{"true"}
		v["seed"] = []string{strconv.Itoa(round + 1)}
		spec = lifecycle.Spec{Workload: "tpch", Phases: []workload.Phase{workload.Run}, Values: v}
	}
	if side == Real {
		// the database's pages leave the page cache: the run starts cold, as the
		// emulated side's fresh page cache model does
		evict(r.realData)
	} else if err := r.linkTiers(); err != nil {
		return fail(err)
	}
	log, err := r.log(side)
	if err != nil {
		return fail(err)
	}
	defer log.Close()
	fmt.Fprintf(log, "\n== round %d\n", round)
	spec.IO = lifecycle.IO{Stdout: log, Stderr: log, Command: "tierbench device validate"}
	spec.Emulator = r.opts.EmulatorOptions
	start := time.Now()
	o, err := lifecycle.Execute(ctx, spec)
	rec.Seconds = time.Since(start).Seconds()
	if o != nil && len(o.Phases) > 0 {
		rec.Result = o.Phases[0].File
		if st, why := o.Status(); st != "ok" {
			rec.Status, rec.Why = string(st), why
			return rec
		}
	}
	if err != nil {
		return fail(err)
	}
	d, err := resultfile.Read(rec.Result)
	if err != nil {
		return fail(err)
	}
	rec.Metrics, err = r.metricsOf(d, side)
	if err != nil {
		return fail(err)
	}
	return rec
}

// metricsOf reads a run's figures: the OLTP mix's throughput and latencies over its
// measured window and the device's reads and writes per transaction (the real disk's
// counters, the emulated device's media under the page cache model); TPC-H's QphH
// and its two parts.
func (r *caseRun) metricsOf(d *resultfile.Decoded, side Side) (map[string]float64, error) {
	m := map[string]float64{}
	// how late the emulated device's requests returned: what the host's CPU added to
	// the model's times (the preload path's timing error)
	if st := d.Storage; st != nil && side == Emulated {
		for _, t := range st.Tiers {
			if t.Name == string(placement.Data) && t.Device != nil && t.Device.TimingError != nil {
				m["late_mean_us"], m["late_p50_us"] = t.Device.TimingError.Mean, t.Device.TimingError.P50
			}
		}
	}
	if r.c.Workload == "tpch" {
		// All three from the unrounded intervals: the spec's reporting rounds each
		// query's time up to 0.1 s (Clause 5.3.7.5), and at the validation's small
		// scale factors every query takes less, so the rounded Power@Size was the same
		// 1749 on both sides in every round.
		tr, ok := d.Result.(*tpch.Result)
		if !ok || tr.Metrics == nil {
			return nil, errors.New("the result has no QphH@Size")
		}
		m["qphh"], m["power"], m["throughput"] = tr.Metrics.QphHAtSizeUnrounded, tr.Metrics.PowerAtSizeUnrounded, tr.Metrics.ThroughputAtSizeUnrounded
		return m, nil
	}
	if len(d.Levels) == 0 {
		return nil, errors.New("the result has no measured level")
	}
	l := d.Levels[0]
	m["tps"], m["p50_ms"], m["p95_ms"], m["p99_ms"] = l.TPS, l.Latency.P50, l.Latency.P95, l.Latency.P99
	w := d.Monitoring.Level(l.Users)
	if w == nil || l.TPS <= 0 {
		return m, nil
	}
	reads, writes := "disk."+r.opts.Where.Device+".reads", "disk."+r.opts.Where.Device+".writes"
	if side == Emulated {
		tier := string(placement.Data)
		reads, writes = "emu."+tier+".media_reads", "emu."+tier+".media_writes"
	}
	if c, ok := w.Counters[reads]; ok {
		m["reads_per_tx"] = c.PerS / l.TPS
	}
	if c, ok := w.Counters[writes]; ok {
		m["writes_per_tx"] = c.PerS / l.TPS
	}
	return m, nil
}

// loadAverage is the host's one-minute load average, recorded beside each run.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	return f
}

// oneLine is an error's first line.
func oneLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
