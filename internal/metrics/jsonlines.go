package metrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
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
// the file and the line, as is an error from f. Lines may be of any length. A null
// where T has a float is read as NaN: what JSONLines writes for a number JSON cannot
// hold comes back as no number, not as 0.
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
			if bytes.Contains(b, []byte("null")) {
				var tree any
				if json.Unmarshal(b, &tree) == nil {
					nullsToNaN(reflect.ValueOf(v).Elem(), tree, 0)
				}
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

// nullsToNaN sets to NaN each float of v (settable) where tree, the same JSON decoded
// as any, has null: json leaves a float it reads null into as it was, 0 in a new value.
func nullsToNaN(v reflect.Value, tree any, depth int) {
	if depth > maxDepth || !v.IsValid() {
		return
	}
	t := v.Type()
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || t.Implements(jsonUnmarshaler) {
		return // decoded its own way
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if tree == nil && v.CanSet() {
			v.SetFloat(math.NaN())
		}
	case reflect.Pointer:
		if !v.IsNil() {
			nullsToNaN(v.Elem(), tree, depth+1)
		}
	case reflect.Struct:
		obj, ok := tree.(map[string]any)
		if !ok {
			return
		}
		for i := range t.NumField() {
			name, ok := jsonName(t.Field(i))
			if !ok {
				continue
			}
			if name == "" { // embedded: its fields are the parent's
				nullsToNaN(v.Field(i), tree, depth+1)
			} else if sub, ok := obj[name]; ok {
				nullsToNaN(v.Field(i), sub, depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		arr, ok := tree.([]any)
		if !ok {
			return
		}
		for i := range min(v.Len(), len(arr)) {
			nullsToNaN(v.Index(i), arr[i], depth+1)
		}
	case reflect.Map:
		obj, ok := tree.(map[string]any)
		if !ok || v.IsNil() || t.Key().Kind() != reflect.String {
			return
		}
		for key, sub := range obj {
			k := reflect.ValueOf(key).Convert(t.Key())
			e := v.MapIndex(k)
			if !e.IsValid() {
				continue
			}
			cp := reflect.New(t.Elem()).Elem() // map elements cannot be set in place
			cp.Set(e)
			nullsToNaN(cp, sub, depth+1)
			v.SetMapIndex(k, cp)
		}
	}
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
