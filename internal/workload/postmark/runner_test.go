package postmark

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tierbench/internal/capacity"
	"tierbench/internal/result"
)

// entries lists a directory's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestRunCountsAndRates(t *testing.T) {
	for _, buffered := range []bool{true, false} {
		cfg := small(func(c *Config) { c.Subdirs, c.Seed, c.Buffered, c.ReadBlock, c.WriteBlock = 3, 9, buffered, 700, 300 })
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "1"), []byte("the user's"), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), dir, cfg, Options{Preset: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != result.StatusOK || res.Counts != Simulate(cfg).Counts || res.Estimate.Counts != res.Counts {
			t.Fatalf("status %s, counts %+v, estimate %+v", res.Status, res.Counts, Simulate(cfg).Counts)
		}
		if got := entries(t, dir); len(got) != 1 || got[0] != "1" {
			t.Fatalf("directory holds %v after the run, want only the user's file", got)
		}
		if len(res.Phases) != 3 || res.Phases[0].Name != "create" || res.Phases[1].Name != "transactions" || res.Phases[2].Name != "delete" {
			t.Fatalf("phases %+v", res.Phases)
		}
		// Each phase's histograms hold exactly its operations.
		perPhase := map[string]map[string]int64{
			"create":       {"create": res.CreatedAlone},
			"transactions": {"create": res.CreatedMixed, "read": res.Read, "append": res.Appended, "delete": res.DeletedMixed},
			"delete":       {"delete": res.DeletedAlone},
		}
		var sum float64
		for _, p := range res.Phases {
			sum += p.Seconds
			for _, op := range OpNames() {
				if got, want := p.Ops[op].Count, perPhase[p.Name][op]; got != want {
					t.Errorf("phase %s: %d %s, want %d", p.Name, got, op, want)
				}
			}
		}
		if res.ElapsedS != sum || res.Ops["create"].Count != res.Created || res.Ops["read"].Count != res.Read {
			t.Errorf("elapsed %v (phases %v), ops %+v", res.ElapsedS, sum, res.Ops)
		}
		tx := res.Phases[1].Seconds
		if want := float64(res.Transactions) / tx; res.Rates.TransactionsPerS != want {
			t.Errorf("transactions/s %v, want %v", res.Rates.TransactionsPerS, want)
		}
		if want := float64(res.BytesWritten) / res.ElapsedS / (1 << 20); res.Rates.WrittenMiBs != want {
			t.Errorf("written MiB/s %v, want %v", res.Rates.WrittenMiBs, want)
		}
		if want := float64(res.DeletedAlone) / res.Phases[2].Seconds; res.Rates.DeletedAlonePerS != want {
			t.Errorf("deletion alone/s %v, want %v", res.Rates.DeletedAlonePerS, want)
		}
	}
}

// The executor writes what Postmark writes: the first n bytes of the source, in
// blocks, appended at the end; reads the whole file; deletes it.
func TestExecutorFileContents(t *testing.T) {
	for _, buffered := range []bool{true, false} {
		dir := t.TempDir()
		cfg := small(func(c *Config) { c.Buffered, c.ReadBlock, c.WriteBlock, c.SizeMax = buffered, 7, 5, 100 })
		src := []byte(strings.Repeat("0123456789", 10))
		x := newExecutor(dir, cfg, src)
		create := Op{Kind: Create, File: 4, Subdir: -1, Bytes: 23}
		if err := x.do(create); err != nil {
			t.Fatal(err)
		}
		if err := x.do(Op{Kind: Append, File: 4, Subdir: -1, Bytes: 12}); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "4"))
		if err != nil {
			t.Fatal(err)
		}
		if want := string(src[:23]) + string(src[:12]); string(got) != want {
			t.Fatalf("buffered %v: file holds %q, want %q", buffered, got, want)
		}
		if err := x.do(Op{Kind: Read, File: 4, Subdir: -1, Bytes: 35}); err != nil {
			t.Fatal(err)
		}
		// A file shorter than the table says is an error, not a silent short read.
		if err := x.do(Op{Kind: Read, File: 4, Subdir: -1, Bytes: 36}); err == nil || !strings.Contains(err.Error(), "shorter") {
			t.Fatalf("read past the end: %v", err)
		}
		if err := x.do(Op{Kind: Delete, File: 4, Subdir: -1}); err != nil {
			t.Fatal(err)
		}
		if err := x.do(Op{Kind: Delete, File: 4, Subdir: -1}); err == nil || !strings.Contains(err.Error(), "delete "+filepath.Join(dir, "4")) {
			t.Fatalf("deleting a missing file: %v", err)
		}
	}
}

