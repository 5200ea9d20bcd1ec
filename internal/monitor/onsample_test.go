package monitor

import (
	"math"
	"path/filepath"
	"testing"
	"time"
)

// TestOnSampleNonFinite: a value OnSample adds that JSON cannot hold (a meter's
// +Inf watts) is left out of its sample, as a source's is; the other values and
// every sample are written. Before, the first such sample failed to encode and
// metrics.jsonl stayed empty for the rest of the run.
func TestOnSampleNonFinite(t *testing.T) {
	dir := t.TempDir()
	m, err := New(Config{Interval: 5 * time.Millisecond, Dir: dir, Sources: []Source{&countingSource{}},
		OnSample: func(s *Sample) {
			s.Values["energy.meter.watts"] = math.Inf(1)
			s.Values["energy.cpu.watts"] = 5
			s.Values["energy.dram.watts"] = math.NaN()
		}})
	if err != nil {
		t.Fatal(err)
	}
	m.Start()
	waitFor(t, func() bool { l := m.Latest(); return l != nil && l.Values["count.reads"] >= 3 })
	if _, err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	samples, _, err := ReadSamples(filepath.Join(dir, JSONLinesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) < 3 {
		t.Fatalf("%d samples written, want every one (at least 3)", len(samples))
	}
	for _, s := range samples {
		_, meter := s.Values["energy.meter.watts"]
		_, dram := s.Values["energy.dram.watts"]
		if meter || dram || s.Values["energy.cpu.watts"] != 5 {
			t.Errorf("sample %v: want cpu's 5 W alone", s.Values)
		}
	}
}
