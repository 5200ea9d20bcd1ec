package twin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"tierbench/internal/emulator"
	"tierbench/internal/metrics"
)

// Sizes are the workloads of a validation. The default set (DefaultSizes) is small
// enough to load in seconds and to run every case in 15 minutes, and its data does
// not fit the engines' buffers, so that the device is what the runs measure.
type Sizes struct {
	// Mix, Scale, Users, Buffer, Ramp and Duration are the OLTP mix's (oltp load and
	// run); SF and TPCHBuffer TPC-H's.
	Mix        string        `json:"mix"`
	Scale      float64       `json:"scale"`
	Users      int           `json:"users"`
	Buffer     string        `json:"buffer"`
	Ramp       time.Duration `json:"ramp_ns"`
	Duration   time.Duration `json:"duration_ns"`
	SF         float64       `json:"sf"`
	TPCHBuffer string        `json:"tpch_buffer"`
}

// DefaultSizes: the policy mix (40% reads, 60% writes of new and renewed policies) at
// scale 4, about 120 MB in SQLite and 250 MB in PostgreSQL, against an 8 MB buffer,
// 4 users for 20 s after a 5 s ramp; TPC-H at SF 0.05 (about 60 MB of data) against
// 8 MB. 4 users, not more: with 8 on a 2-CPU host the engine alone filled the CPUs,
// and the emulated requests returned 95 us late on average, more than the device's
// own latency (docs/devices.md, "Device twins").
var DefaultSizes = Sizes{Mix: "policy", Scale: 4, Users: 4, Buffer: "8MB", Ramp: 5 * time.Second,
	Duration: 20 * time.Second, SF: 0.05, TPCHBuffer: "8MB"}

// Case is one workload on one engine, run on both sides.
type Case struct {
	Workload string `json:"workload"` // "oltp" or "tpch"
	Engine   string `json:"engine"`
}

func (c Case) String() string { return c.Workload + "-" + c.Engine }

// Side is where a run's database is: the real device or its emulation.
type Side string

const (
	Real     Side = "real"
	Emulated Side = "emulated"
)

// ValidateOptions say what to validate and where. ValidateSettings fills them.
type ValidateOptions struct {
	Where *Where
	// Profile is the profile under test, Spec what the emulated runs use: the
	// profile behind a page cache model of this host's memory (PageCache bytes).
	Profile   string
	Spec      string
	PageCache int64
	// Profiles are the users' profile files the emulated runs load.
	Profiles []string
	// Out holds the runs and validate.json; Work the emulated devices' backing files
	// (on memory, so that the host's disk stays out of the emulated runs).
	Out, Work string
	Rounds    int
	Cases     []Case
	Sizes     Sizes
	// Emulator is the path of the emulated runs: auto, preload or fuse;
	// EmulatorOptions tune the emulator (tests start the server from their binary).
	Emulator        string
	EmulatorOptions emulator.Options
	// Lock, when set, is held exclusively during each round and shared during loads
	// (hostLock).
	Lock     string
	Progress io.Writer
}

// Validation is a validation's record: what was compared, every run, and the
// metrics with their errors. It is validate.json.
type Validation struct {
	Device         string        `json:"device"`
	Dir            string        `json:"dir"`
	Profile        string        `json:"profile"`
	Spec           string        `json:"spec"`
	PageCacheBytes int64         `json:"page_cache_bytes"`
	Emulator       string        `json:"emulator"`
	Started        time.Time     `json:"started"`
	Wall           time.Duration `json:"wall_ns"`
	// LockWait is the part of Wall spent waiting for --lock: what other
	// measurements on a shared host took.
	LockWait time.Duration `json:"lock_wait_ns,omitempty"`
	Rounds   int           `json:"rounds"`
	Sizes    Sizes         `json:"sizes"`
	Cases    []Case        `json:"cases"`
	Metrics  []Metric      `json:"metrics"`
	Runs     []RunRecord   `json:"runs"`
	// Interrupted says Ctrl-C stopped the validation: the metrics cover the runs
	// that finished.
	Interrupted bool `json:"interrupted,omitempty"`
}

