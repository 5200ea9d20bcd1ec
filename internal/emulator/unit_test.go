package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestLayout(t *testing.T) {
	l := newLayout()
	l.open(10, 3*chunkSize+1) // 4 chunks at device chunks 0..3
	l.open(20, 0)
	tests := []struct {
		name       string
		file       uint64
		off, size  int64
		wantDevice int64
	}{
		{"existing file, first byte", 10, 0, 0, 0},
		{"existing file, inside", 10, 2*chunkSize + 5, 0, 2*chunkSize + 5},
		{"new file, first write", 20, 100, 101, 4*chunkSize + 100},
		{"existing file grows", 10, 4 * chunkSize, 4*chunkSize + 1, 5 * chunkSize},
		{"new file grows on", 20, chunkSize + 7, chunkSize + 8, 6*chunkSize + 7},
		{"truncated file read at random lays out to its end", 30, 2 * chunkSize, 8 * chunkSize, 9 * chunkSize},
		{"then its first chunk is in order", 30, 0, 8 * chunkSize, 7 * chunkSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := l.device(tt.file, tt.off, tt.size); got != tt.wantDevice {
				t.Fatalf("device(%d, %d) = %d (chunk %d), want %d (chunk %d)", tt.file, tt.off, got, got/chunkSize, tt.wantDevice, tt.wantDevice/chunkSize)
			}
		})
	}
}

func TestHistogram(t *testing.T) {
	var h Histogram
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	for _, q := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}, {0.001, time.Microsecond}} {
		got := h.Quantile(q.q)
		if d := float64(got-q.want) / float64(q.want); d > 1.0/16 || d < -1.0/16 {
			t.Errorf("q%.3f = %v, want %v within 6%%", q.q, got, q.want)
		}
	}
	if h.Mean() != 500500*time.Nanosecond {
		t.Errorf("mean %v", h.Mean())
	}
	b, err := json.Marshal(&h)
	if err != nil {
		t.Fatal(err)
	}
	var back Histogram
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != h {
		t.Fatal("histogram does not survive JSON")
	}
}

// TestRemoteErrorKeepsData: a server's failure crosses to Start as its text and its
// data: the too-fast refusal with its figures, ErrNoFUSE, or neither.
func TestRemoteErrorKeepsData(t *testing.T) {
	tf := &TooFastError{Device: "data", Spec: "nvme", Read8K: 22245 * time.Nanosecond, Floor: 17600 * time.Nanosecond}
	wantText := "device too fast for this host: use trace replay: nvme answers a random 8 KiB read in 22.245µs, but this host's FUSE round trip alone is 18µs: record a trace on a slower device and replay it through nvme (tierbench device replay)"
	if tf.Error() != wantText {
		t.Errorf("text\n%s\nwant\n%s", tf, wantText)
	}
	pre := &TooFastError{Device: "data", Spec: "dram-ssd", Path: PathPreload, Read8K: 3200 * time.Nanosecond, Floor: 4140 * time.Nanosecond}
	if want := "dram-ssd answers a random 8 KiB read in 3.2µs, but this host's preload round trip alone is 4.1µs"; pre.Compare("dram-ssd") != want {
		t.Errorf("preload figures\n%s\nwant\n%s", pre.Compare("dram-ssd"), want)
	}
	for _, tc := range []struct {
		err             error
		tooFast, noFUSE bool
		want            *TooFastError
	}{
		{fmt.Errorf("device data: %w", tf), true, false, tf},
		{fmt.Errorf("device data: %w", pre), true, false, pre},
		{fuseUnavailable("/dev/fuse missing"), false, true, nil},
		{preloadUnavailable(errors.New("preload ring: device directory too long")), false, false, nil},
		{errors.New("mount /x: permission denied"), false, false, nil},
	} {
		b, err := json.Marshal(failure(tc.err))
		if err != nil {
			t.Fatal(err)
		}
		var msg serverMessage
		if err := json.Unmarshal(b, &msg); err != nil {
			t.Fatal(err)
		}
		got := msg.remoteError()
		var back *TooFastError
		if got.Error() != tc.err.Error() || errors.Is(got, ErrTooFast) != tc.tooFast || errors.Is(got, ErrNoFUSE) != tc.noFUSE ||
			errors.Is(got, ErrNoPreload) != errors.Is(tc.err, ErrNoPreload) || errors.As(got, &back) != tc.tooFast {
			t.Errorf("%q came back as %q: too fast %v, no FUSE %v; want %v, %v", tc.err, got, errors.Is(got, ErrTooFast), errors.Is(got, ErrNoFUSE), tc.tooFast, tc.noFUSE)
		}
		if tc.tooFast && *back != *tc.want {
			t.Errorf("figures %+v, want %+v", back, tc.want)
		}
	}
}

// TestHistogramReplace: a value taken out and another put in its place: the count
// stays, the sum and quantiles follow; a value never recorded is just added.
func TestHistogramReplace(t *testing.T) {
	var h Histogram
	for _, v := range []time.Duration{0, 0, 100, 1000} {
		h.Record(v)
	}
	h.Replace(0, 50*time.Microsecond)
	if h.Count() != 4 || h.Mean() != (0+100+1000+50000)/4 || h.Max() != 50*time.Microsecond {
		t.Errorf("after replacing 0: count %d mean %v max %v", h.Count(), h.Mean(), h.Max())
	}
	h.Replace(0, 2000) // the last 0: the minimum moves to the least bucket left (100)
	if h.Count() != 4 || h.minV != 100 {
		t.Errorf("after replacing the last 0: count %d, least %v", h.Count(), h.minV)
	}
	h.Replace(7, 3000) // never recorded
	if h.Count() != 5 {
		t.Errorf("count %d, want 5", h.Count())
	}
}