// withAfterOp sets the test hook for one test.
func withAfterOp(t *testing.T, f func(Counts)) {
	afterOp = f
	t.Cleanup(func() { afterOp = nil })
}

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	withAfterOp(t, func(c Counts) {
		if c.CreatedMixed+c.DeletedMixed+c.Read+c.Appended == 5 {
			cancel()
		}
	})
	dir := t.TempDir()
	res, err := Run(ctx, dir, small(func(*Config) {}), Options{})
	if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "transactions phase") {
		t.Fatalf("err = %v", err)
	}
	if res == nil || res.Status != result.StatusInterrupted || res.CreatedAlone != 20 || len(res.Phases) != 2 {
		t.Fatalf("result %+v", res)
	}
	if res.Error == "" || res.ElapsedS <= 0 || res.Ops["create"].Count < 20 {
		t.Fatalf("what was measured is not kept: %+v", res)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}
}

func TestRunFailureKeepsWhatWasMeasured(t *testing.T) {
	dir := t.TempDir()
	broken := false
	withAfterOp(t, func(c Counts) {
		if c.CreatedAlone == 20 && !broken {
			broken = true
			work, _ := filepath.Glob(filepath.Join(dir, "tierbench-files-*"))
			for _, w := range work {
				os.RemoveAll(filepath.Join(w, "s1"))
			}
		}
	})
	res, err := Run(context.Background(), dir, small(func(c *Config) { c.Subdirs = 2 }), Options{})
	if err == nil || !strings.Contains(err.Error(), string(filepath.Separator)+"s1"+string(filepath.Separator)) {
		t.Fatalf("err = %v, want one naming a file in s1", err)
	}
	if res.Status != result.StatusFailed || res.CreatedAlone != 20 || res.Error != err.Error() {
		t.Fatalf("result %+v", res)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}
}

