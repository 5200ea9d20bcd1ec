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
// file really holds, and only a result that is there is announced.
func TestFinishSaysWhatIsKept(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	started := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	boom := errors.New("level 2: server gone")
	for _, tc := range []struct {
		name     string
		onDisk   time.Time // the run whose result.json is there (zero: none)
		writeErr error
		runErr   error
		want     string
		result   bool
	}{
		{"written", time.Time{}, nil, boom, "level 2: server gone (what was measured is kept in " + path + ")", true},
		{"interrupted", time.Time{}, nil, context.Canceled, "interrupted: what was measured is kept in " + path + ": context canceled", true},
		{"last write failed", started, syscall.ENOSPC, boom, "level 2: server gone; no space left on device (" + path + " holds what was measured until the last write that succeeded)", true},
		{"nothing written", time.Time{}, syscall.ENOSPC, boom, "level 2: server gone; no space left on device (nothing of this run could be written to " + path + ": the summary above is all that is left of it)", false},
		{"another run's file", started.Add(-time.Hour), syscall.ENOSPC, nil, "no space left on device (nothing of this run could be written to " + path + ": the summary above is all that is left of it)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(path)
			if !tc.onDisk.IsZero() {
				if err := metrics.WriteJSONFile(path, map[string]any{"started": tc.onDisk}); err != nil {
					t.Fatal(err)
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
			summarised := false
			r := &Run{cfg: &Config{Out: dir}, io: IO{Stdout: &w}}
			err := r.write(&workload.Report{Result: map[string]any{"started": started}, File: "result.json", Started: started,
				Announce: true, Summary: func(io.Writer) { summarised = true }}, nil, tc.runErr)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error\n%v\nwant\n%s", err, tc.want)
			}
			if got := strings.Contains(w.String(), "result: "+path); got != tc.result || !summarised {
				t.Errorf("result line printed %v, want %v; summary %v", got, tc.result, summarised)
			}
		})
	}
}

func TestCommandLineHidesPasswords(t *testing.T) {
	got := CommandLine([]string{"tierbench", "oltp", "run", "--dsn", "postgres://bob:s3cret@db/x", "--dsn=bob:s3cret@tcp(h:3306)/x", "--out", "my runs"})
	want := "tierbench oltp run --dsn postgres://bob:xxxxx@db/x '--dsn=bob:xxxxx@tcp(h:3306)/x' --out 'my runs'"
	if got != want {
		t.Errorf("%s\nwant\n%s", got, want)
	}
}
