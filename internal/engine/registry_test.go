package engine

import (
	"context"
	"strings"
	"testing"
)

// TestDialectOf: a command reads an engine's facts (its SessionMemory) by name before
// it opens the engine.
func TestDialectOf(t *testing.T) {
	d := &Dialect{Name: "test-dialect", SessionMemory: 3 << 20}
	Register("test-dialect", func(context.Context, Config) (Engine, error) { return nil, nil }, d)
	got, err := DialectOf("test-dialect")
	if err != nil || got != d || got.SessionMemory != 3<<20 {
		t.Errorf("DialectOf = %+v, %v; want the registered dialect", got, err)
	}
	if _, err := DialectOf("oracle"); err == nil || !strings.Contains(err.Error(), `unknown engine "oracle": valid engines are`) {
		t.Errorf("DialectOf(oracle): %v", err)
	}
}