func TestIdleRun(t *testing.T) {
	dir := t.TempDir()
	res, err := Run(context.Background(), dir, Config{Idle: 20 * time.Millisecond}, Options{Preset: "non-load"})
	if err != nil || res.Status != result.StatusOK || res.IdleS < 0.02 || res.Created != 0 {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Fatalf("an idle run made %v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = Run(ctx, dir, Config{Idle: time.Hour}, Options{})
	if !errors.Is(err, context.Canceled) || res.Status != result.StatusInterrupted {
		t.Fatalf("interrupted idle run: %+v, %v", res, err)
	}
}

func TestCapacity(t *testing.T) {
	cfg := small(func(c *Config) { c.Subdirs = 5 })
	est := Simulate(cfg)
	n := need("/srv", cfg, est)
	if want := float64(est.PeakBytes) + float64(est.PeakFiles+5)*4096; n.Disk != want || n.DiskDir != "/srv" {
		t.Fatalf("disk %v in %s, want %v", n.Disk, n.DiskDir, want)
	}
	if want := float64(cfg.SizeMax + 2*cfg.Files*slotBytes + cfg.ReadBlock + cfg.WriteBlock); n.Memory != want {
		t.Fatalf("memory %v, want %v", n.Memory, want)
	}
	err := capacity.Limits{MemAvailable: 1 << 30, DiskFree: n.Disk - 1, DiskDir: "/srv"}.Check(n)
	var tb *capacity.TooBigError
	if !errors.As(err, &tb) || tb.Resource != "disk" {
		t.Fatalf("want a disk TooBigError, got %v", err)
	}
	for _, s := range []string{"postmark run --files 20 --size-max 10000 --transactions 200", "at most", "worked out from the run's own operations", "--ignore-limits"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q does not say %q", err, s)
		}
	}
	// A pool no disk holds is refused from what it holds whatever the draws, before
	// the estimate draws its numbers (which would take minutes and gigabytes here),
	// with what it needs on average.
	huge := small(func(c *Config) { c.Files, c.SizeMin, c.SizeMax = maxFiles, maxSize, maxSize })
	_, err = Check(context.Background(), t.TempDir(), huge, false, nil)
	if !errors.As(err, &tb) || !strings.Contains(err.Error(), "on average") {
		t.Fatalf("want a TooBigError from the pool alone, got %v", err)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{small(func(c *Config) { c.Files = 0 }), "--files 0: give the number of files in the pool"},
		{small(func(c *Config) { c.Transactions = -5 }), "--transactions -5:"},
		{small(func(c *Config) { c.SizeMin = 0 }), "--size-min 0:"},
		{small(func(c *Config) { c.SizeMin, c.SizeMax = 500, 400 }), "--size-max 400: give the largest file size in bytes, at least --size-min (500)"},
		{small(func(c *Config) { c.SizeMax = maxSize + 1 }), "--size-max 1073741825:"},
		{small(func(c *Config) { c.Subdirs = -1 }), "--subdirs -1:"},
		{small(func(c *Config) { c.ReadBlock = 0 }), "--read-block 0:"},
		{small(func(c *Config) { c.WriteBlock = maxBlock + 1 }), "--write-block 67108865:"},
		{small(func(c *Config) { c.ReadBias = 11 }), "--read-bias 11: give the chance of a read rather than an append in tenths, 0 to 10, or -1"},
		{small(func(c *Config) { c.CreateBias = -2 }), "--create-bias -2:"},
		{small(func(c *Config) { c.Seed = 0 }), "--seed 0: give a seed from 1 to 2147483647"},
		{Config{Idle: -time.Second}, "--idle -1s:"},
		{Config{Idle: time.Second, Files: 3}, "--idle 1s: an idle run (preset non-load) makes no files"},
	} {
		err := tc.cfg.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v, want a FieldError starting %q", err, tc.want)
		}
	}
	if err := PostmarkDefaults().Validate(); err != nil {
		t.Errorf("Postmark's defaults: %v", err)
	}
}

