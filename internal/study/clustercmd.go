package study

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"tierbench/internal/params"
)

// addClusterParams adds study run's parameters for running on a cluster: one task,
// a range of tasks, and how --shard splits the study.
func (s *RunSettings) addClusterParams() {
	p := s.set
	p.String(&s.task, "task", "", params.String, "run only task I ('study tasks FILE' numbers them from 0), in an --out that every task of the study may share: one run per index of an array job")
	p.String(&s.tasks, "tasks", "", params.String, "run only tasks A to B (A-B), one after the other")
	p.String(&s.scratch, "scratch", "", params.String, "run each run in DIR on this machine's own disk and move its files into --out when it ends: the database and the emulated tiers stay off storage the machines share")
	p.Enum(&s.blocking, "blocking", "host", []string{"host", "cell", "none"},
		"how --shard splits the study: host (each machine runs whole blocks, so every cell is compared with its baseline on one machine), cell (whole cells) or none (single runs round robin)")
}

// split reads --shard, --blocking, --task and --tasks: the shard to run (All with
// tasks), and the tasks (nil without).
func (s *RunSettings) split() (Shard, *TaskRange, error) {
	sh, err := ParseShard(s.shard)
	if err != nil {
		return All, nil, &UsageError{Err: err}
	}
	b, err := ParseBlocking(s.blocking)
	if err != nil {
		return All, nil, err
	}
	if sh.N > 1 {
		sh.Blocking = b
	} else if s.set.Lookup("blocking").Changed() && s.shard == "" {
		return All, nil, &UsageError{Err: fmt.Errorf("--blocking %s: it says how --shard K/N splits the study; give it with --shard (tasks are numbered block by block already: `study tasks FILE --hosts N`)", s.blocking)}
	}
	var tr *TaskRange
	for _, f := range []struct{ name, value string }{{"task", s.task}, {"tasks", s.tasks}} {
		if f.value == "" {
			continue
		}
		if tr != nil {
			return All, nil, &UsageError{Err: fmt.Errorf("--task %s and --tasks %s: give one of them", s.task, s.tasks)}
		}
		r, err := ParseTaskRange(f.name, f.value)
		if err != nil {
			return All, nil, err
		}
		tr = &r
	}
	if tr != nil && s.shard != "" {
		return All, nil, &UsageError{Err: fmt.Errorf("--shard %s and --task(s) %s: a task is one run of the whole study; give one of them", s.shard, tr)}
	}
	return sh, tr, nil
}

// taskEnd says how tasks ended: an error (for the exit status) when one failed or
// was interrupted.
func taskEnd(t *Tally, out string) error {
	switch {
	case t.Interrupted:
		return fmt.Errorf("interrupted: the run in progress is recorded as interrupted in %s, and runs again when the task does: %w", out, context.Canceled)
	case t.Failed+t.KeptFailed > 0:
		failed := t.Failed + t.KeptFailed
		what := "fix the cause and run the task again with --retry-failed"
		if t.Transient == failed {
			what = "it may pass on another attempt: run the task again"
		}
		return &RunsFailedError{Transient: t.Transient == failed, Err: fmt.Errorf("%d of the %d runs of the task failed, each recorded in its cell.json (first: %s): %s",
			failed, t.Runs, t.Failures[0], what)}
	}
	return nil
}

// TasksSettings are the parameters of `tierbench study tasks`.
type TasksSettings struct {
	set   *params.Set
	size  string
	json  bool
	hosts int
}

// NewTasksSettings returns study tasks' parameters at their defaults.
func NewTasksSettings() *TasksSettings {
	s := &TasksSettings{set: params.NewSet("study tasks")}
	s.set.String(&s.size, "size", "", params.String, "a size the study file defines, e.g. quick (default: the file's own values)")
	s.set.Bool(&s.json, "json", false, "write the tasks as JSON")
	s.set.Int(&s.hosts, "hosts", 0, "also say which tasks each of N machines runs blocked by host (what --shard K/N runs, as --tasks A-B)")
	return s
}

// Params are the parameters, for a command line.
func (s *TasksSettings) Params() *params.Set { return s.set }

// taskJSON is a task in `study tasks --json`.
type taskJSON struct {
	Index      int    `json:"index"`
	Cell       string `json:"cell"`
	Repetition int    `json:"repetition"`
	Block      int    `json:"block"`
	// Dir is the run's directory under OUT.
	Dir  string `json:"dir"`
	Host int    `json:"host,omitempty"`
}

