package lifecycle

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/metrics"
	"tierbench/internal/workload"
)

// TestFinishSaysWhatIsKept: the message after a failed run names what the result
// file really holds, and only a result that is there is announced: a checkpoint of
// this run's result that reached the file is kept, another run's file is not this
// run's.
func TestFinishSaysWhatIsKept(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	started := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	boom := errors.New("level 2: server gone")
	for _, tc := range []struct {
		name string
		// checkpointed: this run saved its result through Checkpoint before its last
		// write; other: another run's result.json is there.
		checkpointed, other bool
		writeErr            error
		runErr              error
		want                string
		result              bool
	}{
		{"written", false, false, nil, boom, "level 2: server gone (what was measured is kept in " + path + ")", true},
		{"interrupted", false, false, nil, context.Canceled, "interrupted: what was measured is kept in " + path + ": context canceled", true},
		{"last write failed", true, false, syscall.ENOSPC, boom, "level 2: server gone; no space left on device (" + path + " holds what was measured until the last write that succeeded)", true},
		{"nothing written", false, false, syscall.ENOSPC, boom, "level 2: server gone; no space left on device (nothing of this run could be written to " + path + ": the summary above is all that is left of it)", false},
		{"another run's file", false, true, syscall.ENOSPC, nil, "no space left on device (nothing of this run could be written to " + path + ": the summary above is all that is left of it)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(path)
			res := map[string]any{"started": started}
			r := &Run{cfg: &Config{Out: dir, Request: workload.Request{Results: []string{"result.json"}}}, io: IO{Stdout: io.Discard}}
			if tc.other {
				if err := metrics.WriteJSONFile(path, map[string]any{"started": started.Add(-time.Hour)}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.checkpointed {
				if err := r.Checkpoint(res); err != nil {
					t.Fatal(err)
				}
				if back, err := metrics.ReadJSONFile[map[string]time.Time](path); err != nil || !(*back)["started"].Equal(started) {
					t.Fatalf("the checkpoint did not write the result: %v %v", back, err)
				}
			}
			writeJSON = func(p string, v any) error {
				if tc.writeErr != nil {
					return tc.writeErr
				}
				return metrics.WriteJSONFile(p, v)
			}
			defer func() { writeJSON = metrics.WriteJSONFile }()
			var w bytes.Buffer
			r.io.Stdout = &w
			summarised := false
			err := r.write(&workload.Report{Result: res, File: "result.json",
				Announce: true, Summary: func(io.Writer) { summarised = true }}, nil, tc.runErr)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error\n%v\nwant\n%s", err, tc.want)
			}
			if got := strings.Contains(w.String(), "result: "+path); got != tc.result || !summarised {
				t.Errorf("result line printed %v, want %v; summary %v", got, tc.result, summarised)
			}
		})
	}
	// A phase that writes no result.json (a load) has no result to save.
	os.Remove(path)
	load := &Run{cfg: &Config{Out: dir, Request: workload.Request{Results: []string{"load.json"}}}}
	if err := load.Checkpoint(map[string]any{"started": started}); err == nil || err.Error() != dir+": this phase writes no result.json" {
		t.Errorf("checkpoint of a load: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) || load.checkpointed {
		t.Errorf("the load's checkpoint wrote %s (%v)", path, err)
	}
}

func TestCommandLineHidesPasswords(t *testing.T) {
	got := CommandLine([]string{"tierbench", "oltp", "run", "--dsn", "postgres://bob:s3cret@db/x", "--dsn=bob:s3cret@tcp(h:3306)/x", "--out", "my runs"})
	want := "tierbench oltp run --dsn postgres://bob:xxxxx@db/x '--dsn=bob:xxxxx@tcp(h:3306)/x' --out 'my runs'"
	if got != want {
		t.Errorf("%s\nwant\n%s", got, want)
	}
}
