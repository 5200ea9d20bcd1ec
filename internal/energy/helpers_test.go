package energy

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// t0 is the start of every synthetic record.
var t0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// at is t0 plus s seconds.
func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// fakeSys copies testdata/sys (a RAPL tree) to a directory the test may change.
func fakeSys(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir("testdata/sys", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/sys", path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// setUJ sets a fake zone's counter.
func setUJ(t *testing.T, sys, zone string, uj uint64) {
	t.Helper()
	p := filepath.Join(sys, "class", "powercap", zone, "energy_uj")
	if err := os.WriteFile(p, []byte(strconv.FormatUint(uj, 10)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// noSys is a sysfs without powercap, as in a virtual machine.
func noSys(t *testing.T) string { return t.TempDir() }
