package vuser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"tierbench/internal/capacity"
	"tierbench/internal/engine"
	"tierbench/internal/workload"
)

func TestLoadParallelSumsByTable(t *testing.T) {
	jobs := []int{1, 2, 3, 4, 5, 6}
	rows, err := LoadParallel(context.Background(), 3, slices.Values(jobs), func(_ context.Context, j int) (string, int64, error) {
		return fmt.Sprintf("t%d", j%2), int64(j * 10), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// odd jobs 1+3+5 = 9, even 2+4+6 = 12, times 10.
	if len(rows) != 2 || rows["t1"] != 90 || rows["t0"] != 120 {
		t.Fatalf("rows = %v, want map[t0:120 t1:90]", rows)
	}
}

func TestLoadParallelStopsAtFirstError(t *testing.T) {
	boom := errors.New("boom")
	jobs := make([]int, 1000)
	for i := range jobs {
		jobs[i] = i
	}
	var ran int
	rows, err := LoadParallel(context.Background(), 1, slices.Values(jobs), func(_ context.Context, j int) (string, int64, error) {
		ran++
		if j == 3 {
			return "", 0, boom
		}
		return "t", 1, nil
	})
	if !errors.Is(err, boom) || rows != nil {
		t.Fatalf("rows %v, err %v; want nil, boom", rows, err)
	}
	if ran != 4 {
		t.Fatalf("%d jobs ran after the error at job 3 with one loader, want 4", ran)
	}
}

func TestValidateLevels(t *testing.T) {
	ok := Config{Duration: time.Second}
	if err := ok.ValidateLevels([]int{1, 2, 4}); err != nil {
		t.Fatalf("valid sweep: %v", err)
	}
	for _, tc := range []struct {
		cfg   Config
		users []int
		want  string
	}{
		{ok, nil, "at least one number of users"},
		{ok, []int{1, 0, 4}, "users 0"},
		{Config{}, []int{1}, "duration 0s"},
		{Config{Duration: time.Second, Ramp: -time.Second}, []int{1}, "ramp -1s"},
		{Config{Duration: time.Second, Rate: -1}, []int{1}, "rate -1"},
		{Config{Duration: time.Second, Rate: math.NaN()}, []int{1}, "rate NaN"},
		{Config{Duration: time.Second, Rate: math.Inf(1)}, []int{1}, "rate +Inf"},
	} {
		err := tc.cfg.ValidateLevels(tc.users)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v %v: error %v, want one naming %q", tc.cfg, tc.users, err, tc.want)
		}
	}
}

// infoEngine is an engine.Engine that only answers Info.
type infoEngine struct {
	engine.Engine
	info engine.Info
	err  error
}

func (e infoEngine) Info(context.Context) (engine.Info, error) { return e.info, e.err }

func TestFinishLoad(t *testing.T) {
	begin := time.Now().Add(-1500 * time.Millisecond)
	rows := map[string]int64{"a": 10}
	e := infoEngine{info: engine.Info{Name: "sqlite", Version: "3.x"}}
	r, err := FinishLoad(context.Background(), e, 42, rows, 3, begin)
	if err != nil {
		t.Fatal(err)
	}
	if r.Seed != 42 || r.Rows["a"] != 10 || r.Loaders != 3 || r.Engine.Name != "sqlite" ||
		r.Seconds < 1.5 || r.Seconds > 10 || r.Finished.Location() != time.UTC || time.Since(r.Finished) > time.Minute {
		t.Errorf("report %+v: want seed 42, the rows, 3 loaders, about 1.5 s, finished now in UTC", r)
	}
	if _, err := FinishLoad(context.Background(), infoEngine{err: errors.New("gone")}, 1, rows, 1, begin); err == nil {
		t.Error("an engine that cannot describe itself gave no error")
	}
}

// TestLoadRequest: a load asks for its load file and the load's storage section in
// place of an earlier load's, and for the room its need estimates on the engine's
// facts, the estimate's error included.
func TestLoadRequest(t *testing.T) {
	p := &LoadParams{Loaders: 3}
	var asked workload.EngineFacts
	fail := errors.New("no such dialect")
	req := p.Request("x-load.json", func(f workload.EngineFacts) (capacity.Need, error) {
		asked = f
		return capacity.Need{What: "x load", Disk: 2e9}, fail
	})
	if !slices.Equal(req.Results, []string{"x-load.json", LoadStorageFile}) || !req.Replaces || req.MustExist {
		t.Errorf("request %+v: want results x-load.json and %s, replacing an earlier load's", req, LoadStorageFile)
	}
	needs, err := req.Needs(workload.EngineFacts{DataDir: "/data", External: true})
	if !errors.Is(err, fail) || len(needs) != 1 || needs[0].What != "x load" || needs[0].Disk != 2e9 {
		t.Errorf("needs %+v, %v: want the one estimate and its error", needs, err)
	}
	if asked.DataDir != "/data" || !asked.External {
		t.Errorf("the estimate saw %+v, want the engine's facts", asked)
	}
}