func TestOverride(t *testing.T) {
	base := PostmarkDefaults()
	user := Config{Files: 7, Buffered: false, Seed: 3, Idle: time.Second}
	got := base.Override(user, func(flag string) bool { return flag == "--files" || flag == "--buffered" })
	want := base
	want.Files, want.Buffered = 7, false
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

// Every preset is valid, completes (no pool runs dry), and its working set grows
// from level to level.
func TestPresets(t *testing.T) {
	var last int64 = -1
	for _, p := range Presets() {
		if err := p.Config.Validate(); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if p.Target == "" || p.Why == "" {
			t.Errorf("%s: say what it targets and why", p.Name)
		}
		got, err := LookupPreset(p.Name)
		if err != nil || got != p.Config {
			t.Fatalf("LookupPreset(%s) = %+v, %v", p.Name, got, err)
		}
		e := Simulate(p.Config)
		if e.OutOfFiles || e.PeakBytes <= last {
			t.Errorf("%s: out of files %v, peak %d bytes after %d", p.Name, e.OutOfFiles, e.PeakBytes, last)
		}
		last = e.PeakBytes
	}
	if _, err := LookupPreset("extreme"); err == nil || err.Error() != `--preset "extreme": give one of non-load, low, medium, high` {
		t.Errorf("unknown preset: %v", err)
	}
}

func ExampleWriteSummary() {
	r := &Result{Model: "Postmark 1.5", Status: result.StatusOK, Dir: "/srv/test", Preset: "low",
		Config:   small(func(c *Config) { c.Subdirs, c.ReadBlock, c.WriteBlock = 10, 4096, 4096 }),
		Counts:   Counts{Transactions: 200, Created: 120, CreatedAlone: 20, CreatedMixed: 100, Read: 95, Appended: 105, Deleted: 120, DeletedAlone: 16, DeletedMixed: 104, BytesRead: 3 << 20, BytesWritten: 5 << 20},
		ElapsedS: 2, Phases: []PhaseResult{{Name: "create", Seconds: 0.5}, {Name: "transactions", Seconds: 1}, {Name: "delete", Seconds: 0.5}},
		Estimate: Estimate{PeakBytes: 300 << 10, PeakFiles: 40},
	}
	r.rates()
	var b bytes.Buffer
	WriteSummary(&b, r)
	// The latency table's rows are empty here; print the head.
	os.Stdout.Write(b.Bytes()[:bytes.Index(b.Bytes(), []byte("  operation"))])
	// Output:
	// files (Postmark 1.5 model) in /srv/test, status ok
	// preset low: 20 files of 500 B to 10000 B in 10 subdirectories, 200 transactions, read/append bias 5, create/delete bias 5, blocks read 4 KiB write 4 KiB, buffered I/O, seed 42
	// time: 2.00 s total, create 0.50 s, transactions 1.00 s, delete 0.50 s
	// transactions: 200 (200.0 per second)
	// files: 120 created (60.0/s): alone 20 (40.0/s), with transactions 100 (100.0/s)
	//        95 read (95.0/s), 105 appended (105.0/s)
	//        120 deleted (60.0/s): alone 16 (32.0/s), with transactions 104 (104.0/s)
	// data: 3.00 MiB read (1.50 MiB/s), 5.00 MiB written (2.50 MiB/s); at most 300 KiB in 40 files at once
	// rates as Postmark divides them (result.json's definitions); MiB = 2^20 bytes, Postmark's megabyte
}

// Working a run out stops when the context ends: within one chunk of transactions of
// the cancel (a run of 2 billion transactions took minutes and ignored Ctrl-C), and
// while the source text's numbers are drawn or skipped.
func TestWorkingOutStopsWhenCancelled(t *testing.T) {
	cfg := small(func(c *Config) { c.Files, c.Transactions = 1000, maxSeed })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var at, last int64 = -1, 0
	_, err := simulate(ctx, cfg, func(drawn int64) {
		last = drawn
		if drawn > 100_000 && at < 0 {
			at = drawn
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// It stopped at its next look, a chunk of transactions on, telling nothing more.
	if at < 0 || last != at {
		t.Fatalf("cancelled at %d numbers drawn, went on to %d", at, last)
	}
	_, err = Check(ctx, t.TempDir(), cfg, false, nil)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "working the run out before it starts") {
		t.Fatalf("Check: %v", err)
	}
	for _, source := range []bool{true, false} {
		if _, err := newGenerator(ctx, small(func(c *Config) { c.SizeMax = maxSize }), source); !errors.Is(err, context.Canceled) {
			t.Fatalf("source text (kept: %v): %v", source, err)
		}
	}
}

// A working out that will take long says how long, once, from how far it got in its
// first moments; a short one says nothing.
func TestTimeNote(t *testing.T) {
	cfg := small(func(c *Config) { c.Transactions = 1_000_000 })
	exp := Expected{Draws: 6_000_000}
	for _, tc := range []struct {
		drawn int64 // after a quarter of a second
		want  string
	}{
		{60_000, "note: working out the run's 1000000 transactions before it starts (its exact counts and peak size, for the capacity check) takes about 25s more; Ctrl-C stops it\n"},
		{1_000_000, ""}, // 1.25 s more
	} {
		var notes strings.Builder
		clock := time.Unix(0, 0)
		note := timeNote(&notes, cfg, exp, func() time.Time { return clock })
		note(0)
		clock = clock.Add(100 * time.Millisecond)
		note(tc.drawn / 4) // too early to tell
		clock = clock.Add(150 * time.Millisecond)
		note(tc.drawn)
		clock = clock.Add(time.Second)
		note(tc.drawn * 2) // told once
		if notes.String() != tc.want {
			t.Errorf("after %d numbers in 0.25 s: %q, want %q", tc.drawn, notes.String(), tc.want)
		}
	}
	if timeNote(nil, cfg, exp, time.Now) != nil {
		t.Error("a note with nowhere to go")
	}
}

// An operation allocates nothing, buffered or not: its path, its stream and its
// buffers are reused (the garbage they made was a few percent of a run's CPU).
func TestExecutorAllocatesNothing(t *testing.T) {
	for _, buffered := range []bool{true, false} {
		cfg := small(func(c *Config) { c.Buffered, c.ReadBlock, c.WriteBlock, c.SizeMax = buffered, 512, 512, 10000 })
		x := newExecutor(t.TempDir(), cfg, bytes.Repeat([]byte("x"), cfg.SizeMax))
		ops := []Op{{Kind: Create, File: 1, Subdir: -1, Bytes: 5000}, {Kind: Append, File: 1, Subdir: -1, Bytes: 3000},
			{Kind: Read, File: 1, Subdir: -1, Bytes: 8000}, {Kind: Delete, File: 1, Subdir: -1}}
		for _, op := range ops { // the first file sets the buffers up
			if err := x.do(op); err != nil {
				t.Fatal(err)
			}
		}
		allocs := testing.AllocsPerRun(20, func() {
			for _, op := range ops {
				if err := x.do(op); err != nil {
					t.Fatal(err)
				}
			}
		})
		if allocs != 0 {
			t.Errorf("buffered %v: %v allocations a file's four operations", buffered, allocs)
		}
	}
}

// scripts/files-vs-postmark's parameter sets are Postmark's defaults and the load
// levels as they are here.
func TestScriptPresets(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "..", "scripts", "files-vs-postmark"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Config{"postmark": PostmarkDefaults()}
	for _, p := range Presets()[1:] {
		want[p.Name] = p.Config
	}
	line := regexp.MustCompile(`(?m)^\t\t(postmark|low|medium|high)\) (.*) ;;$`)
	found := 0
	for _, m := range line.FindAllStringSubmatch(string(text), -1) {
		found++
		var c Config
		fields := map[string]*int{"files": &c.Files, "transactions": &c.Transactions, "size_min": &c.SizeMin, "size_max": &c.SizeMax,
			"subdirs": &c.Subdirs, "read_block": &c.ReadBlock, "write_block": &c.WriteBlock}
		for _, kv := range strings.Fields(m[2]) {
			k, v, _ := strings.Cut(kv, "=")
			if k == "buffered" {
				c.Buffered = v == "true"
			} else if f, ok := fields[k]; ok {
				*f, err = strconv.Atoi(v)
				if err != nil {
					t.Fatalf("%s: %s", m[1], kv)
				}
			} else {
				t.Fatalf("%s: unknown %s", m[1], kv)
			}
		}
		w := want[m[1]]
		c.ReadBias, c.CreateBias, c.Seed = w.ReadBias, w.CreateBias, w.Seed // the script's defaults, as every level's
		if c != w {
			t.Errorf("the script's %s is %+v, want %+v", m[1], c, w)
		}
	}
	if found != len(want) {
		t.Errorf("the script has %d parameter sets, want %d", found, len(want))
	}
}

// monotonic is the clock time.Since measures with: its readings around two of
// time.Now's bracket their interval, whatever the load.
func TestMonotonic(t *testing.T) {
	for range 100 {
		a := monotonic()
		t0 := time.Now()
		x := 0
		for i := range 10_000 {
			x += i
		}
		t1 := time.Now()
		b := monotonic()
		if d := t1.Sub(t0); time.Duration(b-a) < d || d < 0 || x == 0 {
			t.Fatalf("monotonic %d ns around an interval of %v", b-a, d)
		}
	}
}
