package emulator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"tierbench/internal/device"
)

// ReplayResult is what a device would have spent on a trace.
type ReplayResult struct {
	Spec     string `json:"spec"`
	Requests int64  `json:"requests"`
	// IOTime is the sum of every request's latency (completion - submit): the time the
	// workload waited on I/O, summed over its threads.
	IOTime time.Duration `json:"io_time_ns"`
	// Busy is the device's busy time; Span the time from the first submit to the last
	// completion.
	Busy    time.Duration `json:"busy_ns"`
	Span    time.Duration `json:"span_ns"`
	Latency Histogram     `json:"latency"`
	Model   device.Stats  `json:"model"`
	EnergyJ float64       `json:"energy_j"`
	// TraceFormat is the trace file's format version (1: without checksums).
	TraceFormat int `json:"trace_format"`
	// Checked says every request replayed was covered by a matching checksum and the
	// trace's end marker was found.
	Checked bool `json:"checked"`
	// Incomplete says where a trace that ends early ends (ReplayOptions.Partial); the
	// result covers the requests before that point.
	Incomplete string `json:"incomplete,omitempty"`
}

// ReplayOptions tune Replay.
type ReplayOptions struct {
	// Partial replays a trace that ends early (a recording stopped by a killed emulator,
	// a copy cut short) up to where it ends, and says so in Incomplete, instead of
	// refusing it. A damaged trace is refused either way.
	Partial bool
}

// Replay submits the requests of tr to m at their recorded times. The trace is open
// loop: a request is submitted when it was in the recording, however long the replayed
// device takes, so a slower device than the recorded one shows as longer latencies, not
// a later workload. Memory stays bounded whatever the trace's length (one block of the
// trace, and the model's own state); ctx stops a long replay.
func Replay(ctx context.Context, tr *TraceReader, m device.Model, opts ReplayOptions) (ReplayResult, error) {
	res := ReplayResult{Spec: m.Name(), TraceFormat: tr.Format()}
	tr.Partial = opts.Partial
	var first, last time.Duration
	for {
		if res.Requests%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
		}
		r, err := tr.Next()
		if err == io.EOF {
			break
		}
		var te *TraceError
		if opts.Partial && errors.As(err, &te) && errors.Is(err, ErrTraceTruncated) {
			res.Incomplete = te.Error()
			break
		}
		if err != nil {
			return res, err
		}
		done := m.Submit(r.At, r.Request)
		lat := done - r.At
		if lat < 0 || res.IOTime > math.MaxInt64-lat {
			// Open loop: a device much slower than the recorded one falls ever further
			// behind, and the latencies' sum can pass what int64 nanoseconds hold.
			return res, fmt.Errorf("request %d: the sum of latencies passes 292 years, the longest time tierbench counts: %s falls ever further behind this trace",
				res.Requests+1, m.Name())
		}
		if res.Requests == 0 {
			first = r.At
		}
		last = max(last, done)
		res.IOTime += lat
		res.Latency.Record(lat)
		res.Requests++
	}
	res.Checked = tr.Checked()
	res.Span = last - first
	res.Model = m.Stats()
	res.Busy = res.Model.Busy
	res.EnergyJ = device.Energy(m, last)
	return res, nil
}

// ReplayFile replays the trace file at path through a fresh model of spec.
func ReplayFile(ctx context.Context, path, spec string, opts ReplayOptions, profiles ...string) (ReplayResult, error) {
	reg, err := device.Load(profiles...)
	if err != nil {
		return ReplayResult{}, err
	}
	m, err := buildModel(reg, spec)
	if err != nil {
		return ReplayResult{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return ReplayResult{}, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	tr, err := NewTraceReader(f)
	if err != nil {
		return ReplayResult{}, fmt.Errorf("trace %s: %w", path, err)
	}
	res, err := Replay(ctx, tr, m, opts)
	if err != nil {
		return ReplayResult{}, fmt.Errorf("trace %s: %w", path, err)
	}
	return res, nil
}
