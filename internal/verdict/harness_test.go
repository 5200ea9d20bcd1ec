package verdict_test

import (
	"context"
	"crypto/sha256"
	"os"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/monitor"
	"tierbench/internal/verdict"
	"tierbench/internal/workload/vuser"
)

// burner is a workload whose cost is all in tierbench: each transaction hashes
// 256 KiB on the client and talks to no server.
type burner struct{}

func (burner) Ops() []string { return []string{"burn"} }

func (burner) NewWorker(context.Context, int) (vuser.Worker, error) { return &burnWorker{}, nil }

type burnWorker struct{ buf [256 << 10]byte }

func (w *burnWorker) Next() vuser.Txn { return vuser.Txn{Op: "burn"} }

func (w *burnWorker) Run(ctx context.Context, _ string) vuser.Outcome {
	sum := sha256.Sum256(w.buf[:])
	w.buf[0] = sum[0]
	return vuser.Outcome{Queries: 1}
}

func (w *burnWorker) Close() error { return nil }

// TestHarnessBoundForReal: a client throttled by tierbench itself. Two open-loop users
// asked for 100,000 transactions a second, each of which costs the client a 256 KiB
// hash: the real runner and the real monitor (host and tierbench's process) see the
// users' time go to tierbench's CPU and the schedule fall behind, and the verdict
// (through verdict.JudgeRun on the levels' windows, as the run lifecycle calls it) blames the harness.
func TestHarnessBoundForReal(t *testing.T) {
	host, err := monitor.NewHost("")
	if err != nil {
		t.Fatal(err)
	}
	procs, err := monitor.NewProcesses("", monitor.Process{Who: "tierbench", PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	mon, err := monitor.New(monitor.Config{Interval: 250 * time.Millisecond, Sources: []monitor.Source{host, procs}})
	if err != nil {
		t.Fatal(err)
	}
	mon.Start()
	plan := vuser.Plan{Users: []int{2}, Ramp: 500 * time.Millisecond, Duration: 2 * time.Second, Rate: 100000, Interval: time.Second,
		Mark: func(label string, start bool) { mon.Mark(label, start, time.Now()) }}
	sum, err := vuser.Run(context.Background(), burner{}, plan.Level(2, nil))
	msum, stopErr := mon.Stop()
	if err != nil || stopErr != nil {
		t.Fatal(err, stopErr)
	}
	lvl := vuser.NewLevelReport(sum, burner{}.Ops())
	res := vuser.NewRunResult("burn", engine.Info{Name: "none"}, plan, nil)
	res.Headline(lvl, []vuser.LevelReport{lvl})
	res.Monitoring = msum
	res.Verdict = verdict.JudgeRun(msum, levels{&res, []vuser.LevelReport{lvl}}, verdict.Facts{})
	v := res.Verdict.Level(2)
	if v == nil || res.Verdict.Primary != verdict.Harness {
		t.Fatalf("verdict %+v, want the harness", res.Verdict)
	}
	t.Log(v.Headline)
	h := v.Finding(verdict.Harness)
	met := map[string]bool{}
	for _, c := range h.Checks {
		met[c.Name] = c.Met
	}
	if !met["users' time in tierbench's CPU"] || !met["open loop's rate kept"] {
		t.Errorf("harness checks %+v: want tierbench's CPU and the rate both over their thresholds", h.Checks)
	}
	if lvl.ScheduleLag == nil || lvl.ScheduleLag.LateShare < 0.5 {
		t.Errorf("schedule lag %+v, want most transactions late", lvl.ScheduleLag)
	}
	if c := v.Finding(verdict.CPU); c != nil && c.ExplainsPct >= h.ExplainsPct {
		t.Errorf("the CPU finding explains %v%%, the harness %v%%: tierbench's CPU is the harness's", c.ExplainsPct, h.ExplainsPct)
	}
}

// levels is a run's levels as a verdict.Subject, as tpcc's and mix's results are.
type levels struct {
	r *vuser.RunResult
	l []vuser.LevelReport
}

func (s levels) VerdictWindows() ([]verdict.Window, int) { return s.r.LevelWindows(s.l) }
