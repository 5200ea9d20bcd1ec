package twin

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"tierbench/internal/device"
)

// FitOptions tune Fit. The zero value is not valid: FitSettings fills it.
type FitOptions struct {
	// Size is the working set: larger than any cache in the device, and what the
	// directory must have free (plus the log).
	Size int64
	// Rounds is how many times each probe runs; Budget bounds each run.
	Rounds int
	Budget time.Duration
	// Name is the profile's name (default: twin-DEVICE).
	Name string
	// Progress gets a line as each probe's round ends.
	Progress io.Writer
}

// The bounds of the fit's settings, each with why.
const (
	// MinSize: below 256 MiB a working set fits the write caches of most devices.
	MinSize = 256 << 20
	// reserve is what the fit leaves free beyond its files, so that measuring a
	// device never fills it.
	reserve = 64 << 20
	// maxPerRound bounds one probe's requests in a round (memory: each is timed).
	maxPerRound = 2_000_000
)

// ProbeResult is one probe as the fit measured it and as the fitted model does it.
type ProbeResult struct {
	Probe  string `json:"probe"`
	Metric string `json:"metric"`
	// Rounds are the probe's figure in each round; Measured is what the fit takes
	// (the mean over every request of the rounds for latencies, the median round
	// otherwise), CVPct the rounds' coefficient of variation.
	Rounds   []float64 `json:"rounds"`
	Measured float64   `json:"measured"`
	CVPct    float64   `json:"cv_pct"`
	Requests int64     `json:"requests"`
	// Model is the fitted profile's figure for the same requests in virtual time, and
	// ErrorPct (Model - Measured) / Measured x 100.
	Model    float64 `json:"model"`
	ErrorPct float64 `json:"error_pct"`
	// Fits names the fields this probe sets; empty for a check.
	Fits string `json:"fits,omitempty"`
}

// FitResult is a finished fit: where and when, every probe, and the profile.
type FitResult struct {
	Where   *Where        `json:"where"`
	Host    string        `json:"host"`
	Kernel  string        `json:"kernel"`
	Started time.Time     `json:"started"`
	Wall    time.Duration `json:"wall_ns"`
	Size    int64         `json:"working_set_bytes"`
	Rounds  int           `json:"rounds"`
	Budget  time.Duration `json:"budget_ns"`
	Name    string        `json:"name"`
	Probes  []ProbeResult `json:"probes"`
	// Profile is the profile file's text (YAML with its comments); Fields the
	// profile's fields by name.
	Profile []byte            `json:"-"`
	Fields  map[string]figure `json:"fields"`
	// Queues is what the mixed probe chose, with the two predictions.
	Queues string `json:"queues"`
}

