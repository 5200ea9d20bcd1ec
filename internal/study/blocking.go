package study

import (
	"fmt"
	"strings"
)

// Blocking is how --shard K/N splits a study over N machines (--blocking).
type Blocking string

const (
	// ByCell gives each machine whole cells, every repetition of each (cells K-1
	// modulo N): a cell and its baseline may then run on different machines. The
	// zero value: the split of shard directories written before host blocking.
	ByCell Blocking = ""
	// ByHost, the default, gives each machine whole blocks (Tasks.HostRanges):
	// repetitions of the study, or of its baseline groups, so that each machine
	// compares every cell it runs with its baseline itself.
	ByHost Blocking = "host"
	// ByRun deals single runs round robin (tasks K-1 modulo N): the widest spread,
	// with every comparison made across machines.
	ByRun Blocking = "none"
)

// ParseBlocking reads --blocking: host, cell or none.
func ParseBlocking(s string) (Blocking, error) {
	switch s {
	case "host", "":
		return ByHost, nil
	case "cell":
		return ByCell, nil
	case "none":
		return ByRun, nil
	}
	return ByHost, &UsageError{Err: fmt.Errorf("--blocking %s: give host (each machine runs whole blocks: every comparison within a machine), cell (each machine runs whole cells) or none (single runs round robin)", s)}
}

func (b Blocking) String() string {
	if b == ByCell {
		return "cell"
	}
	return string(b)
}

// splitRuns are the runs of a shard blocked by host, or dealt round robin, in the
// order of their tasks.
func (p *Plan) splitRuns(sh Shard) []RunRef {
	ts := p.Tasks()
	var out []RunRef
	if sh.Blocking == ByRun {
		for _, t := range ts.List {
			if t.Index%sh.N == sh.K-1 {
				out = append(out, t.RunRef)
			}
		}
		return out
	}
	ranges, err := ts.HostRanges(sh.N)
	if err != nil {
		return nil
	}
	for _, t := range ts.List[ranges[sh.K-1][0] : ranges[sh.K-1][1]+1] {
		out = append(out, t.RunRef)
	}
	return out
}

// checkSplit refuses a shard blocked by host when there are more machines than
// blocks, and a shard of single runs when there are more machines than runs.
func (p *Plan) checkSplit(sh Shard) error {
	ts := p.Tasks()
	if sh.Blocking == ByRun {
		if sh.N > len(ts.List) {
			return &UsageError{Err: fmt.Errorf("--shard %s: the study has %d runs, so shard %d of %d has none: split it into at most %d shards",
				sh, len(ts.List), sh.K, sh.N, len(ts.List))}
		}
		return nil
	}
	if _, err := ts.HostRanges(sh.N); err != nil {
		return &UsageError{Err: fmt.Errorf("--shard %s: %v: split it into at most %d shards, or give --blocking none to deal single runs to up to %d machines (every comparison then made across machines)",
			sh, err, len(ts.Blocks), len(ts.List))}
	}
	return nil
}

// shardText says what a shard runs, for the plan.
func shardText(p *Plan, sh Shard) string {
	switch sh.Blocking {
	case ByHost:
		ts := p.Tasks()
		ranges, err := ts.HostRanges(sh.N)
		if err != nil {
			return fmt.Sprintf("%s, blocked by host: %v", sh, err)
		}
		r := ranges[sh.K-1]
		return fmt.Sprintf("%s, blocked by host: %d of the %d runs, tasks %d-%d (%s): each cell compared with its baseline on this machine",
			sh, r[1]-r[0]+1, len(ts.List), r[0], r[1], ts.RangeText(r[0], r[1]))
	case ByRun:
		return fmt.Sprintf("%s, single runs round robin (--blocking none): %d of the %d runs, every %d-th task from task %d; comparisons are made across machines",
			sh, len(p.Runs(sh)), len(p.Tasks().List), sh.N, sh.K-1)
	}
	n := 0
	for _, c := range p.Cells {
		if sh.Has(c.Index) {
			n++
		}
	}
	return fmt.Sprintf("%s: %d of the %d cells (every %d-th from cell %d)", sh, n, len(p.Cells), sh.N, sh.K)
}

// shardMark says, in the dry run's list of cells, which of a cell's runs a shard
// holds: nothing when it holds them all.
func shardMark(p *Plan, sh Shard, c *Cell) string {
	if sh == All {
		return ""
	}
	var reps []string
	for _, r := range p.Runs(sh) {
		if r.Cell.ID == c.ID {
			reps = append(reps, fmt.Sprint(r.Rep))
		}
	}
	switch len(reps) {
	case 0:
		return fmt.Sprintf("  (not in shard %s)", sh)
	case p.Study.Repetitions:
		return ""
	case 1:
		return fmt.Sprintf("  (repetition %s in shard %s)", reps[0], sh)
	}
	return fmt.Sprintf("  (repetitions %s in shard %s)", strings.Join(reps, ", "), sh)
}

// sameShard refuses to run a shard in a directory recorded (rec) as another shard,
// or as another split: its runs and the other shards' would overlap or leave gaps.
func (r *Runner) sameShard(out string, rec *Record) error {
	if rec == nil || rec.Shard == "" {
		return nil
	}
	now, was := "the whole study", fmt.Sprintf("shard %s (%s)", rec.Shard, splitName(rec.Blocking))
	if r.Shard != All {
		if r.Shard.String() == rec.Shard && r.Shard.Blocking == rec.Blocking {
			return nil
		}
		now = fmt.Sprintf("--shard %s (%s)", r.Shard, splitName(r.Shard.Blocking))
	}
	return &UsageError{Err: fmt.Errorf("--out %s was run as %s, and this is %s: resume it with --shard %s --blocking %s, or give another --out; nothing was run",
		out, was, now, rec.Shard, rec.Blocking)}
}
