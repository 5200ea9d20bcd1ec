package lifecycle

import (
	"bytes"
	"strings"
	"testing"

	"tierbench/internal/engine"
	_ "tierbench/internal/engine/mysql"
	_ "tierbench/internal/engine/postgres"
	_ "tierbench/internal/engine/sqlite"
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
