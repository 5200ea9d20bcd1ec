package lifecycle

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"tierbench/internal/capacity"
	"tierbench/internal/engine"
	_ "tierbench/internal/engine/mysql"
	_ "tierbench/internal/engine/postgres"
	_ "tierbench/internal/engine/sqlite"
	"tierbench/internal/workload"
)

func TestMatchLoaded(t *testing.T) {
	loaded := &engine.Info{Name: "postgres", Mode: engine.Managed}
	for _, tc := range []struct {
		name     string
		args     []string
		wantName string
		wantNote bool
		wantErr  string
	}{
		{"no --engine: the load's", nil, "postgres", true, ""},
		{"the same --engine", []string{"--engine", "postgres"}, "postgres", false, ""},
		{"another --engine", []string{"--engine", "mysql"}, "mysql", false, "--engine mysql: OUT holds data loaded into postgres"},
		{"--dsn names the server", []string{"--engine", "mysql", "--dsn", "u@unix(/s)/d"}, "mysql", false, ""},
		{"--db names the database", []string{"--db", "/elsewhere"}, "sqlite", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSettings(Options{Engine: true, KeepDatabase: true})
			if err := s.Params().FlagSet().Parse(append(tc.args, "--out", "OUT")); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			err := s.matchLoaded("load.json", loaded, &stderr)
			if (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
			if s.EngineName() != tc.wantName {
				t.Errorf("engine %s, want %s", s.EngineName(), tc.wantName)
			}
			if got := strings.Contains(stderr.String(), "note: using --engine postgres, which OUT was loaded into"); got != tc.wantNote {
				t.Errorf("note %q, want one: %v", stderr.String(), tc.wantNote)
			}
		})
	}
	s := NewSettings(Options{Engine: true})
	if err := s.matchLoaded("load.json", nil, &bytes.Buffer{}); err != nil || s.EngineName() != "sqlite" {
		t.Errorf("no load: %v, engine %s", err, s.EngineName())
	}
}

// TestStartFollowsTheLoad: a phase configured before its load was read runs with that
// configuration when the load is in the engine it names, and is configured again for
// the load's engine when no --engine was given: the estimate, which runs after, sees
// that engine's dialect and the buffer that was parsed when it was set.
func TestStartFollowsTheLoad(t *testing.T) {
	stop := errors.New("estimated")
	for _, tc := range []struct {
		name   string
		args   []string
		loaded string
		want   string
	}{
		{"the load's engine, given", []string{"--engine", "sqlite"}, "sqlite", "sqlite"},
		{"no --engine: the load's", nil, "postgres", "postgres"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var facts workload.EngineFacts
			req := workload.Request{
				Load: &workload.NeedsLoad{File: "load.json", Command: "x load", Read: func(string, bool, io.Writer) (*engine.Info, error) {
					return &engine.Info{Name: tc.loaded, Mode: engine.Managed}, nil
				}},
				Needs: func(f workload.EngineFacts) ([]capacity.Need, error) { facts = f; return nil, stop },
			}
			s := NewSettings(Options{Engine: true, KeepDatabase: true, Estimates: true})
			if err := s.Params().FlagSet().Parse(append(tc.args, "--out", t.TempDir(), "--buffer", "64MiB")); err != nil {
				t.Fatal(err)
			}
			cfg, err := s.Config(req)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.start(context.Background(), req, cfg, IO{}, nil); !errors.Is(err, stop) {
				t.Fatalf("start: %v, want the estimate's error", err)
			}
			if facts.Dialect == nil || facts.Dialect.Name != tc.want || facts.BufferBytes != 64<<20 {
				t.Errorf("estimated for %+v with %d bytes, want %s with %d", facts.Dialect, facts.BufferBytes, tc.want, 64<<20)
			}
		})
	}
}