// hostJSON is the share of one machine blocked by host.
type hostJSON struct {
	Host  int    `json:"host"`
	First int    `json:"first"`
	Last  int    `json:"last"`
	What  string `json:"what"`
}

// tasksJSON is `study tasks --json`.
type tasksJSON struct {
	Study       string     `json:"study"`
	File        string     `json:"file"`
	Size        string     `json:"size,omitempty"`
	Fingerprint string     `json:"fingerprint"`
	Tasks       []taskJSON `json:"tasks"`
	Blocks      []Block    `json:"blocks"`
	Hosts       []hostJSON `json:"hosts,omitempty"`
}

// Run lists the tasks of the study file or bundled study target.
func (s *TasksSettings) Run(target string, w io.Writer) error {
	err := s.run(target, w)
	return exitStatus(err, false)
}

func (s *TasksSettings) run(target string, w io.Writer) error {
	plan, err := planOf(target, s.size)
	if err != nil {
		return err
	}
	f, st, ts := plan.Study.File, plan.Study, plan.Tasks()
	var ranges [][2]int
	if s.hosts < 0 {
		return &UsageError{Err: fmt.Errorf("--hosts %d: give the number of machines", s.hosts)}
	}
	if s.hosts > 0 {
		if ranges, err = ts.HostRanges(s.hosts); err != nil {
			return &UsageError{Err: fmt.Errorf("--hosts %d: %v", s.hosts, err)}
		}
	}
	hostOf := func(i int) int {
		for k, r := range ranges {
			if i >= r[0] && i <= r[1] {
				return k + 1
			}
		}
		return 0
	}
	doc := tasksJSON{Study: f.Name, File: f.Path, Size: st.Size, Fingerprint: plan.Fingerprint, Blocks: ts.Blocks}
	for _, t := range ts.List {
		rel, _ := filepath.Rel("OUT", RunDir("OUT", t.Cell.ID, t.Rep))
		doc.Tasks = append(doc.Tasks, taskJSON{Index: t.Index, Cell: t.Cell.ID, Repetition: t.Rep, Block: t.Block, Dir: rel, Host: hostOf(t.Index)})
	}
	for k, r := range ranges {
		doc.Hosts = append(doc.Hosts, hostJSON{Host: k + 1, First: r[0], Last: r[1], What: ts.RangeText(r[0], r[1])})
	}
	if s.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	return writeTasks(w, plan, ts, doc)
}

// writeTasks writes the tasks as text: the study, its blocks, a line per task, and
// the commands that run them.
func writeTasks(w io.Writer, plan *Plan, ts *Tasks, doc tasksJSON) error {
	where := doc.File
	size := ""
	if doc.Size != "" {
		where += ", size " + doc.Size
		size = " --size " + doc.Size
	}
	n := len(ts.List)
	fmt.Fprintf(w, "study %s (%s): %d tasks, 0 to %d: %d cells x %d repetitions, fingerprint %s\n",
		doc.Study, where, n, n-1, len(plan.Cells), plan.Study.Repetitions, short(doc.Fingerprint))
	fmt.Fprintf(w, "  blocks     %s: a block is a baseline cell and the cells compared with it, at one repetition; tasks are numbered block by block\n", ts.blocksText())
	if len(doc.Hosts) > 0 {
		fmt.Fprintf(w, "  hosts      blocked by host over %d machines (what --shard K/%d runs):\n", len(doc.Hosts), len(doc.Hosts))
		for _, h := range doc.Hosts {
			fmt.Fprintf(w, "             host %d: --tasks %d-%d (%s)\n", h.Host, h.First, h.Last, h.What)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "task\tblock\trep\t"
	if len(doc.Hosts) > 0 {
		head = "task\tblock\trep\thost\t"
	}
	fmt.Fprintln(tw, head+" cell")
	for _, t := range doc.Tasks {
		host := ""
		if len(doc.Hosts) > 0 {
			host = fmt.Sprintf("%d\t", t.Host)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s %s\n", t.Index, t.Block, t.Repetition, host, t.Cell)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "one run per task: tierbench study run %s%s --out OUT --task I  (I from 0 to %d: Slurm --array=0-%d, Kubernetes completions: %d with completionMode: Indexed); then tierbench study report OUT\n",
		doc.File, size, n-1, n-1, n)
	return err
}
