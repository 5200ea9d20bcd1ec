package postmark

import (
	"reflect"
	"testing"
)

func small(f func(*Config)) Config {
	c := PostmarkDefaults()
	c.Files, c.Transactions = 20, 200
	f(&c)
	return c
}

// Cases whose counts follow from Postmark's rules by hand, whatever the random numbers.
func TestSimulateByHand(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want Counts
	}{
		{
			// Every transaction creates: 20 slots are left after the pool of 20, then the
			// table is full and creates do nothing; every transaction reads (bias 10).
			"creates fill the table",
			small(func(c *Config) { c.Transactions, c.ReadBias, c.CreateBias, c.SizeMin, c.SizeMax = 50, 10, 10, 100, 100 }),
			Counts{Transactions: 50, Created: 40, CreatedAlone: 20, CreatedMixed: 20, Read: 50,
				Deleted: 40, DeletedAlone: 40, BytesRead: 50 * 100, BytesWritten: 40 * 100},
		},
		{
			// Every transaction deletes: the pool is empty after 20, and the 21st finds
			// no file. Appends (bias 0) to files of the fixed largest size do nothing.
			"deletes empty the pool",
			small(func(c *Config) { c.Transactions, c.ReadBias, c.CreateBias, c.SizeMin, c.SizeMax = 50, 0, 0, 64, 64 }),
			Counts{Transactions: 20, OutOfFiles: true, Created: 20, CreatedAlone: 20, Deleted: 20, DeletedMixed: 20, BytesWritten: 20 * 64},
		},
		{
			"both halves off",
			small(func(c *Config) { c.ReadBias, c.CreateBias, c.SizeMin, c.SizeMax = -1, -1, 10, 10 }),
			Counts{Transactions: 200, Created: 20, CreatedAlone: 20, Deleted: 20, DeletedAlone: 20, BytesWritten: 200},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Simulate(tc.cfg).Counts; got != tc.want {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// The rules that hold for every run: the splits add up, sizes stay in range, files
// are named in creation order and live in the subdirectory drawn for them.
func TestGeneratorInvariants(t *testing.T) {
	cfg := small(func(c *Config) {
		c.Files, c.Transactions, c.Subdirs, c.SizeMin, c.SizeMax, c.Seed = 300, 5000, 4, 10, 5000, 3
	})
	g := NewGenerator(cfg)
	if len(g.Source()) != cfg.SizeMax {
		t.Fatalf("source of %d bytes, want %d", len(g.Source()), cfg.SizeMax)
	}
	for _, b := range g.Source() {
		if b < 32 || b > 126 {
			t.Fatalf("source byte %d is not printable", b)
		}
	}
	size := map[int]int{} // slot -> size
	name := map[int]int{} // slot -> file number
	created := 0
	check := func(op Op) {
		switch op.Kind {
		case Create:
			created++
			if op.File != created {
				t.Fatalf("file named %d, want %d (the count of files created)", op.File, created)
			}
			if op.Bytes < cfg.SizeMin || op.Bytes >= cfg.SizeMax {
				t.Fatalf("new file of %d bytes, outside [%d, %d)", op.Bytes, cfg.SizeMin, cfg.SizeMax)
			}
			if _, used := size[op.Slot]; used {
				t.Fatalf("create into used slot %d", op.Slot)
			}
			if op.Subdir < 0 || op.Subdir >= cfg.Subdirs {
				t.Fatalf("subdirectory %d of %d", op.Subdir, cfg.Subdirs)
			}
			size[op.Slot], name[op.Slot] = op.Bytes, op.File
		case Append:
			size[op.Slot] += op.Bytes
			if op.Bytes < 1 || size[op.Slot] > cfg.SizeMax {
				t.Fatalf("append of %d bytes grows slot %d to %d, above %d", op.Bytes, op.Slot, size[op.Slot], cfg.SizeMax)
			}
		case Read, Delete:
			if op.Bytes != size[op.Slot] || op.File != name[op.Slot] {
				t.Fatalf("%s of slot %d: %d bytes of file %d, the table has %d bytes of file %d", op.Kind, op.Slot, op.Bytes, op.File, size[op.Slot], name[op.Slot])
			}
			if op.Kind == Delete {
				delete(size, op.Slot)
			}
		}
	}
	for range cfg.Files {
		check(g.PoolFile())
	}
	if len(size) != cfg.Files {
		t.Fatalf("pool of %d files, want %d", len(size), cfg.Files)
	}
	var ops []Op
	for range cfg.Transactions {
		var ok bool
		if ops, ok = g.Transaction(ops[:0]); !ok {
			t.Fatal("ran out of files")
		}
		if len(ops) > 2 {
			t.Fatalf("transaction of %d operations", len(ops))
		}
		for _, op := range ops {
			check(op)
		}
		if g.Live() != len(size) {
			t.Fatalf("Live %d, table %d", g.Live(), len(size))
		}
	}
	for _, op := range g.Remaining(nil) {
		check(op)
	}
	if len(size) != 0 {
		t.Fatalf("%d files left after Remaining", len(size))
	}
	e := Simulate(cfg)
	if e.Created != e.CreatedAlone+e.CreatedMixed || e.Deleted != e.DeletedAlone+e.DeletedMixed || e.Created != e.Deleted {
		t.Fatalf("splits do not add up: %+v", e.Counts)
	}
	if e.PeakFiles < int64(cfg.Files) || e.PeakFiles > 2*int64(cfg.Files) || e.PeakBytes < int64(cfg.Files*cfg.SizeMin) {
		t.Fatalf("peak %d files %d bytes", e.PeakFiles, e.PeakBytes)
	}
}

func TestGeneratorDeterministic(t *testing.T) {
	cfg := small(func(c *Config) { c.Seed = 11 })
	if a, b := Simulate(cfg), Simulate(cfg); a != b {
		t.Fatalf("same seed, different runs: %+v vs %+v", a, b)
	}
	other := cfg
	other.Seed = 12
	if a, b := Simulate(cfg), Simulate(other); a == b {
		t.Fatalf("seeds 11 and 12 gave the same run: %+v", a)
	}
}

// A fingerprint of Debian's postmark 1.53 (`set number 100`, `set transactions 500`,
// `set subdirectories 3`, `set seed 7`, the rest its defaults): what it printed, so a
// change to the generator shows without the binary (TestMatchesPostmark runs it).
func TestPostmarkFingerprint(t *testing.T) {
	cfg := PostmarkDefaults()
	cfg.Files, cfg.Transactions, cfg.Subdirs, cfg.Seed = 100, 500, 3, 7
	got := Simulate(cfg).Counts
	want := Counts{Transactions: 500, Created: 359, CreatedAlone: 100, CreatedMixed: 259, Read: 245, Appended: 254,
		Deleted: 359, DeletedAlone: 118, DeletedMixed: 241}
	got.BytesRead, got.BytesWritten = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v (postmark's report)", got, want)
	}
}

func TestOpPath(t *testing.T) {
	if p := (Op{File: 17, Subdir: -1}).Path(); p != "17" {
		t.Errorf("Path = %q", p)
	}
	if p := (Op{File: 17, Subdir: 3}).Path(); p != "s3/17" {
		t.Errorf("Path = %q", p)
	}
}
