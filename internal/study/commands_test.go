package study

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandsRefuse: the study commands refuse what cannot be, naming the flag,
// before reading a study.
func TestCommandsRefuse(t *testing.T) {
	run := func(args ...string) error {
		s := NewRunSettings()
		if err := s.Params().FlagSet().Parse(args); err != nil {
			t.Fatal(err)
		}
		return s.Run(context.Background(), "no-such-study", Output{Stdout: &bytes.Buffer{}})
	}
	if err := run(); err == nil || err.Error() != "--out is required: the directory for the study's runs and report" {
		t.Errorf("no --out: %v", err)
	}
	if err := run("--out", t.TempDir(), "--shard", "3/2"); err == nil || !strings.Contains(err.Error(), "--shard 3/2") {
		t.Errorf("shard 3/2: %v", err)
	}
	if err := NewReportSettings().Run([]string{"a", "b"}, Output{}); err == nil || !strings.Contains(err.Error(), "--out is required with several directories") {
		t.Errorf("two shards, no --out: %v", err)
	}
}

// TestWriteBundled: every bundled study is listed, one line each.
func TestWriteBundled(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBundled(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != len(Bundled()) || len(lines) == 0 {
		t.Fatalf("%d lines for %d studies:\n%s", len(lines), len(Bundled()), b.String())
	}
	for i, name := range Bundled() {
		if !strings.HasPrefix(lines[i], name+" ") {
			t.Errorf("line %d %q does not list %s", i, lines[i], name)
		}
	}
}

// TestRunKeptFailuresFail: a study whose failed runs are kept (no --retry-failed)
// has not succeeded, however many times it is resumed: study run says what failed and
// ends with an error, not "nothing to run" and success.
func TestRunKeptFailuresFail(t *testing.T) {
	dir := t.TempDir()
	file, out := filepath.Join(dir, "fake.yaml"), filepath.Join(dir, "out")
	if err := os.WriteFile(file, []byte(fakeStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		s := NewRunSettings()
		if err := s.Params().FlagSet().Parse(append([]string{"--out", out}, args...)); err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		err := s.Run(context.Background(), file, Output{Stdout: &stdout, Stderr: io.Discard, Child: func(args []string) *exec.Cmd {
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), fakePhaseEnv+"=1", fakeFailEnv+"=users=2,think=10ms")
			return cmd
		}})
		return stdout.String(), err
	}
	if _, err := run(); err == nil || !strings.HasPrefix(err.Error(), "2 of 8 runs failed, each recorded in its cell.json (first: users=2,think=10ms rep 1: load: exit status 1") {
		t.Fatalf("first run: %v", err)
	}
	stdout, err := run()
	if err == nil || !strings.HasPrefix(err.Error(), "2 of 8 runs failed (2 in an earlier run of the study, kept as recorded), each recorded in its cell.json (first: users=2,think=10ms rep 1:") {
		t.Errorf("resumed: %v, want the kept failures", err)
	}
	if !strings.Contains(stdout, "nothing to run: of the 8 runs of the study, 6 finished ok and 2 failed (kept as recorded; --retry-failed runs them again)") {
		t.Errorf("resumed:\n%s", stdout)
	}
}
