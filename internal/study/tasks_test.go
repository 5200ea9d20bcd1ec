package study

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func taskKeys(ts *Tasks) []string {
	out := make([]string, len(ts.List))
	for i, t := range ts.List {
		out[i] = fmt.Sprintf("%s#%d", t.Cell.ID, t.Rep)
	}
	return out
}

// TestTasksNumbering: tasks go block by block (repetition 1 of each baseline group,
// then repetition 2), so that a block and a whole repetition are each a range of
// indices; shuffled draws the same numbers from the seed every time, and the record
// of the study numbers them as the plan does.
func TestTasksNumbering(t *testing.T) {
	fixed := mustExpand(t, twoByTwo, "")
	ts := fixed.Tasks()
	// baseline {engine: sqlite}: a group per level of users, each its sqlite cell and
	// the postgres cell compared with it.
	want := []string{"engine=sqlite,users=1#1", "engine=postgres,users=1#1", "engine=sqlite,users=4#1", "engine=postgres,users=4#1",
		"engine=sqlite,users=1#2", "engine=postgres,users=1#2", "engine=sqlite,users=4#2", "engine=postgres,users=4#2"}
	if got := taskKeys(ts); !slices.Equal(got, want) {
		t.Fatalf("fixed tasks %q, want %q", got, want)
	}
	wantBlocks := []Block{{0, 1, "engine=sqlite,users=1", 0, 1}, {1, 1, "engine=sqlite,users=4", 2, 3},
		{2, 2, "engine=sqlite,users=1", 4, 5}, {3, 2, "engine=sqlite,users=4", 6, 7}}
	if !slices.Equal(ts.Blocks, wantBlocks) || ts.Groups != 2 {
		t.Errorf("blocks %+v (%d groups), want %+v", ts.Blocks, ts.Groups, wantBlocks)
	}
	for i, task := range ts.List {
		if task.Index != i || task.Block != i/2 || ts.Of(task.Cell.ID, task.Rep).Index != i {
			t.Errorf("task %d: %+v", i, task)
		}
	}

	src := twoByTwo + "order: shuffled\nseed: 7\n"
	sh := mustExpand(t, src, "").Tasks()
	if again := mustExpand(t, src, "").Tasks(); !slices.Equal(taskKeys(sh), taskKeys(again)) {
		t.Errorf("seed 7 numbered %q, then %q", taskKeys(sh), taskKeys(again))
	}
	if slices.Equal(taskKeys(sh), want) {
		t.Errorf("shuffled tasks are in the fixed order: %q", taskKeys(sh))
	}
	if s := slices.Sorted(slices.Values(taskKeys(sh))); !slices.Equal(s, slices.Sorted(slices.Values(want))) {
		t.Errorf("shuffled tasks %q are not the study's runs", taskKeys(sh))
	}
	for _, b := range sh.Blocks {
		for _, task := range sh.List[b.First : b.Last+1] {
			if task.Rep != b.Rep || cellID(baselineLevels(task.Cell.Factors, mustExpand(t, src, "").Study.Baseline.Terms)) != b.Group {
				t.Errorf("task %d (%s rep %d) in block %+v", task.Index, task.Cell.ID, task.Rep, b)
			}
		}
	}
	// study.json numbers them the same: a report knows which tasks are missing.
	p := mustExpand(t, src, "")
	b, err := json.Marshal(p.Record(All))
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if got := taskKeys(rec.Tasks()); !slices.Equal(got, taskKeys(sh)) {
		t.Errorf("the record numbers %q, the plan %q", got, taskKeys(sh))
	}
	// Without a baseline a block is a repetition of every cell.
	nb := mustExpand(t, strings.Replace(twoByTwo, "baseline: {engine: sqlite}\n", "", 1), "").Tasks()
	if len(nb.Blocks) != 2 || nb.Groups != 1 || nb.Describe(nb.Blocks[1]) != "repetition 2 of every cell" {
		t.Errorf("no baseline: %+v", nb.Blocks)
	}
}

// TestHostRanges: machines blocked by host get whole blocks, as even as the blocks
// allow; the cuts are at the block boundaries nearest k x tasks / N.
func TestHostRanges(t *testing.T) {
	ts := mustExpand(t, twoByTwo, "").Tasks() // 4 blocks of 2 tasks
	for _, tc := range []struct {
		n    int
		want [][2]int
		text []string
	}{
		{1, [][2]int{{0, 7}}, []string{"repetitions 1 to 2 of every cell"}},
		{2, [][2]int{{0, 3}, {4, 7}}, []string{"repetition 1 of every cell", "repetition 2 of every cell"}},
		// targets 8/3 = 2.67 (boundary 2, not 4) and 5.33 (boundary 6, not 4)
		{3, [][2]int{{0, 1}, {2, 5}, {6, 7}}, []string{"repetition 1 of the cells compared with engine=sqlite,users=1",
			"repetition 1 of the cells compared with engine=sqlite,users=4; repetition 2 of the cells compared with engine=sqlite,users=1",
			"repetition 2 of the cells compared with engine=sqlite,users=4"}},
		{4, [][2]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}}, nil},
	} {
		got, err := ts.HostRanges(tc.n)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%d machines: %v %v, want %v", tc.n, got, err, tc.want)
		}
		for i, txt := range tc.text {
			if g := ts.RangeText(got[i][0], got[i][1]); g != txt {
				t.Errorf("%d machines, machine %d: %q, want %q", tc.n, i+1, g, txt)
			}
		}
	}
	if _, err := ts.HostRanges(5); err == nil || err.Error() != "the study has 4 blocks (2 repetitions of 2 baseline groups), so at most 4 machines can each run whole blocks" {
		t.Errorf("5 machines for 4 blocks: %v", err)
	}
}

