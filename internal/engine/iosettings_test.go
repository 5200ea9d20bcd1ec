package engine

import (
	"strings"
	"testing"
)

func TestParseFlushMethod(t *testing.T) {
	for in, want := range map[string]FlushMethod{"": "", "Buffered": Buffered, " direct ": Direct} {
		if got, err := ParseFlushMethod(in); err != nil || got != want {
			t.Errorf("ParseFlushMethod(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFlushMethod("O_DIRECT"); err == nil || !strings.Contains(err.Error(), `--flush-method "O_DIRECT"`) {
		t.Errorf("O_DIRECT: %v", err)
	}
}
