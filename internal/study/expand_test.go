package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tierbench/internal/lifecycle"
	"tierbench/internal/metrics"
	"tierbench/internal/workload"
)

const twoByTwo = `name: t
workload: oltp
params: {mix: bbs, scale: 0.001, ramp: 0s, duration: 1s}
factors:
  engine: [sqlite, postgres]
  users: [1, 4]
repetitions: 2
baseline: {engine: sqlite}
`

// TestExpandCrossProduct: the first factor varies slowest; each cell sets each
// factor's parameter and the fixed ones; IDs name the levels.
func TestExpandCrossProduct(t *testing.T) {
	p := mustExpand(t, twoByTwo, "")
	var ids []string
	for _, c := range p.Cells {
		ids = append(ids, c.ID)
	}
	want := []string{"engine=sqlite,users=1", "engine=sqlite,users=4", "engine=postgres,users=1", "engine=postgres,users=4"}
	if !slices.Equal(ids, want) {
		t.Fatalf("cells %q, want %q", ids, want)
	}
	c := p.Cells[3]
	if c.Index != 3 || c.Workload != "oltp" || !slices.Equal(c.Values["engine"], []string{"postgres"}) ||
		!slices.Equal(c.Values["users"], []string{"4"}) || !slices.Equal(c.Values["mix"], []string{"bbs"}) {
		t.Errorf("cell 3: %+v", c)
	}
	if p.Factors[0].Axis != AxisCategory || p.Factors[1].Axis != AxisNumber {
		t.Errorf("axes %+v: engine categorical, users numeric", p.Factors)
	}
	// Fingerprints: distinct per cell, stable, and changed by any value.
	seen := map[string]bool{}
	for _, c := range p.Cells {
		if seen[c.Fingerprint] {
			t.Errorf("two cells share fingerprint %s", c.Fingerprint)
		}
		seen[c.Fingerprint] = true
	}
	again := mustExpand(t, twoByTwo, "")
	changed := mustExpand(t, strings.Replace(twoByTwo, "duration: 1s", "duration: 2s", 1), "")
	if again.Fingerprint != p.Fingerprint || changed.Fingerprint == p.Fingerprint || changed.Cells[0].Fingerprint == p.Cells[0].Fingerprint {
		t.Errorf("fingerprints: %s, again %s, changed %s", p.Fingerprint, again.Fingerprint, changed.Fingerprint)
	}
}

// TestExpandZipExcludeReferences: zipped factors pair their levels; exclude rules
// drop cells; a map level sets several parameters and ${name} takes another
// factor's level.
func TestExpandZipExcludeReferences(t *testing.T) {
	src := `name: t
workload: oltp
params: {mix: bbs, scale: 0.001, tier: ["ssd=${device}", "hdd=hdd-7200"]}
factors:
  placement:
    - {label: I, data: hdd, temp: hdd}
    - {label: II, data: ssd, temp: hdd}
  users: [1, 2, 4]
  duration: [1s, 2s, 3s]
  device: [sata-ssd, nvme]
  engine:
    - {label: sq, engine: sqlite, buffer: "${cache}"}
  cache: [64MB]
zip: [[users, duration]]
exclude:
  - {placement: II, users: [2, 4]}
`
	p := mustExpand(t, src, "")
	// placement 2 x (users,duration) 3 x device 2 x engine 1 x cache 1 = 12, minus
	// placement II with users 2 or 4 (2 x 2 = 4).
	if len(p.Cells) != 8 || p.Excluded != 4 {
		t.Fatalf("%d cells, %d excluded; want 8 and 4", len(p.Cells), p.Excluded)
	}
	for _, c := range p.Cells {
		u, d := c.Values["users"][0], c.Values["duration"][0]
		if map[string]string{"1": "1s", "2": "2s", "4": "3s"}[u] != d {
			t.Errorf("cell %s: users %s with duration %s, not zipped", c.ID, u, d)
		}
		if c.Values["buffer"][0] != "64MB" || c.Values["engine"][0] != "sqlite" {
			t.Errorf("cell %s: engine %v buffer %v", c.ID, c.Values["engine"], c.Values["buffer"])
		}
		if _, ok := c.Values["cache"]; ok {
			t.Errorf("cell %s: cache is a factor of its own, not a parameter", c.ID)
		}
	}
	c := p.Cell("placement=II,users=1,duration=1s,device=nvme,engine=sq,cache=64MB")
	if c == nil || c.Values["data"][0] != "ssd" || c.Values["temp"][0] != "hdd" || !slices.Equal(c.Values["tier"], []string{"ssd=nvme", "hdd=hdd-7200"}) {
		t.Fatalf("cell placement II: %+v", c)
	}
}

