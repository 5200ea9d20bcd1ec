package study

import (
	"bytes"
	"context"
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
