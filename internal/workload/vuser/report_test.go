package vuser

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/result"
)

// TestSweep: levels run in order, the result is saved after each (also after the one
// that failed), and the first error, of a level or of a save, ends the sweep.
func TestSweep(t *testing.T) {
	boom := errors.New("server gone")
	full := errors.New("disk full")
	for _, tc := range []struct {
		name      string
		users     []int
		failLevel int // users of the level that fails (0: none)
		failSave  int // which save fails, from 1 (0: none)
		wantRun   []int
		wantSaves int
		wantErr   error
		headers   int
	}{
		{"all levels", []int{1, 2, 4}, 0, 0, []int{1, 2, 4}, 3, nil, 3},
		{"one level, no header", []int{8}, 0, 0, []int{8}, 1, nil, 0},
		{"a level fails", []int{1, 2, 4}, 2, 0, []int{1, 2}, 2, boom, 2},
		{"a save fails", []int{1, 2, 4}, 0, 1, []int{1}, 1, full, 1},
		{"the level's error wins over the save's", []int{1, 2}, 1, 1, []int{1}, 1, boom, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran []int
			saves := 0
			var lines bytes.Buffer
			p := Plan{Users: tc.users, Ramp: time.Second, Duration: 2 * time.Second, Lines: &lines}
			err := p.Sweep(func(users int) error {
				ran = append(ran, users)
				if users == tc.failLevel {
					return boom
				}
				return nil
			}, func() error {
				saves++
				if saves == tc.failSave {
					return full
				}
				return nil
			})
			if !reflect.DeepEqual(ran, tc.wantRun) || saves != tc.wantSaves || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("ran %v, %d saves, error %v; want %v, %d, %v", ran, saves, err, tc.wantRun, tc.wantSaves, tc.wantErr)
			}
			if n := strings.Count(lines.String(), "ramp-up"); n != tc.headers {
				t.Errorf("%d level headers, want %d:\n%s", n, tc.headers, lines.String())
			}
			if tc.headers > 0 && !strings.HasPrefix(lines.String(), "--- 1 users: 1s ramp-up, 2s measured\n") {
				t.Errorf("first header %q", lines.String())
			}
		})
	}
}

func TestRunResult(t *testing.T) {
	r := NewRunResult("x", engine.Info{Name: "sqlite"}, Plan{Ramp: 2 * time.Second, Duration: time.Minute, Seed: 7}, map[string]string{"tps": "d"})
	if r.Status != "ok" || r.Loop != "closed" || r.RampS != 2 || r.DurationS != 60 || r.Seed != 7 || r.IntervalsFile != IntervalsFile || r.Started.IsZero() {
		t.Errorf("closed loop: %+v", r)
	}
	if o := NewRunResult("x", engine.Info{}, Plan{Rate: 50, Duration: time.Second}, nil); o.Loop != "open" || o.Rate != 50 {
		t.Errorf("open loop: loop %q rate %v", o.Loop, o.Rate)
	}
	r.LevelFailed("", errors.New("no answer"))
	if r.Status != "failed" || r.Error != "no answer" {
		t.Errorf("a level that measured nothing: status %q error %q", r.Status, r.Error)
	}
	r.LevelFailed(result.StatusInterrupted, errors.New("interrupt"))
	if r.Status != "interrupted" {
		t.Errorf("an interrupted level: status %q", r.Status)
	}
	cpu := &ClientCPU{Seconds: 1}
	one := LevelReport{Users: 4, TPS: 100, QPS: 300, ClientCPU: cpu, Latency: metrics.Latency{P95: 2, P99: 3}}
	r.Headline(one, []LevelReport{one})
	if r.Users != 4 || r.TPS != 100 || r.QPS != 300 || r.ClientCPU != cpu || r.Sweep != nil {
		t.Errorf("one level: %+v", r)
	}
	two := LevelReport{Users: 8, TPS: 101, Latency: metrics.Latency{P95: 9, P99: 12}}
	r.Headline(one, []LevelReport{one, two})
	if len(r.Sweep) != 2 || r.Sweep[1].Users != 8 || !r.Sweep[0].Saturated {
		t.Errorf("sweep %+v: want two rows, saturation at 4 users (101 TPS is within 5%%)", r.Sweep)
	}
}

// TestNoteIntervals: a record with a number JSON cannot hold is in the intervals file
// with null there; the result names it and the run's error says so, as result.json's
// would. A file that lost lines says how many it holds.
func TestNoteIntervals(t *testing.T) {
	var b bytes.Buffer
	jl := metrics.NewJSONLines(&b)
	r := NewRunResult("x", engine.Info{}, Plan{Duration: time.Second}, nil)
	if err := r.NoteIntervals(jl); err != nil || r.IntervalsNull != nil || r.IntervalsError != "" {
		t.Fatalf("nothing written: %v %+v", err, r)
	}
	jl.Write(metrics.IntervalRecord{TPS: 10})
	jl.Write(metrics.IntervalRecord{TPS: 10, Latency: metrics.Latency{Max: math.Inf(1)}})
	err := r.NoteIntervals(jl)
	want := []string{"line 2 latency.max_ms (+Inf)"}
	var nf *metrics.NonFiniteError
	if !errors.As(err, &nf) || !reflect.DeepEqual(r.IntervalsNull, want) || r.IntervalsError != "" ||
		!strings.Contains(err.Error(), "line 2 latency.max_ms (+Inf) not a number JSON can hold: written as null") {
		t.Errorf("%v; result names %q, want %q", err, r.IntervalsNull, want)
	}
	if n := strings.Count(b.String(), "\n"); n != 2 || !strings.Contains(b.String(), `"max_ms":null`) {
		t.Errorf("file:\n%s", b.String())
	}
}

func TestPlanLevelAndValidate(t *testing.T) {
	var lines bytes.Buffer
	jl := metrics.NewJSONLines(&lines)
	p := Plan{Users: []int{1, 4}, Ramp: time.Second, Duration: time.Minute, Rate: 20, Interval: 5 * time.Second, Lines: &lines}
	c := p.Level(4, jl)
	if c.Users != 4 || c.Ramp != time.Second || c.Duration != time.Minute || c.Rate != 20 || c.Interval != 5*time.Second || c.JSON != jl || c.Lines != &lines {
		t.Errorf("level config %+v", c)
	}
	if err := p.Validate(); err != nil {
		t.Errorf("valid plan: %v", err)
	}
	for _, bad := range []Plan{{Duration: time.Second}, {Users: []int{2, 0}, Duration: time.Second}, {Users: []int{1}}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("plan %+v passed", bad)
		}
	}
}