// TestExpandBadInput: each mistake is a line naming file:line: field and what is
// valid, and nothing expands.
func TestExpandBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"unknown field", "name: t\nworkload: oltp\nrepetition: 2\n", []string{"test.yaml:3: repetition: unknown field", "repetitions"}},
		{"unknown workload", "name: t\nworkload: nope\n", []string{"test.yaml:2: workload", `"nope"`}},
		{"unknown parameter", "name: t\nworkload: oltp\nparams: {mix: bbs, userz: 2}\n", []string{"test.yaml:3: params.userz", `no parameter "userz"`, "users"}},
		{"unknown factor", "name: t\nworkload: oltp\nparams: {mix: bbs}\nfactors:\n  colour: [red, blue]\n", []string{"test.yaml:5: factors.colour", `unknown factor "colour"`}},
		{"empty factor", "name: t\nworkload: oltp\nfactors:\n  users: []\n", []string{"test.yaml:4: factors.users", "empty"}},
		{"zip of unequal lengths", "name: t\nworkload: oltp\nparams: {mix: bbs}\nfactors:\n  users: [1, 2]\n  duration: [1s, 2s, 3s]\nzip: [users, duration]\n", []string{"test.yaml:7: zip[0]", "users 2, duration 3"}},
		{"exclude everything", "name: t\nworkload: oltp\nparams: {mix: bbs}\nfactors:\n  users: [1, 2]\nexclude:\n  - {users: [1, 2]}\n", []string{"test.yaml:7: exclude[0]", "remove all 2 cells"}},
		{"baseline not a cell", "name: t\nworkload: oltp\nparams: {mix: bbs}\nfactors:\n  users: [1, 2]\nbaseline: {users: 3}\n", []string{"test.yaml:6: baseline.users", `"3" is not a value of users`}},
		{"baseline excluded", "name: t\nworkload: oltp\nparams: {mix: bbs}\nfactors:\n  users: [1, 2]\nexclude: [{users: 1}]\nbaseline: {users: 1}\n", []string{"test.yaml:7: baseline", "not a cell", "exclude"}},
		{"bad repetitions", "name: t\nworkload: oltp\nrepetitions: 0\n", []string{"test.yaml:3: repetitions", "from 1 to 1000"}},
		{"bad order", "name: t\nworkload: oltp\norder: random\n", []string{"test.yaml:3: order", "fixed", "shuffled"}},
		{"out as parameter", "name: t\nworkload: oltp\nparams: {out: x}\n", []string{"test.yaml:3: params.out", "own --out"}},
		{"reference to nothing", "name: t\nworkload: oltp\nfactors:\n  data:\n    - {label: a, data: \"${dev}\"}\n", []string{"test.yaml:5", "${dev} refers to no factor"}},
		{"unknown size", "name: t\nworkload: oltp\nsizes:\n  quick: {repetitions: 1}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			size := ""
			if tc.want == nil {
				size = "huge"
				tc.want = []string{"--size huge", "valid sizes are quick"}
			}
			_, err := expand(t, tc.src, size)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			var fe *FileError
			if errors.As(err, &fe) && len(fe.Problems) > 3 {
				t.Errorf("%d problems for one mistake: %q", len(fe.Problems), fe.Problems)
			}
		})
	}
}

// TestValidateNamesTheCell: a value the command line refuses for one cell (a WAL
// tier apart on SQLite) is an error naming that cell and the flag, before anything
// runs.
func TestValidateNamesTheCell(t *testing.T) {
	src := `name: t
workload: oltp
params: {mix: bbs, tier: ["a=hdd-7200", "b=sata-ssd"], data: a}
factors:
  engine: [postgres, sqlite]
  wal: [b]
`
	p := mustExpand(t, src, "")
	err := p.Validate(context.Background(), t.TempDir())
	if err == nil {
		t.Fatal("a WAL tier on SQLite validated")
	}
	if !strings.Contains(err.Error(), "cell engine=sqlite,wal=b: ") || !strings.Contains(err.Error(), "--wal") || strings.Contains(err.Error(), "engine=postgres") {
		t.Errorf("error %q: want cell engine=sqlite,wal=b and --wal, and not the postgres cell", err)
	}
}

