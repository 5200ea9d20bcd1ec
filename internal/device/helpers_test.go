package device

import (
	"testing"
	"time"
)

const us = time.Microsecond
const ms = time.Millisecond

// testRegistry is the built-ins plus testdata/test-devices.yaml (thdd, tssd, tslow).
func testRegistry(t *testing.T) *Registry {
	t.Helper()
	r, err := Load("testdata/test-devices.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func build(t *testing.T, r *Registry, spec string) Model {
	t.Helper()
	m, err := r.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// step is one request and the completion worked out by hand.
type step struct {
	at   time.Duration
	req  Request
	want time.Duration
}

func runSteps(t *testing.T, m Model, steps []step) {
	t.Helper()
	for i, s := range steps {
		if got := m.Submit(s.at, s.req); got != s.want {
			t.Errorf("step %d: %v %d+%d at %v: completion %v, want %v", i, s.req.Op, s.req.Offset, s.req.Size, s.at, got, s.want)
		}
	}
}

func rd(off, size int64) Request { return Request{Op: OpRead, Offset: off, Size: size, File: 1} }
func wr(off, size int64) Request { return Request{Op: OpWrite, Offset: off, Size: size, File: 1} }
func fl(file uint64) Request     { return Request{Op: OpFlush, File: file} }
