package study

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Task is one run of a study numbered for a scheduler: `study run --task I` runs the
// task of index I, so that an array job of any width maps one index to one run, and
// a retry of an index runs that run again and nothing else.
type Task struct {
	// Index is the task's number, from 0 (a Kubernetes Indexed Job's
	// JOB_COMPLETION_INDEX, a Slurm array's SLURM_ARRAY_TASK_ID).
	Index int
	RunRef
	// Block is the index of the block the task belongs to.
	Block int
}

// Block is a set of runs within which every comparison the study makes can be made:
// one repetition of a baseline group, the baseline cell and the cells compared with
// it (of a study without a baseline, one repetition of every cell). A machine that
// runs whole blocks compares each cell with its baseline on that machine, so that a
// difference is the cells', not the machines'.
type Block struct {
	Index int
	Rep   int
	// Group is the ID of the baseline cell of the group; "" when one group holds
	// every cell.
	Group string
	// First and Last are the indices of its first and last task.
	First, Last int
}

// Tasks are a study's runs numbered for a scheduler, and their blocks.
type Tasks struct {
	List   []Task
	Blocks []Block
	// Groups counts the baseline groups in a repetition.
	Groups int
	byRun  map[runKey]int
}

// Tasks numbers the plan's runs block by block: repetition 1 of each baseline group,
// then repetition 2, and so on, so that a full repetition of the study and a
// repetition of one group are each a range of indices. A shuffled study shuffles the
// groups of each repetition and the cells of each group with its seed: the same
// numbers every time, on every machine.
func (p *Plan) Tasks() *Tasks {
	var baseline []Term
	if p.Study.Baseline != nil {
		baseline = p.Study.Baseline.Terms
	}
	return numberTasks(p.Cells, p.Study.Repetitions, p.Study.Order, p.Study.Seed, baseline)
}

// Tasks numbers the recorded study's runs as the plan it was recorded from does.
func (r *Record) Tasks() *Tasks {
	return numberTasks(r.Cells, r.Repetitions, r.Order, r.Seed, r.Baseline)
}

// taskSeedMix keeps the tasks' shuffle apart from the whole study's (Plan.Runs),
// which draws from the same seed.
const taskSeedMix = 0x7461736b73 // "tasks"

func numberTasks(cells []Cell, reps int, order string, seed int64, baseline []Term) *Tasks {
	var groups []string
	members := map[string][]int{}
	for i, c := range cells {
		g := ""
		if len(baseline) > 0 {
			g = cellID(baselineLevels(c.Factors, baseline))
		}
		if _, ok := members[g]; !ok {
			groups = append(groups, g)
		}
		members[g] = append(members[g], i)
	}
	t := &Tasks{Groups: len(groups), byRun: map[runKey]int{}}
	src := rand.New(rand.NewPCG(uint64(seed), taskSeedMix))
	for rep := 1; rep <= reps; rep++ {
		gs := slices.Clone(groups)
		if order == OrderShuffled {
			src.Shuffle(len(gs), func(i, j int) { gs[i], gs[j] = gs[j], gs[i] })
		}
		for _, g := range gs {
			b := Block{Index: len(t.Blocks), Rep: rep, Group: g, First: len(t.List)}
			idx := slices.Clone(members[g])
			if order == OrderShuffled {
				src.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			}
			for _, ci := range idx {
				t.byRun[runKey{cells[ci].ID, rep}] = len(t.List)
				t.List = append(t.List, Task{Index: len(t.List), RunRef: RunRef{Cell: &cells[ci], Rep: rep}, Block: b.Index})
			}
			b.Last = len(t.List) - 1
			t.Blocks = append(t.Blocks, b)
		}
	}
	return t
}

// Of is the task of a run, or nil.
func (t *Tasks) Of(cell string, rep int) *Task {
	if i, ok := t.byRun[runKey{cell, rep}]; ok {
		return &t.List[i]
	}
	return nil
}

// Describe says what a block holds: "repetition 2 of the cells compared with
// data=sata-ssd,users=1", or "repetition 2 of every cell".
func (t *Tasks) Describe(b Block) string {
	if b.Group == "" || t.Groups == 1 {
		return fmt.Sprintf("repetition %d of every cell", b.Rep)
	}
	return fmt.Sprintf("repetition %d of the cells compared with %s", b.Rep, b.Group)
}

