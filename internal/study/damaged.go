package study

import (
	"encoding/json"
	"errors"
	"fmt"

	"tierbench/internal/metrics"
)

// DamagedError is a file of a study's directory that does not read as what tierbench
// wrote there (a disk fault, an edit by hand; tierbench writes each atomically): its
// path and what is wrong with it. Where it is read says how to recover.
type DamagedError struct {
	Path string
	Err  error
}

func (e *DamagedError) Error() string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(e.Err, &syn) && syn.Error() == "unexpected end of JSON input":
		return fmt.Sprintf("%s is damaged: it is cut short after %d bytes", e.Path, syn.Offset)
	case errors.As(e.Err, &syn):
		return fmt.Sprintf("%s is damaged: it is not JSON from byte %d on", e.Path, syn.Offset)
	case errors.As(e.Err, &typ):
		return fmt.Sprintf("%s is damaged: its field %s holds a JSON %s, not what tierbench writes there", e.Path, typ.Field, typ.Value)
	}
	return fmt.Sprintf("%s is damaged: %v", e.Path, e.Err)
}

func (e *DamagedError) Unwrap() error { return e.Err }

// readJSON reads the JSON file path into a T: nil when there is none, a
// *DamagedError when it does not decode.
func readJSON[T any](path string) (*T, error) {
	v, err := metrics.ReadJSONFile[T](path)
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return nil, &DamagedError{Path: path, Err: err}
	}
	return v, err
}