// TestValidateComposites: a device a cell's composite holds, given by ${} from
// another factor, is checked before anything runs, as the run would check it.
func TestValidateComposites(t *testing.T) {
	src := `name: t
workload: oltp
params: {mix: bbs}
factors:
  dev: [sata-ssd, hdd-9000]
  place:
    - {label: pc, data: "pagecache(${dev},size=64MiB)"}
`
	err := mustExpand(t, src, "").Validate(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `cell dev=hdd-9000,place=pc: --data pagecache(hdd-9000,size=64MiB): `) ||
		!strings.Contains(err.Error(), `unknown device profile "hdd-9000"`) || strings.Contains(err.Error(), "sata-ssd,place") {
		t.Errorf("error %v: want the hdd-9000 cell alone, and the profile", err)
	}
}

// TestOldWorkloadName: a study file that names the Postmark-compatible workload by
// its old name, files, still expands, validates and runs it as `postmark run`; the
// cell keeps the name as written, so that its fingerprint, and a resume of a study
// run before the rename, stay the same.
func TestOldWorkloadName(t *testing.T) {
	src := `name: t
workload: %s
params: {preset: low, dir: %s}
factors:
  transactions: [100, 200]
`
	dir := t.TempDir()
	old := mustExpand(t, fmt.Sprintf(src, "files", dir), "")
	now := mustExpand(t, fmt.Sprintf(src, "postmark", dir), "")
	if len(old.Cells) != 2 || old.Cells[0].Workload != "files" || !slices.Equal(old.Cells[0].Phases, []workload.Phase{workload.Run}) {
		t.Fatalf("cells %+v: want two runs of files", old.Cells)
	}
	if err := old.Validate(context.Background(), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if old.Cells[0].Fingerprint == now.Cells[0].Fingerprint {
		t.Error("the workload's name as written is not part of the fingerprint")
	}
	args, err := lifecycle.CommandArgs(old.Cells[1].Spec("out"))
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != 1 || !slices.Equal(args[0][:2], []string{"postmark", "run"}) || !slices.Contains(args[0], "--transactions=200") {
		t.Errorf("command %q: want postmark run --transactions=200", args)
	}
}

// TestExpandBaselineExcluded: a cell whose baseline cell an exclude rule removes is
// named in the plan's notes, and in the notes of the report Load reads, with the
// baseline it lacks: it would otherwise be reported without a comparison, silently.
func TestExpandBaselineExcluded(t *testing.T) {
	src := `name: t
workload: oltp
params: {mix: bbs, scale: 0.001, ramp: 0s, duration: 1s}
factors:
  engine: [sqlite, postgres]
  users: [1, 2]
exclude: [{engine: sqlite, users: 1}]
baseline: {users: 1}
`
	p := mustExpand(t, src, "")
	want := "1 cell is compared with no baseline: engine=sqlite,users=2 (its baseline engine=sqlite,users=1 is excluded); exclude it too, or keep a baseline cell for each"
	if !slices.Contains(p.Notes, want) {
		t.Errorf("notes %q, want %q", p.Notes, want)
	}
	against := baselineOf(p.Cells, p.Study.Baseline.Terms)
	if against["engine=postgres,users=2"] != "engine=postgres,users=1" || against["engine=postgres,users=1"] != "engine=postgres,users=1" {
		t.Errorf("baselines %v", against)
	}
	if _, ok := against["engine=sqlite,users=2"]; ok {
		t.Errorf("engine=sqlite,users=2 compared with %s, which is excluded", against["engine=sqlite,users=2"])
	}
	if n := unbased(mustExpand(t, twoByTwo, "").Cells, []Term{{Factor: "engine", Levels: []string{"sqlite"}}}); n != "" {
		t.Errorf("every cell has its baseline, yet: %s", n)
	}
	out := t.TempDir()
	if err := metrics.WriteJSONFile(filepath.Join(out, RecordFile), p.Record(All)); err != nil {
		t.Fatal(err)
	}
	res, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Notes, want) {
		t.Errorf("the report's notes %q lack %q", res.Notes, want)
	}
}