// HostRanges splits the tasks into n ranges of whole blocks, as even in tasks as the
// blocks allow: what n machines blocked by host run (--shard K/n), each comparing
// every cell it runs with its baseline itself. When the blocks are repetitions of
// the whole study and n divides their number, each machine runs whole repetitions.
// More machines than blocks is an error that says how many blocks there are.
func (t *Tasks) HostRanges(n int) ([][2]int, error) {
	if n > len(t.Blocks) {
		return nil, fmt.Errorf("the study has %s, so at most %d machines can each run whole blocks", t.blocksText(), len(t.Blocks))
	}
	total := len(t.List)
	var out [][2]int
	first, b := 0, 0
	for k := 1; k < n; k++ {
		target := float64(k*total) / float64(n)
		// the last block of part k: the boundary nearest the target that leaves a
		// block for each part after it
		best := -1
		for j := b; j <= len(t.Blocks)-1-(n-k); j++ {
			end := float64(t.Blocks[j].Last + 1)
			if best < 0 || abs(end-target) < abs(float64(t.Blocks[best].Last+1)-target) {
				best = j
			}
		}
		out = append(out, [2]int{first, t.Blocks[best].Last})
		first, b = t.Blocks[best].Last+1, best+1
	}
	return append(out, [2]int{first, total - 1}), nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// blocksText is "4 blocks (2 repetitions of 2 baseline groups)".
func (t *Tasks) blocksText() string {
	reps := 0
	if t.Groups > 0 {
		reps = len(t.Blocks) / t.Groups
	}
	if t.Groups <= 1 {
		return fmt.Sprintf("%s (its %s)", plural(len(t.Blocks), "block"), plural(reps, "repetition"))
	}
	return fmt.Sprintf("%s (%s of %d baseline groups)", plural(len(t.Blocks), "block"), plural(reps, "repetition"), t.Groups)
}

// RangeText describes the blocks of tasks first to last: "repetition 1 of every
// cell", "repetitions 1 to 2 of every cell", or the blocks one by one.
func (t *Tasks) RangeText(first, last int) string {
	var bs []Block
	for _, b := range t.Blocks {
		if b.First >= first && b.Last <= last {
			bs = append(bs, b)
		}
	}
	if len(bs) == 0 {
		return "no whole block"
	}
	if wholeReps(t, bs) {
		r1, r2 := bs[0].Rep, bs[len(bs)-1].Rep
		if r1 == r2 {
			return fmt.Sprintf("repetition %d of every cell", r1)
		}
		return fmt.Sprintf("repetitions %d to %d of every cell", r1, r2)
	}
	var parts []string
	for i, b := range bs {
		if i == maxNamed {
			parts = append(parts, "and "+plural(len(bs)-i, "more block"))
			break
		}
		parts = append(parts, t.Describe(b))
	}
	return strings.Join(parts, "; ")
}

// wholeReps reports whether blocks bs are every block of the repetitions they touch.
func wholeReps(t *Tasks, bs []Block) bool {
	count := map[int]int{}
	for _, b := range bs {
		count[b.Rep]++
	}
	for _, n := range count {
		if n != t.Groups {
			return false
		}
	}
	return true
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// TaskRange is the tasks --task I or --tasks A-B name, from first to last.
type TaskRange struct{ First, Last int }

// ParseTaskRange reads --task I (task "I") or --tasks A-B (tasks "A-B"); flag names
// the flag in the error.
func ParseTaskRange(flag, s string) (TaskRange, error) {
	bad := func(why string) error {
		return &UsageError{Err: fmt.Errorf("--%s %s: %s", flag, s, why)}
	}
	s = strings.TrimSpace(s)
	a, b, isRange := strings.Cut(s, "-")
	if flag == "task" && isRange {
		return TaskRange{}, bad("give one task index, e.g. --task 3 (--tasks 3-5 runs a range)")
	}
	first, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil || first < 0 {
		return TaskRange{}, bad("a task index is a whole number from 0 (`tierbench study tasks FILE` lists them)")
	}
	last := first
	if isRange {
		if last, err = strconv.Atoi(strings.TrimSpace(b)); err != nil || last < 0 {
			return TaskRange{}, bad("give A-B with whole numbers from 0, e.g. --tasks 0-7")
		}
		if last < first {
			return TaskRange{}, bad(fmt.Sprintf("the range runs backwards: give A-B with A <= B, e.g. --tasks %d-%d", last, first))
		}
	}
	return TaskRange{first, last}, nil
}

func (r TaskRange) String() string {
	if r.First == r.Last {
		return strconv.Itoa(r.First)
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}
