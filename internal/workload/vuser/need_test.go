package vuser

import (
	"strings"
	"testing"

	"tierbench/internal/engine"
)

// TestRunNeed: users times tierbench's own cost and, for a server tierbench runs,
// the engine's session; an external server's memory is not this host's.
func TestRunNeed(t *testing.T) {
	d := &engine.Dialect{Name: "postgres", Footprint: engine.Footprint{SessionMemory: 1 << 20}}
	n := RunNeed("oltp run --users 1000", 1000, d, false)
	if want := 1000 * float64(UserMemory+1<<20); n.Memory != want || n.Disk != 0 {
		t.Errorf("managed: memory %v disk %v, want %v and none", n.Memory, n.Disk, want)
	}
	if want := "about 1.1 MiB per user: 1.0 MiB for the postgres session and 128 KiB for tierbench's own"; n.Basis != want || n.What != "oltp run --users 1000" {
		t.Errorf("basis %q what %q, want %q", n.Basis, n.What, want)
	}
	n = RunNeed("x", 1000, d, true)
	if n.Memory != 1000*UserMemory || n.Basis != "about 128 KiB per user for tierbench" {
		t.Errorf("external: memory %v basis %q", n.Memory, n.Basis)
	}
}

func TestLoadersNeed(t *testing.T) {
	d := &engine.Dialect{Name: "mysql", Footprint: engine.Footprint{SessionMemory: 2 << 20}}
	n := LoadersNeed(3, d, false)
	if want := 3 * float64(LoaderMemory+2<<20); n.Memory != want {
		t.Errorf("memory %v, want %v", n.Memory, want)
	}
	if want := "3 loaders, about 4.0 MiB per loader: 2.0 MiB for the mysql session and 2.0 MiB for tierbench's own"; n.Basis != want {
		t.Errorf("basis %q, want %q", n.Basis, want)
	}
	if Loaders(0, d) < 2 || Loaders(5, d) != 5 {
		t.Errorf("Loaders(0) = %d, Loaders(5) = %d", Loaders(0, d), Loaders(5, d))
	}
	// One writer: the loads and their estimate are capped at one.
	lite := &engine.Dialect{Name: "sqlite", MaxWriters: 1, Footprint: engine.Footprint{SessionMemory: 2 << 20}}
	if n := LoadersNeed(0, lite, false); Loaders(8, lite) != 1 || n.Memory != float64(LoaderMemory+2<<20) || !strings.HasPrefix(n.Basis, "1 loader, ") {
		t.Errorf("one writer: Loaders(8) = %d, need %v %q", Loaders(8, lite), n.Memory, n.Basis)
	}
}
