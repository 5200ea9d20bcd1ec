package metrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// TornLine says that a JSON lines file ends in a line cut short: the end of what a
// buffered writer had flushed when it was killed (kill -9, an OOM kill, a crash), with
// no newline after it. Readers use the complete lines before it and say so.
type TornLine struct {
	Path string
	// Line is the torn line's number; the lines before it are complete.
	Line int
	// Bytes is how much of it there is.
	Bytes int
}

func (t *TornLine) String() string {
	return fmt.Sprintf("%s ends in a torn line %d (%d bytes without an end: what a run killed while writing leaves); its %d complete lines are used",
		t.Path, t.Line, t.Bytes, t.Line-1)
}

// ReadJSONLines decodes each line of the JSON lines file at path into a new T and
// calls f with its line number, in order; blank lines are skipped. The last line,
// when it has no newline and does not decode, is torn: it is left out and described
// by the *TornLine returned. Any other line that does not decode is an error naming
// the file and the line, as is an error from f. Lines may be of any length.
func ReadJSONLines[T any](path string, f func(line int, v *T) error) (*TornLine, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	r := bufio.NewReaderSize(file, 64<<10)
	for line := 1; ; line++ {
		b, err := r.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s, line %d: %w", path, line, err)
		}
		last := err != nil // io.EOF: b has no newline
		if len(bytes.TrimSpace(b)) > 0 {
			v := new(T)
			if derr := json.Unmarshal(b, v); derr != nil {
				if last {
					return &TornLine{Path: path, Line: line, Bytes: len(b)}, nil
				}
				return nil, fmt.Errorf("%s, line %d: %w", path, line, derr)
			}
			if ferr := f(line, v); ferr != nil {
				return nil, fmt.Errorf("%s, line %d: %w", path, line, ferr)
			}
		}
		if last {
			return nil, nil
		}
	}
}
