package postmark

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// needPostmark finds Debian's postmark (scripts/setup installs it). Under CI=true its
// absence fails the test.
func needPostmark(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("postmark")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but postmark is not installed (apt-get install postmark; scripts/setup does): %v", err)
		}
		t.Skipf("postmark is not installed (apt-get install postmark): %v", err)
	}
	return bin
}

// shortTempDir is a new directory with a short path, removed after the test:
// postmark keeps each file's path in 80 bytes and overruns them with a longer one
// (t.TempDir's paths carry the test's name). It is on /dev/shm when there is one:
// the counts do not depend on the file system, and a tmpfs keeps the test fast on a
// loaded disk; postmark and the model always run on the same one.
func shortTempDir(t *testing.T) string {
	t.Helper()
	parent := ""
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		parent = "/dev/shm"
	}
	dir, err := os.MkdirTemp(parent, "tbpm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// postmarkReport is what postmark prints: its counts and its data totals as printed.
type postmarkReport struct {
	created, createdAlone, createdMixed, read, appended, deleted, deletedAlone, deletedMixed int64
	dataRead, dataWritten                                                                    string
	outOfFiles                                                                               bool
}

// postmarkScript is the command script that sets cfg's parameters and runs once in dir.
func postmarkScript(dir string, cfg Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "set location %s\nset number %d\nset transactions %d\nset size %d %d\n", dir, cfg.Files, cfg.Transactions, cfg.SizeMin, cfg.SizeMax)
	if cfg.Subdirs > 0 { // postmark refuses 0, which is its default
		fmt.Fprintf(&b, "set subdirectories %d\n", cfg.Subdirs)
	}
	fmt.Fprintf(&b, "set read %d\nset write %d\nset buffering %t\nset bias read %d\nset bias create %d\nset seed %d\nrun\nquit\n",
		cfg.ReadBlock, cfg.WriteBlock, cfg.Buffered, cfg.ReadBias, cfg.CreateBias, cfg.Seed)
	return b.String()
}

var (
	pmCount = regexp.MustCompile(`(?m)^\s*(\d+) (created|read|appended|deleted) \(`)
	pmAlone = regexp.MustCompile(`(Creation|Deletion) alone: (\d+) files`)
	pmMixed = regexp.MustCompile(`Mixed with transactions: (\d+) files`)
	pmData  = regexp.MustCompile(`(?m)^\s*([\d.]+ (?:megabytes|kilobytes|bytes)) (read|written) \(`)
)

// runPostmark runs the real postmark with cfg in a new directory inside parent.
func runPostmark(t *testing.T, bin, parent string, cfg Config) postmarkReport {
	t.Helper()
	dir := filepath.Join(parent, "postmark")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = dir // postmark reads a .pmrc from its working directory: there is none here
	cmd.Stdin = strings.NewReader(postmarkScript(dir, cfg))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("postmark: %v\n%s", err, out)
	}
	text := string(out)
	if strings.Contains(text, "Error") {
		t.Fatalf("postmark did not take the script:\n%s", text)
	}
	var r postmarkReport
	r.outOfFiles = strings.Contains(text, "out of files!")
	if r.outOfFiles {
		return r
	}
	counts := map[string]*int64{"created": &r.created, "read": &r.read, "appended": &r.appended, "deleted": &r.deleted}
	for _, m := range pmCount.FindAllStringSubmatch(text, -1) {
		*counts[m[2]], _ = strconv.ParseInt(m[1], 10, 64)
	}
	for _, m := range pmAlone.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		if m[1] == "Creation" {
			r.createdAlone = n
		} else {
			r.deletedAlone = n
		}
	}
	mixed := pmMixed.FindAllStringSubmatch(text, -1)
	data := pmData.FindAllStringSubmatch(text, -1)
	if len(mixed) != 2 || len(data) != 2 || r.created == 0 {
		t.Fatalf("postmark's report did not parse:\n%s", text)
	}
	r.createdMixed, _ = strconv.ParseInt(mixed[0][1], 10, 64)
	r.deletedMixed, _ = strconv.ParseInt(mixed[1][1], 10, 64)
	r.dataRead, r.dataWritten = data[0][1], data[1][1]
	return r
}

