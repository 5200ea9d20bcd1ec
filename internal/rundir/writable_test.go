package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnsureWritable: a missing directory is made, and one that cannot be written to
// is refused with the flag named and nothing left behind.
func TestEnsureWritable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := EnsureWritable("--out", dir); err != nil {
		t.Fatal(err)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Fatalf("%s: %v, entries %v: want an empty directory (the probe removed)", dir, err, ents)
	}
	if os.Geteuid() == 0 { // root writes anywhere
		return
	}
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{ro, filepath.Join(ro, "x")} {
		err := EnsureWritable("--out", d)
		if err == nil || !strings.HasPrefix(err.Error(), "--out "+d+": ") || !strings.HasSuffix(err.Error(), "choose a directory you can write to") {
			t.Errorf("%s: %v", d, err)
		}
	}
}
