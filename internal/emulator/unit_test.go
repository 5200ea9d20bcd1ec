package emulator

import (
	"encoding/json"
	"errors"
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

func TestRemoteErrorKeepsSentinels(t *testing.T) {
	tooFast := remoteError("device data: " + ErrTooFast.Error() + ": nvme answers in 22us")
	if !errors.Is(tooFast, ErrTooFast) || errors.Is(tooFast, ErrNoFUSE) {
		t.Errorf("%q: Is(ErrTooFast) = %v, Is(ErrNoFUSE) = %v; want true, false", tooFast, errors.Is(tooFast, ErrTooFast), errors.Is(tooFast, ErrNoFUSE))
	}
	other := remoteError("mount /x: permission denied")
	if errors.Is(other, ErrTooFast) || errors.Is(other, ErrNoFUSE) {
		t.Errorf("%q matches a sentinel", other)
	}
}