// TestShardsBlockedByHost counts the baseline pairs of hybrid-placement whose cell
// and baseline run on different machines. Its 48 cells vary placement slowest (12
// cells a placement), and its baseline is placement I: the cell of placement p has
// index 12p + r and its baseline r, so whole-cell shards (K-1 modulo N) part them
// when 12p mod N is not 0: none for N = 2, 3, 4, 6 and 12, all 36 pairs for N = 5,
// 24 for N = 8 (p = 1 and 3). Shards blocked by host part none at any N, and split
// the runs as evenly as whole blocks allow.
func TestShardsBlockedByHost(t *testing.T) {
	f, err := Open("hybrid-placement")
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.At("")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(st)
	if err != nil {
		t.Fatal(err)
	}
	against := baselineOf(p.Cells, p.Study.Baseline.Terms)
	crossing := func(n int, b Blocking) int {
		where := map[runKey]int{}
		for k := 1; k <= n; k++ {
			for _, r := range p.Runs(Shard{K: k, N: n, Blocking: b}) {
				where[runKey{r.Cell.ID, r.Rep}] = k
			}
		}
		if len(where) != len(p.Cells)*p.Study.Repetitions {
			t.Fatalf("%d shards (%s) ran %d runs, want %d", n, b, len(where), len(p.Cells)*p.Study.Repetitions)
		}
		cross := 0
		for _, c := range p.Cells {
			for rep := 1; rep <= p.Study.Repetitions; rep++ {
				if base := against[c.ID]; base != c.ID && where[runKey{c.ID, rep}] != where[runKey{base, rep}] {
					cross++
					break // a pair that crosses in any repetition
				}
			}
		}
		return cross
	}
	for n, want := range map[int]int{2: 0, 3: 0, 4: 0, 5: 36, 6: 0, 8: 24, 12: 0} {
		if got := crossing(n, ByCell); got != want {
			t.Errorf("whole cells, %d shards: %d pairs cross machines, want %d", n, got, want)
		}
		if got := crossing(n, ByHost); got != 0 {
			t.Errorf("blocked by host, %d shards: %d pairs cross machines", n, got)
		}
	}
	// 24 blocks of 4 runs over 5 machines: 5, 5, 4, 5, 5 blocks.
	for k, want := range []int{20, 20, 16, 20, 20} {
		if got := len(p.Runs(Shard{K: k + 1, N: 5, Blocking: ByHost})); got != want {
			t.Errorf("shard %d/5 blocked by host: %d runs, want %d", k+1, got, want)
		}
	}
	var usage *UsageError
	if err := p.checkShard(Shard{K: 1, N: 25, Blocking: ByHost}); !errors.As(err, &usage) || !strings.Contains(err.Error(), "the study has 24 blocks") {
		t.Errorf("25 machines blocked by host: %v", err)
	}
	if err := p.checkShard(Shard{K: 1, N: 96, Blocking: ByRun}); err != nil {
		t.Errorf("96 machines, single runs: %v", err)
	}
	if err := p.checkShard(Shard{K: 1, N: 97, Blocking: ByRun}); !errors.As(err, &usage) {
		t.Errorf("97 machines for 96 runs: %v", err)
	}
}

func TestParseTaskRange(t *testing.T) {
	for _, tc := range []struct{ flag, in, want string }{
		{"tasks", "5-2", "--tasks 5-2: the range runs backwards: give A-B with A <= B, e.g. --tasks 2-5"},
		{"task", "-1", "--task -1: give one task index, e.g. --task 3 (--tasks 3-5 runs a range)"},
		{"task", "x", "--task x: a task index is a whole number from 0 (`tierbench study tasks FILE` lists them)"},
		{"tasks", "3-", "--tasks 3-: give A-B with whole numbers from 0, e.g. --tasks 0-7"},
		{"task", "2-3", "--task 2-3: give one task index, e.g. --task 3 (--tasks 3-5 runs a range)"},
	} {
		_, err := ParseTaskRange(tc.flag, tc.in)
		var usage *UsageError
		if !errors.As(err, &usage) || err.Error() != tc.want {
			t.Errorf("--%s %s: %v, want %q", tc.flag, tc.in, err, tc.want)
		}
	}
	for in, want := range map[string]TaskRange{"7": {7, 7}, " 0-3 ": {0, 3}, "4-4": {4, 4}} {
		flag := "tasks"
		if !strings.Contains(in, "-") {
			flag = "task"
		}
		if got, err := ParseTaskRange(flag, in); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
}
