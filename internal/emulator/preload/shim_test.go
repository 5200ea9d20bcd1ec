//go:build linux && cgo

package preload

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildProbe compiles testdata/shimprobe.c as Debian compiles its servers.
func buildProbe(t *testing.T) string {
	t.Helper()
	cc, err := compiler()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "shimprobe")
	if msg, err := exec.Command(cc, "-O2", "-D_FORTIFY_SOURCE=2", "-o", out, "testdata/shimprobe.c").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, msg)
	}
	return out
}

// TestShim runs a program with the shim loaded against a ring this test serves and
// checks, call by call, what reached the ring: the device's reads, writes and
// flushes (through write, pwrite, pwritev, read, pread, preadv, fsync, fdatasync, a
// dup, a forked child, a relative path and an O_DIRECT open), none of the I/O on a
// file elsewhere, and the mmap it cannot time reported.
func TestShim(t *testing.T) {
	so, err := Shim()
	if err != nil {
		t.Fatal(err)
	}
	probe := buildProbe(t)
	dir := t.TempDir()
	tier, other := filepath.Join(dir, "tier"), filepath.Join(dir, "other")
	for _, d := range []string{tier, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	canon, err := filepath.EvalSymlinks(tier)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Create(dir, Config{Devices: []Device{{Dir: canon}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stop := make(chan struct{})
	done := serve(r, 20*time.Microsecond, stop)
	cmd := exec.Command(probe, tier, other)
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+so, "TIERBENCH_RING="+r.Path())
	out, err := cmd.CombinedOutput()
	close(stop)
	seen := <-done
	reqs, comps := seen.reqs, seen.comps
	if err != nil {
		t.Fatalf("probe: %v: %s", err, out)
	}
	var n [3]int
	direct := 0
	for _, q := range reqs {
		n[q.op]++
		if q.direct {
			direct++
		}
	}
	if n != [3]int{4, 6, 2} || direct != 2 {
		t.Errorf("the ring saw %d reads, %d writes, %d flushes (%d direct); want 4, 6, 2 (2 direct): %+v", n[0], n[1], n[2], direct, reqs)
	}
	if len(comps) != len(reqs) {
		t.Errorf("%d completions for %d requests", len(comps), len(reqs))
	}
	h := r.Health()
	if h.Attached != 1 || h.Failed != "" || h.Unseen != 1 || !strings.Contains(h.UnseenFirst, "mmap") {
		t.Errorf("health %+v: want one process attached (the fork does not attach again), no failure, the mmap unseen", h)
	}
}

// TestCheckBinary: the shim refuses what the loader would not load it into.
func TestCheckBinary(t *testing.T) {
	cc, err := compiler()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	if err := os.WriteFile(src, []byte("int main(void){return 0;}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	static := filepath.Join(dir, "static")
	if msg, err := exec.Command(cc, "-static", "-o", static, src).CombinedOutput(); err != nil {
		t.Fatalf("cc -static: %v: %s", err, msg)
	}
	dynamic := filepath.Join(dir, "dynamic")
	if msg, err := exec.Command(cc, "-o", dynamic, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v: %s", err, msg)
	}
	setuid := filepath.Join(dir, "setuid")
	b, _ := os.ReadFile(dynamic)
	if err := os.WriteFile(setuid, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(setuid, 0o755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "text")
	if err := os.WriteFile(text, []byte("hello"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
	}{
		{dynamic, ""}, {script, ""},
		{static, "is statically linked"}, {setuid, "is setuid or setgid"}, {text, "neither an ELF program nor a script"},
		{filepath.Join(dir, "missing"), "no such file"},
	} {
		err := CheckBinary(tc.path)
		var be *BinaryError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.path, err)
		case tc.want != "" && (!errors.As(err, &be) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error saying %q", tc.path, err, tc.want)
		}
	}
}
