package main

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"tierbench/internal/metrics"
	"tierbench/internal/report"
	"tierbench/internal/result"
	"tierbench/internal/rundir"
	"tierbench/internal/study"
	"tierbench/internal/study/slurmtest"
	"tierbench/internal/workload"
)

// slurmScript is the repository's Slurm example, which the test submits as is.
const slurmScript = "../../deploy/slurm/study.sbatch"

// TestStudyOnSlurm runs the tiny study on a real single-node Slurm (slurmtest) as
// the repository's array job, one task per run; cancels one task in the middle of
// its run, merges what there is (75, naming it), requeues it, and merges again once
// every task has run. It checks that the requeue ran that task again and no other,
// that its interrupted attempt is set aside as partial, that every run records its
// task and host, and the merged report against the runs' result.json files and
// against a local run of the same study.
func TestStudyOnSlurm(t *testing.T) {
	c := slurmtest.Start(t, 2)
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(file, []byte(tinyStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")

	listing, err := runStudyCLI(context.Background(), "study", "tasks", file, "--json")
	if err != nil {
		t.Fatalf("study tasks: %v\n%s", err, listing)
	}
	var tasks struct {
		Tasks []struct {
			Index      int    `json:"index"`
			Cell       string `json:"cell"`
			Repetition int    `json:"repetition"`
			Dir        string `json:"dir"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(listing), &tasks); err != nil || len(tasks.Tasks) != 8 {
		t.Fatalf("study tasks --json: %v, %d tasks\n%s", err, len(tasks.Tasks), listing)
	}
	text, _ := runStudyCLI(context.Background(), "study", "tasks", file)
	t.Logf("$ tierbench study tasks tiny.yaml\n%s", text)

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sbatch := c.Command("sbatch", "--parsable", "--array=0-7", "-D", dir, "-o", filepath.Join(dir, "slurm-%A_%a.out"), slurmScript, file, out)
	sbatch.Env = append(sbatch.Env, "TIERBENCH="+exe, asTierbenchEnv+"=1")
	sbatch.Dir = "."
	b, err := sbatch.CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch: %v\n%s%s", err, b, c.Logs())
	}
	job := strings.TrimSpace(string(b))
	t.Logf("$ sbatch --array=0-7 deploy/slurm/study.sbatch tiny.yaml out\nSubmitted batch job %s", job)

	// Task 5: cancelled once its run has started, then requeued.
	const victim = 5
	victimDir := filepath.Join(out, tasks.Tasks[victim].Dir)
	deadline := time.Now().Add(4 * time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(victimDir, study.StdoutFile)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %d did not start\n%s", victim, c.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
	id := job + "_" + strconv.Itoa(victim)
	c.Run(t, "scancel", id)
	cancelled := c.WaitJob(t, id, 2*time.Minute, "CANCELLED")
	rec, err := metrics.ReadJSONFile[study.RunRecord](filepath.Join(victimDir, study.RunFile))
	slurmOut, _ := os.ReadFile(filepath.Join(dir, "slurm-"+job+"_"+strconv.Itoa(victim)+".out"))
	if err != nil || rec == nil || rec.Status != result.StatusInterrupted {
		t.Fatalf("the cancelled task's cell.json: %v %+v\nslurm-%s.out:\n%s\n%s", err, rec, id, slurmOut, c.Logs())
	}
	t.Logf("$ scancel %s\n$ scontrol show job %s   # JobState=%s ExitCode=%s\n$ cat slurm-%s.out\n%s", id, id, cancelled.State, cancelled.ExitCode, id, slurmOut)

	// The merge before every task has run: the report, and a status that says so.
	partial := filepath.Join(dir, "partial")
	_, err = runStudyCLI(context.Background(), "study", "report", out, "--out", partial)
	var ee *workload.ExitError
	if !errors.As(err, &ee) || ee.Code != study.ExitRetry || !strings.Contains(err.Error(), "task 5 ("+tasks.Tasks[victim].Cell) {
		t.Errorf("report with task 5 cancelled: %v", err)
	}
	t.Logf("$ tierbench study report out --out partial   # exit %d\ntierbench: %v", ee.Code, err)

	c.Run(t, "scontrol", "requeue", id)
	// A requeued job waits 2 minutes before it may start again; start it now.
	c.Run(t, "scontrol", "update", "JobId="+id, "StartTime=now")
	c.WaitEmpty(t, 5*time.Minute)

	name, _ := os.Hostname()
	started := map[int]time.Time{}
	for _, task := range tasks.Tasks {
		j := c.Job(t, job+"_"+strconv.Itoa(task.Index))
		wantRestarts := 0
		if task.Index == victim {
			wantRestarts = 1
		}
		if j.State != "COMPLETED" || j.ExitCode != "0:0" || j.Restarts != wantRestarts {
			t.Errorf("task %d: %+v, want COMPLETED 0:0 after %d restarts", task.Index, j, wantRestarts)
		}
		r, err := metrics.ReadJSONFile[study.RunRecord](filepath.Join(out, task.Dir, study.RunFile))
		if err != nil || r == nil {
			t.Fatalf("task %d: %v", task.Index, err)
		}
		wantAttempt := 1
		if task.Index == victim {
			wantAttempt = 2
		}
		if r.Status != result.StatusOK || r.Task != task.Index || r.Attempt != wantAttempt || r.Host.Key() != name || r.Host.Engine == "" {
			t.Errorf("task %d: %s, task %d, attempt %d, host %+v", task.Index, r.Status, r.Task, r.Attempt, r.Host)
		}
		started[task.Index] = r.Started
		_, err = os.Stat(filepath.Join(out, task.Dir, rundir.EarlierDir))
		if task.Index != victim && err == nil {
			t.Errorf("task %d was run again: the requeue of task %d must run that task alone", task.Index, victim)
		}
	}
	// The cancelled attempt, named as partial: no result.json or cell.json in it.
	old, err := metrics.ReadJSONFile[study.RunRecord](filepath.Join(victimDir, rundir.EarlierDir, "1", "cell"+study.PartialSuffix))
	if err != nil || old == nil || old.Status != result.StatusInterrupted {
		t.Errorf("the cancelled attempt: %v %+v", err, old)
	}
	filepath.WalkDir(filepath.Join(victimDir, rundir.EarlierDir), func(p string, d os.DirEntry, err error) error {
		if err == nil && (d.Name() == result.File || d.Name() == study.RunFile) {
			t.Errorf("%s: a cancelled attempt named as a run", p)
		}
		return nil
	})
	if !started[victim].After(started[victim+1]) {
		t.Errorf("task %d's run (%s) is not the one made after the requeue (task %d started %s)", victim, started[victim], victim+1, started[victim+1])
	}

	merged := filepath.Join(dir, "merged")
	mergeOut, err := runStudyCLI(context.Background(), "study", "report", out, "--out", merged)
	if err != nil {
		t.Fatalf("the merge of every task: %v\n%s", err, mergeOut)
	}
	t.Logf("$ tierbench study report out --out merged\n%s", mergeOut)

	// The same study run here, as one command.
	asTierbenchChild(t)
	local := filepath.Join(dir, "local")
	if o, err := runStudyCLI(context.Background(), "study", "run", file, "--out", local); err != nil {
		t.Fatalf("the local run: %v\n%s", err, o)
	}
	sumOf := func(d string) *report.Summary {
		s, err := metrics.ReadJSONFile[report.Summary](filepath.Join(d, study.SummaryFile))
		if err != nil || s == nil {
			t.Fatalf("%s: %v", d, err)
		}
		return s
	}
	cluster, here := sumOf(merged), sumOf(local)
	if len(cluster.Cells) != 4 || len(here.Cells) != 4 {
		t.Fatalf("cells: %d on Slurm, %d here", len(cluster.Cells), len(here.Cells))
	}
	for i, cs := range cluster.Cells {
		hs := here.Cells[i]
		if cs.ID != hs.ID || cs.Against != hs.Against || cs.Runs != 2 || hs.Runs != 2 || cs.Failed != 0 {
			t.Errorf("cell %d: %s against %s (%d runs) on Slurm, %s against %s (%d runs) here", i, cs.ID, cs.Against, cs.Runs, hs.ID, hs.Against, hs.Runs)
		}
		if slices.Compare(slices.Sorted(maps.Keys(cs.Metrics)), slices.Sorted(maps.Keys(hs.Metrics))) != 0 {
			t.Errorf("cell %s: metrics %v on Slurm, %v here", cs.ID, slices.Sorted(maps.Keys(cs.Metrics)), slices.Sorted(maps.Keys(hs.Metrics)))
		}
		// Slurm's numbers are its runs' own, from their result.json files.
		var tps []float64
		for rep := 1; rep <= 2; rep++ {
			r, err := metrics.ReadJSONFile[struct {
				TPS float64 `json:"tps"`
			}](filepath.Join(study.RunDir(out, cs.ID, rep), result.File))
			if err != nil || r == nil {
				t.Fatalf("%s rep %d: %v", cs.ID, rep, err)
			}
			tps = append(tps, r.TPS)
		}
		// Two runs: the mean is their midpoint, the SD (n-1) half their gap times sqrt 2.
		mean, sd := (tps[0]+tps[1])/2, math.Abs(tps[0]-tps[1])/math.Sqrt2
		if got := cs.Metrics["tps"].Stats; got.N != 2 || !near(got.Mean, mean) || !near(got.SD, sd) {
			t.Errorf("cell %s: tps %+v, want mean %g and SD %g from its result.json files %v", cs.ID, got, mean, sd, tps)
		}
	}
	// cells.csv: the same runs, with the host each ran on.
	rows := readCSV(t, filepath.Join(merged, study.CellsCSVFile))
	hostCol := slices.Index(rows[0], "host")
	if len(rows) != 9 || hostCol < 0 {
		t.Fatalf("cells.csv: %q", rows)
	}
	localRows := readCSV(t, filepath.Join(local, study.CellsCSVFile))
	key := func(rows [][]string) []string {
		var out []string
		for _, r := range rows[1:] {
			out = append(out, r[0]+" rep "+r[slices.Index(rows[0], "repetition")])
		}
		slices.Sort(out)
		return out
	}
	if !slices.Equal(key(rows), key(localRows)) {
		t.Errorf("runs on Slurm %q, here %q", key(rows), key(localRows))
	}
	for _, r := range rows[1:] {
		if r[hostCol] != name {
			t.Errorf("cells.csv: %q ran on %q, want %q", r[0], r[hostCol], name)
		}
	}
}

// TestKubernetesExample keeps the repository's Indexed Job true to the command
// line: its container's arguments, with the index filled in, are a task of a study
// whose number of tasks is the job's completions, and its failure policy retries
// exit status 75 alone.
func TestKubernetesExample(t *testing.T) {
	data, err := os.ReadFile("../../deploy/kubernetes/study-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job struct {
		Spec struct {
			CompletionMode   string `yaml:"completionMode"`
			Completions      int    `yaml:"completions"`
			PodFailurePolicy struct {
				Rules []struct {
					Action      string `yaml:"action"`
					OnExitCodes *struct {
						Operator string `yaml:"operator"`
						Values   []int  `yaml:"values"`
					} `yaml:"onExitCodes"`
				} `yaml:"rules"`
			} `yaml:"podFailurePolicy"`
			Template struct {
				Spec struct {
					Containers []struct {
						Args []string `yaml:"args"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(data, &job); err != nil {
		t.Fatal(err)
	}
	if job.Spec.CompletionMode != "Indexed" || len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%+v", job.Spec)
	}
	rule := job.Spec.PodFailurePolicy.Rules[0]
	if rule.Action != "FailIndex" || rule.OnExitCodes == nil || rule.OnExitCodes.Operator != "NotIn" || !slices.Equal(rule.OnExitCodes.Values, []int{0, study.ExitRetry}) {
		t.Errorf("the first failure rule %+v: want every status but 0 and %d to fail the index", rule, study.ExitRetry)
	}
	args := job.Spec.Template.Spec.Containers[0].Args
	at := slices.Index(args, "$(JOB_COMPLETION_INDEX)")
	if at < 1 || args[at-1] != "--task" {
		t.Fatalf("args %q: want --task $(JOB_COMPLETION_INDEX)", args)
	}
	out := t.TempDir()
	with := func(index int) []string {
		a := slices.Clone(args)
		a[at] = strconv.Itoa(index)
		a[slices.Index(a, "--out")+1] = out
		return append(a, "--dry-run")
	}
	for _, i := range []int{0, job.Spec.Completions - 1} {
		if o, err := runStudyCLI(context.Background(), with(i)...); err != nil {
			t.Errorf("index %d: %v\n%s", i, err, o)
		}
	}
	_, err = runStudyCLI(context.Background(), with(job.Spec.Completions)...)
	var ee *workload.ExitError
	if !errors.As(err, &ee) || ee.Code != study.ExitUsage {
		t.Errorf("index %d, one past the completions: %v: want the study to have exactly %d tasks", job.Spec.Completions, err, job.Spec.Completions)
	}
}
