package study

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/result"

	_ "tierbench/internal/engine/mysql"
	_ "tierbench/internal/engine/postgres"
	_ "tierbench/internal/engine/sqlite"
	_ "tierbench/internal/workload/all"
)

// fakePhaseEnv makes the test binary a fake phase command (fakePhase), so the
// runner's tests start real child processes without running a database.
const fakePhaseEnv = "TIERBENCH_STUDY_FAKE_PHASE"

// Environment of a fake phase: it fails (exit 1, a last line on stderr, no outcome)
// when its --out contains fakeFailEnv's value, and sleeps fakeSleepEnv's duration
// before it ends.
const (
	fakeFailEnv  = "TIERBENCH_STUDY_FAKE_FAIL"
	fakeSleepEnv = "TIERBENCH_STUDY_FAKE_SLEEP"
	// fakeScaleEnv multiplies the tps a fake run measures.
	fakeScaleEnv = "TIERBENCH_STUDY_FAKE_SCALE"
	// fakeEnergyEnv gives each run an energy section (fakeEnergy) whose total lacks
	// base power, and the CPU's where its --out contains the variable's value.
	fakeEnergyEnv = "TIERBENCH_STUDY_FAKE_ENERGY"
	// fakeKillEnv makes a fake phase kill itself with SIGKILL, as the OOM killer
	// would; fakeStubbornEnv makes it ignore SIGTERM, as a hung server would.
	fakeKillEnv     = "TIERBENCH_STUDY_FAKE_KILL"
	fakeStubbornEnv = "TIERBENCH_STUDY_FAKE_STUBBORN"
	// fakeSnapshotEnv names a file each fake load appends its command line to; a
	// fake load then leaves a population on its data tier, and a fake run fails
	// without one (fakePopulation).
	fakeSnapshotEnv = "TIERBENCH_STUDY_FAKE_SNAPSHOT"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakePhaseEnv) == "1" {
		os.Exit(fakePhase(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeTPS is what a fake run measures: a number from its users and repetition, so a
// test knows each run's value and the report's means can be checked against it.
func fakeTPS(users, rep int) float64 { return float64(100*users) + float64(rep)*7.25 }

// fakePhase acts as `tierbench WORKLOAD PHASE --flag=value... --outcome=FILE`: the run
// phase writes OUT/result.json with its tps; each phase writes its outcome.
func fakePhase(args []string) int {
	flags := map[string]string{}
	for _, a := range args[2:] {
		if k, v, ok := strings.Cut(strings.TrimPrefix(a, "--"), "="); ok {
			flags[k] = v
		}
	}
	out := flags["out"]
	if os.Getenv(fakeStubbornEnv) == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	if os.Getenv(fakeKillEnv) == "1" {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	if d, err := time.ParseDuration(os.Getenv(fakeSleepEnv)); err == nil {
		time.Sleep(d)
	}
	if f := os.Getenv(fakeFailEnv); f != "" && strings.Contains(out, f) {
		fmt.Fprintln(os.Stderr, "tierbench: the fake phase failed on purpose")
		return 1
	}
	oc := Outcome{Phase: "load", Status: "ok"}
	if log := os.Getenv(fakeSnapshotEnv); log != "" {
		file, err := fakePopulation(args, out, log)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tierbench:", err)
			return 1
		}
		oc.File = file
	}
	if args[1] == "run" {
		users, _ := strconv.Atoi(flags["users"])
		rep, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(out), "rep-"))
		tps := fakeTPS(users, rep)
		if f, err := strconv.ParseFloat(os.Getenv(fakeScaleEnv), 64); err == nil {
			tps *= f
		}
		doc := map[string]any{"users": users, "tps": tps}
		if f, ok := os.LookupEnv(fakeEnergyEnv); ok {
			doc["energy"] = fakeEnergy(users, f != "" && strings.Contains(out, f))
		}
		res, _ := json.Marshal(doc)
		if err := os.WriteFile(filepath.Join(out, "result.json"), res, 0o644); err != nil {
			return 2
		}
		oc = Outcome{Phase: "run", Status: "ok", File: filepath.Join(out, "result.json")}
		oc.Metrics = append(oc.Metrics, metric("tps", tps))
	}
	b, _ := json.Marshal(oc)
	if err := os.WriteFile(flags["outcome"], b, 0o644); err != nil {
		return 2
	}
	return 0
}

func metric(name string, v float64) result.Metric {
	return result.Metric{Name: name, Value: v, Unit: "transactions/s", Better: result.HigherIsBetter}
}

// expand parses a study file's text and expands it at size.
func expand(t *testing.T, src, size string) (*Plan, error) {
	t.Helper()
	f, err := Parse("test.yaml", []byte(src))
	if err != nil {
		return nil, err
	}
	s, err := f.At(size)
	if err != nil {
		return nil, err
	}
	return Expand(s)
}

// loadReport loads the study in out and builds its report.
func loadReport(t *testing.T, out string) *Report {
	t.Helper()
	res, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := BuildReport(res)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func mustExpand(t *testing.T, src, size string) *Plan {
	t.Helper()
	p, err := expand(t, src, size)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