// RunRecord is one run of one side.
type RunRecord struct {
	Case    string             `json:"case"`
	Side    Side               `json:"side"`
	Round   int                `json:"round"`
	Result  string             `json:"result,omitempty"`
	Seconds float64            `json:"seconds"`
	Load    float64            `json:"load_average"`
	Status  string             `json:"status"`
	Why     string             `json:"why,omitempty"`
	Metrics map[string]float64 `json:"metrics,omitempty"`
}

// ResultFile is the validation's record in its output directory.
const ResultFile = "validate.json"

// Validate runs every case on the real device and on its emulation, loads first,
// then Rounds rounds that alternate which side goes first. A run that fails is
// recorded and the validation goes on; Ctrl-C stops it with what finished. The
// record is written to Out after every round.
func Validate(ctx context.Context, opts ValidateOptions) (*Validation, error) {
	v := &Validation{Device: opts.Where.Describe(), Dir: opts.Where.Dir, Profile: opts.Profile, Spec: opts.Spec,
		PageCacheBytes: opts.PageCache, Emulator: opts.Emulator, Started: time.Now().UTC(), Rounds: opts.Rounds,
		Sizes: opts.Sizes, Cases: opts.Cases}
	lock := &hostLock{path: opts.Lock}
	hold := func(exclusive bool) (func(), error) {
		start := time.Now()
		release, err := lock.hold(ctx, exclusive)
		v.LockWait += time.Since(start)
		return release, err
	}
	realRoot := filepath.Join(opts.Where.Dir, fmt.Sprintf(".tierbench-validate-%d", os.Getpid()))
	defer os.RemoveAll(realRoot)
	defer os.RemoveAll(opts.Work)
	say := func(format string, args ...any) {
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
		}
	}
	save := func() error {
		v.Wall = time.Since(v.Started)
		v.Metrics = summarise(v.Runs, opts.Cases)
		return metrics.WriteJSONFile(filepath.Join(opts.Out, ResultFile), v)
	}
	stop := func(err error) (*Validation, error) {
		if ctx.Err() != nil {
			v.Interrupted = true
		}
		if serr := save(); serr != nil {
			return v, errors.Join(err, serr)
		}
		return v, err
	}
	for _, c := range opts.Cases {
		r := &caseRun{opts: opts, c: c, realData: filepath.Join(realRoot, c.String())}
		if err := r.prepare(); err != nil {
			return stop(err)
		}
		release, err := hold(false)
		if err != nil {
			return stop(err)
		}
		loaded := true
		for _, side := range []Side{Real, Emulated} {
			say("%s: loading on the %s side", c, side)
			if err := r.load(ctx, side); err != nil {
				if ctx.Err() != nil {
					release()
					return stop(ctx.Err())
				}
				// the case cannot run: say why in its record and go on with the next
				v.Runs = append(v.Runs, RunRecord{Case: c.String(), Side: side, Status: "failed", Why: "load: " + oneLine(err)})
				say("%s: the load on the %s side failed: %s", c, side, oneLine(err))
				loaded = false
				break
			}
		}
		release()
		if !loaded {
			continue
		}
		for round := 1; round <= opts.Rounds; round++ {
			release, err := hold(true)
			if err != nil {
				return stop(err)
			}
			order := []Side{Real, Emulated}
			if round%2 == 0 {
				slices.Reverse(order)
			}
			for _, side := range order {
				rec := r.run(ctx, side, round)
				v.Runs = append(v.Runs, rec)
				say("%s round %d/%d %-8s %s %s", c, round, opts.Rounds, side, rec.Status, runLine(rec))
				if ctx.Err() != nil {
					release()
					return stop(ctx.Err())
				}
			}
			release()
			if err := save(); err != nil {
				return v, err
			}
		}
	}
	return v, save()
}

// runLine is a run's headline for the progress lines.
func runLine(rec RunRecord) string {
	if rec.Status != "ok" {
		return rec.Why
	}
	var parts []string
	for _, name := range []string{"tps", "p95_ms", "qphh"} {
		if x, ok := rec.Metrics[name]; ok {
			parts = append(parts, fmt.Sprintf("%s %.4g", name, x))
		}
	}
	return fmt.Sprintf("%s (%.0f s, load %.1f)", strings.Join(parts, " "), rec.Seconds, rec.Load)
}
