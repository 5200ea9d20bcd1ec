package device

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		field, text string
		want        float64
		err         string
	}{
		{"controller_us", "200", 200, ""},
		{"controller_us", "200us", 200, ""},
		{"controller_us", "0.2ms", 200, ""},
		{"seek_avg_ms", "8500us", 8.5, ""},
		{"size_gib", "32GiB", 32, ""},
		{"size_gib", "512MiB", 0.5, ""},
		{"size_gib", "4g", 4, ""},
		{"page_kib", "16KiB", 16, ""},
		{"capacity_gb", "2TB", 2000, ""},
		{"link_mbps", "8gfc", 800, ""},
		{"link_mbps", "16GFC", 1600, ""},
		{"link_mbps", "1.6GB/s", 1600, ""},
		{"copy_gbps", "10GB/s", 10, ""},
		{"rpm", "1e4", 10000, ""},
		{"rpm", "fast", 0, `"fast" is not a number`},
		{"rpm", "7200rpm", 0, "rpm takes a plain number"},
		{"size_gib", "5ms", 0, `unit "ms" does not fit size_gib (a size such as 512MiB or 32GiB)`},
	}
	for _, tt := range tests {
		got, err := parseQuantity(tt.field, tt.text)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s=%s: error %v, want %q", tt.field, tt.text, err, tt.err)
			}
			continue
		}
		if err != nil || math.Abs(got-tt.want) > 1e-9*tt.want {
			t.Errorf("%s=%s: %v, %v; want %v", tt.field, tt.text, got, err, tt.want)
		}
	}
}

func TestBusyUnion(t *testing.T) {
	tests := []struct {
		name      string
		intervals [][2]time.Duration
		want      time.Duration
	}{
		{"disjoint", [][2]time.Duration{{0, 10}, {20, 30}}, 20},
		{"overlapping", [][2]time.Duration{{0, 10}, {5, 15}, {12, 20}}, 20},
		{"nested", [][2]time.Duration{{0, 100}, {10, 20}}, 100},
		{"out of order, bridging", [][2]time.Duration{{20, 30}, {0, 10}, {5, 25}}, 30},
		{"empty", [][2]time.Duration{{5, 5}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b busyTracker
			for _, iv := range tt.intervals {
				b.add(iv[0], iv[1])
			}
			if got := b.total(); got != tt.want {
				t.Errorf("busy %v, want %v", got, tt.want)
			}
			b.advance(1000)
			if got := b.total(); got != tt.want || len(b.pending) != 0 {
				t.Errorf("after advance: busy %v (%d pending), want %v", got, len(b.pending), tt.want)
			}
		})
	}
}

func TestXferIsExact(t *testing.T) {
	tests := []struct {
		n, rate int64
		want    time.Duration
	}{
		{4096, 409_600_000, 10 * time.Microsecond},
		{1 << 30, 10_000_000_000, 107374182}, // 1 GiB at 10 GB/s: no overflow
		{1, 3, 333333333},                    // truncated
		{0, 100, 0},
	}
	for _, tt := range tests {
		if got := xfer(tt.n, tt.rate); got != tt.want {
			t.Errorf("xfer(%d, %d) = %d, want %d", tt.n, tt.rate, got, tt.want)
		}
	}
}
