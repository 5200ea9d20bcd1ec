package capacity

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	lim := Limits{MemAvailable: 8 << 30, DiskFree: 100 << 30, DiskDir: "/srv"}
	cases := []struct {
		name     string
		need     Need
		resource string // "" for fits
	}{
		{"fits", Need{Memory: 1 << 30, Disk: 10 << 30, DiskDir: "/srv/x"}, ""},
		{"exactly the limit fits", Need{Memory: 8 << 30, Disk: 100 << 30, DiskDir: "/srv/x"}, ""},
		{"memory", Need{Memory: 8<<30 + 1}, "memory"},
		{"disk", Need{Disk: 101 << 30, DiskDir: "/srv/x"}, "disk"},
		{"memory first", Need{Memory: 9 << 30, Disk: 101 << 30, DiskDir: "/srv/x"}, "memory"},
		{"overflowed product", Need{Memory: math.Inf(1)}, "memory"},
		{"NaN estimate", Need{Disk: math.NaN(), DiskDir: "/srv"}, "disk"},
		{"disk without a directory is not checked", Need{Disk: 1 << 50}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := lim.Check(c.need)
			var tb *TooBigError
			if c.resource == "" {
				if err != nil {
					t.Fatalf("want no error, got %v", err)
				}
				return
			}
			if !errors.As(err, &tb) {
				t.Fatalf("want a TooBigError, got %v", err)
			}
			if tb.Resource != c.resource {
				t.Errorf("resource %q, want %q", tb.Resource, c.resource)
			}
		})
	}
}

func TestTooBigErrorText(t *testing.T) {
	lim := Limits{MemAvailable: 8 << 30, DiskFree: 50 << 30, DiskDir: "/srv"}
	err := lim.Check(Need{What: "tpcc load --warehouses 1000", Disk: 1000 * 100e6, DiskDir: "/srv/run", Basis: "about 100 MB per warehouse"})
	want := "tpcc load --warehouses 1000 needs about 93 GiB of disk on /srv, but this host has 50 GiB free (about 100 MB per warehouse): make it smaller, or give --ignore-limits to run it anyway"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		n    float64
		want string
	}{
		{0, "0 bytes"}, {1023, "1023 bytes"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"},
		{10 << 20, "10 MiB"}, {3.7 * (1 << 60), "3.7 EiB"}, {math.Inf(1), "more than any machine has"},
		{math.NaN(), "more than any machine has"},
	} {
		if got := Bytes(c.n); got != c.want {
			t.Errorf("Bytes(%v) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestHostLimits(t *testing.T) {
	dir := t.TempDir()
	lim, err := HostLimits(filepath.Join(dir, "not", "yet"))
	if err != nil {
		t.Fatal(err)
	}
	if lim.DiskDir != dir {
		t.Errorf("DiskDir %q, want the nearest existing parent %q", lim.DiskDir, dir)
	}
	if lim.MemAvailable <= 0 || lim.DiskFree <= 0 {
		t.Errorf("limits not read: %+v", lim)
	}
	// The host's own limits refuse what no host has, and Check's override lets it pass.
	huge := Need{What: "x", Memory: 1 << 62, DiskDir: dir}
	if err := Check(huge, false); err == nil || !strings.Contains(err.Error(), "memory") {
		t.Errorf("Check of 4 EiB of memory: %v", err)
	}
	if err := Check(huge, true); err != nil {
		t.Errorf("with the override: %v", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}