// figure is a field's value with its source, as the profile file has it.
type figure struct {
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// Fit measures the device under dir and fits a measured profile to it: every probe
// runs Rounds times, round after round through the list, so slow drifts of the device
// spread over every probe. On error or Ctrl-C the probe files are removed and nothing
// is returned but the error.
func Fit(ctx context.Context, dir string, opts FitOptions) (*FitResult, error) {
	where, err := Locate(dir)
	if err != nil {
		return nil, err
	}
	if need := opts.Size + logSize + reserve; where.FreeBytes < need {
		return nil, fmt.Errorf("%s has %s free, but the probes need %s (a %s working set, a %s log and %s to spare): free space there or give a smaller --size (at least %s)",
			dir, bytesText(where.FreeBytes), bytesText(need), bytesText(opts.Size), bytesText(logSize), bytesText(reserve), bytesText(MinSize))
	}
	res := &FitResult{Where: where, Started: time.Now().UTC(), Size: opts.Size, Rounds: opts.Rounds, Budget: opts.Budget,
		Kernel: kernelRelease(), Name: opts.Name}
	res.Host, _ = os.Hostname()
	if res.Name == "" {
		res.Name = "twin-" + nameOf(where)
	}
	ws, err := openWorkingSet(where.Dir, opts.Size)
	if err != nil {
		return nil, err
	}
	defer ws.remove()
	say := func(format string, args ...any) {
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, format+"\n", args...)
		}
	}
	say("fit %s: %s, a %s working set, %d rounds of %d probes", dir, where.Describe(), bytesText(opts.Size), opts.Rounds, len(probes))
	t0 := time.Now()
	if err := ws.fill(ctx); err != nil {
		return nil, err
	}
	say("preconditioned: %s written in %.1f s", bytesText(opts.Size+logSize), time.Since(t0).Seconds())
	runs := make([][]round, len(probes))
	for r := range opts.Rounds {
		for i, p := range probes {
			rd, err := ws.run(ctx, p, opts.Budget, maxPerRound, uint64(r*len(probes)+i+1))
			if err != nil {
				return nil, err
			}
			if rd.requests == 0 {
				return nil, fmt.Errorf("probe %s: no request completed within %v: give a longer --budget", p.Name, opts.Budget)
			}
			runs[i] = append(runs[i], rd)
			say("round %d/%d %-18s %10.1f %s", r+1, opts.Rounds, p.Name, p.figure(rd), p.Metric)
		}
	}
	// the wall time of the measurement, for the file's header (deriving takes a
	// fraction of a second)
	res.Wall = time.Since(res.Started)
	if err := res.derive(runs); err != nil {
		return nil, err
	}
	return res, nil
}

// measured is one probe's rounds and their pooled latencies.
type measured struct {
	probe  probe
	rounds []round
	pooled []time.Duration // every round's latencies, sorted
}

func (m measured) result() ProbeResult {
	r := ProbeResult{Probe: m.probe.Name, Metric: m.probe.Metric}
	for _, rd := range m.rounds {
		r.Rounds = append(r.Rounds, round3(m.probe.figure(rd)))
		r.Requests += rd.requests
	}
	if m.probe.Metric == metricMeanLatency {
		r.Measured = meanUs(m.pooled)
	} else {
		r.Measured = median(r.Rounds)
	}
	r.Measured = round3(r.Measured)
	r.CVPct = round3(cv(r.Rounds) * 100)
	return r
}

// quantileUs is the q-quantile of sorted latencies, in microseconds (nearest rank).
func quantileUs(sorted []time.Duration, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return float64(sorted[min(max(i, 0), len(sorted)-1)]) / 1e3
}

// tailUs is the mean of the latencies above the q-quantile, in microseconds; the
// quantile itself when none is above it.
func tailUs(sorted []time.Duration, q float64) float64 {
	i := int(math.Ceil(q * float64(len(sorted))))
	if i >= len(sorted) {
		return quantileUs(sorted, q)
	}
	return meanUs(sorted[i:])
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// cv is the sample coefficient of variation (standard deviation over mean); 0 for
// fewer than two values.
func cv(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	if mean == 0 {
		return 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss/float64(len(xs)-1)) / mean
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// nameOf is the device's name for a profile: its kernel name, else the file system's
// source's last element.
func nameOf(w *Where) string {
	name := w.Device
	if name == "" {
		name = w.Source[strings.LastIndexByte(w.Source, '/')+1:]
	}
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return '-'
	}, name)
	if clean == "" {
		return "device"
	}
	return clean
}

func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return runtime.GOOS
	}
	return strings.TrimSpace(string(b))
}

// bytesText is a size for people: 4 GiB, 512 MiB, 1.5 GiB.
func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<30))) + " GiB"
	case n >= 1<<20:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<20))) + " MiB"
	case n >= 1<<10:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<10))) + " KiB"
	}
	return fmt.Sprintf("%d bytes", n)
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// registryWith is the built-in profiles plus p.
func registryWith(p *device.Profile) (*device.Registry, error) {
	reg, err := device.Builtin()
	if err != nil {
		return nil, err
	}
	return reg, reg.Add(p)
}
