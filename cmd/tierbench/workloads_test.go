package main

import (
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/lifecycle"
	"tierbench/internal/metrics"
	"tierbench/internal/workload"
	"tierbench/internal/workload/oltp"
)

// TestCommandArgsAsCommands: the command lines lifecycle.CommandArgs makes of a
// study's cell run as tierbench commands, as a study that runs each cell in a process
// of its own runs them, and do what the values say.
func TestCommandArgsAsCommands(t *testing.T) {
	out := t.TempDir()
	lines, err := lifecycle.CommandArgs(lifecycle.Spec{Workload: "oltp", Phases: []workload.Phase{workload.Load, workload.Run},
		Values: map[string][]string{"out": {out}, "mix": {"point-select"}, "scale": {"0.001"}, "load.seed": {"0042"},
			"users": {"1", "2"}, "ramp": {"0s"}, "duration": {"1s"}, "interval": {"1s"}, "set": {"cache_size=-4000"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || !strings.Contains(strings.Join(lines[0], " "), "--seed=42") || strings.Contains(strings.Join(lines[1], " "), "--seed") {
		t.Fatalf("command lines %q", lines)
	}
	for _, args := range lines {
		if stdout, err := runCLI(t, args...); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, stdout)
		}
	}
	li, err := metrics.ReadJSONFile[oltp.LoadInfo](filepath.Join(out, oltp.LoadInfoFile))
	if err != nil || li == nil || li.Seed != 42 || li.Scale != 0.001 {
		t.Fatalf("load info %+v, %v", li, err)
	}
	res, err := metrics.ReadJSONFile[oltp.Result](filepath.Join(out, oltp.ResultFile))
	if err != nil || res == nil || len(res.Levels) != 2 || res.Levels[1].Users != 2 || res.Engine.Settings["cache_size"] != "-4000" || res.Energy == nil {
		t.Fatalf("result %+v, %v", res, err)
	}
}