// levels writes n levels of a factor as a YAML list: prefix1, prefix2, ...
func levels(prefix string, n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// TestExpandLimit: a study's cells are counted before they are made, and a study of
// more than 10,000 (after its exclude rules) is refused in one line that says how the
// count came about; exclude rules that bring a large cross product under the limit
// are applied without making the cells they remove.
func TestExpandLimit(t *testing.T) {
	head := "name: t\nworkload: oltp\nparams: {mix: bbs}\nfactors:\n"
	huge := head + "  users: " + levels("", 100) + "\n  seed: " + levels("", 100) + "\n  think: " + levels("", 100) + "\n  interval: " + levels("", 100) + "\n"
	_, err := expand(t, huge, "")
	if err == nil || err.Error() != "test.yaml:4: factors: 100,000,000 cells (users 100 x seed 100 x think 100 x interval 100): a study holds at most 10,000 cells; vary fewer levels, zip factors that vary together, or split it into several studies" {
		t.Errorf("10^8 cells: %v", err)
	}
	wide := head + "  users: " + levels("", 200) + "\n  seed: " + levels("", 100) + "\n"
	var firstFifty []string
	for i := 1; i <= 50; i++ {
		firstFifty = append(firstFifty, fmt.Sprint(i))
	}
	_, err = expand(t, wide+"exclude: [{users: ["+strings.Join(firstFifty, ", ")+"]}]\n", "")
	if err == nil || err.Error() != "test.yaml:4: factors: 15,000 cells (users 200 x seed 100 = 20,000, of which 5,000 are excluded): a study holds at most 10,000 cells; vary fewer levels, zip factors that vary together, exclude more, or split it into several studies" {
		t.Errorf("15,000 cells after exclude rules: %v", err)
	}
	var first150 []string
	for i := 1; i <= 150; i++ {
		first150 = append(first150, fmt.Sprint(i))
	}
	p := mustExpand(t, wide+"exclude: [{users: ["+strings.Join(first150, ", ")+"]}]\n", "")
	if len(p.Cells) != 5000 || p.Excluded != 15000 || p.Cells[0].ID != "users=151,seed=1" || p.Cells[4999].ID != "users=200,seed=100" || p.Cells[4999].Index != 4999 {
		t.Errorf("%d cells, %d excluded, first %s, last %s", len(p.Cells), p.Excluded, p.Cells[0].ID, p.Cells[len(p.Cells)-1].ID)
	}
}

// TestValidateInterrupted: validation stops when its context ends (Ctrl-C, SIGTERM),
// saying that nothing ran, and the dry run with it.
func TestValidateInterrupted(t *testing.T) {
	p := mustExpand(t, twoByTwo, "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := p.Validate(ctx, t.TempDir())
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "interrupted while validating cell 1 of 4: nothing has run") {
		t.Errorf("validation after Ctrl-C: %v", err)
	}
	r := &Runner{Plan: p, Out: t.TempDir(), Shard: All, Stdout: io.Discard}
	if err := r.DryRun(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("dry run after Ctrl-C: %v", err)
	}
	if _, err := r.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("run after Ctrl-C: %v", err)
	}
}

// TestExpandZippedBaseline: a factor zipped to a baseline factor moves with it, so the
// baseline cell of users=4,duration=2s is users=1,duration=1s, which runs, and no cell
// is said to lack its baseline; without the zip partner, every cell but the baseline's
// would be.
func TestExpandZippedBaseline(t *testing.T) {
	src := "name: t\nworkload: oltp\nparams: {mix: bbs, scale: 0.001, ramp: 0s}\nfactors:\n  engine: [sqlite, postgres]\n  users: [1, 4]\n  duration: [1s, 2s]\nzip: [[users, duration]]\nbaseline: {users: 1}\n"
	p := mustExpand(t, src, "")
	for _, n := range p.Notes {
		if strings.Contains(n, "baseline") {
			t.Errorf("note %q: every cell has its baseline once duration moves with users", n)
		}
	}
	levels := func(f string) []string {
		return map[string][]string{"users": {"1", "4"}, "duration": {"1s", "2s"}}[f]
	}
	got := withZipped([]Term{{Factor: "users", Levels: []string{"1"}}}, [][]string{{"users", "duration"}}, levels)
	want := []Term{{Factor: "users", Levels: []string{"1"}}, {Factor: "duration", Levels: []string{"1s"}}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("withZipped = %v, want %v", got, want)
	}
	against := baselineOf(p.Cells, got)
	if len(against) != len(p.Cells) {
		t.Errorf("%d of %d cells have a baseline: %v", len(against), len(p.Cells), against)
	}
	if n := unbased(p.Cells, []Term{{Factor: "users", Levels: []string{"1"}}}); n == "" {
		t.Error("without its zip partner the baseline users=1 matches only the users=1 cells; unbased said nothing")
	}
}