// postmarkBytes prints a byte total as postmark does ("%.2f megabytes" above 1 MiB,
// else kilobytes). Postmark sums bytes in a single-precision float, which is exact
// for whole numbers below 2^24.
func postmarkBytes(t *testing.T, n int64) string {
	t.Helper()
	if n >= 1<<24 {
		t.Fatalf("%d bytes: above 2^24 postmark's float total is no longer exact; keep the case smaller", n)
	}
	f := float32(n)
	if f/(1<<20) > 1 {
		return fmt.Sprintf("%.2f megabytes", f/(1<<20))
	}
	if f/(1<<10) != 0 {
		return fmt.Sprintf("%.2f kilobytes", f/(1<<10))
	}
	return fmt.Sprintf("%f bytes", f)
}

// TestMatchesPostmark runs Debian's postmark and the model with the same parameters in
// directories of the same file system and compares every count postmark prints, and
// its data totals, exactly.
func TestMatchesPostmark(t *testing.T) {
	bin := needPostmark(t)
	def := PostmarkDefaults()
	with := func(f func(*Config)) Config { c := def; f(&c); return c }
	cases := []struct {
		name string
		cfg  Config
	}{
		{"postmark's defaults", def},
		{"subdirectories, unbuffered, biased", with(func(c *Config) {
			c.Files, c.Transactions, c.SizeMin, c.SizeMax, c.Subdirs = 200, 1000, 100, 12000, 7
			c.ReadBlock, c.WriteBlock, c.Buffered, c.ReadBias, c.CreateBias, c.Seed = 1024, 4096, false, 3, 7, 1234
		})},
		{"fixed size: appends do nothing", with(func(c *Config) {
			c.Files, c.Transactions, c.SizeMin, c.SizeMax, c.ReadBias, c.Seed = 50, 1000, 4096, 4096, 0, 99
		})},
		{"creates only: the table fills", with(func(c *Config) {
			c.Files, c.Transactions, c.CreateBias, c.ReadBias, c.Seed = 30, 100, 10, 8, 5
		})},
		{"no reads or appends", with(func(c *Config) {
			c.Files, c.Transactions, c.ReadBias, c.CreateBias, c.Subdirs, c.Seed = 100, 800, -1, 6, 1, 77
		})},
		{"largest seed", with(func(c *Config) {
			c.Files, c.Transactions, c.SizeMin, c.SizeMax, c.Subdirs, c.Seed = 150, 900, 1, 30000, 20, maxSeed
		})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parent := shortTempDir(t)
			pm := runPostmark(t, bin, parent, tc.cfg)
			res, err := Run(context.Background(), parent, tc.cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := postmarkReport{res.Created, res.CreatedAlone, res.CreatedMixed, res.Read, res.Appended,
				res.Deleted, res.DeletedAlone, res.DeletedMixed,
				postmarkBytes(t, res.BytesRead), postmarkBytes(t, res.BytesWritten), res.OutOfFiles}
			if got != pm {
				t.Fatalf("model %+v\npostmark %+v", got, pm)
			}
			if res.Transactions != int64(tc.cfg.Transactions) {
				t.Errorf("%d transactions, want %d", res.Transactions, tc.cfg.Transactions)
			}
		})
	}
}

// A pool that empties before the transactions end: postmark prints "out of files!",
// and the model, having worked the run out first, refuses it.
func TestOutOfFilesAsPostmark(t *testing.T) {
	bin := needPostmark(t)
	cfg := PostmarkDefaults()
	cfg.Files, cfg.Transactions, cfg.CreateBias = 40, 1000, 2
	parent := shortTempDir(t)
	if pm := runPostmark(t, bin, parent, cfg); !pm.outOfFiles {
		t.Fatal("postmark did not run out of files: pick another case")
	}
	_, err := Run(context.Background(), parent, cfg, Options{})
	oof, ok := err.(*OutOfFilesError)
	if !ok {
		t.Fatalf("want an OutOfFilesError, got %v", err)
	}
	if oof.After <= 0 || oof.After >= int64(cfg.Transactions) {
		t.Errorf("ran out after %d transactions", oof.After)
	}
}

// Postmark's numbers come from its own Mersenne Twister, not the C library: Debian's
// binary imports none of rand, srand, random or srandom. Were a build to switch to
// them, this says why TestMatchesPostmark then fails.
func TestPostmarkImportsNoLibcRandom(t *testing.T) {
	bin := needPostmark(t)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.ImportedSymbols()
	if err != nil {
		t.Fatal(err)
	}
	if len(syms) == 0 {
		t.Fatal("postmark imports nothing: not the dynamically linked binary this test knows")
	}
	for _, s := range syms {
		switch s.Name {
		case "rand", "srand", "random", "srandom", "rand_r", "drand48", "srand48":
			t.Errorf("postmark imports %s from %s: its numbers may no longer be MT19937's", s.Name, s.Library)
		}
	}
}
