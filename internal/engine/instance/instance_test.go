package instance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindPicksHighestVersion(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9.6", "15", "13"} {
		dir := filepath.Join(root, v, "bin")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "initdb"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", t.TempDir())
	got, err := Find([]string{"initdb"}, []string{filepath.Join(root, "*", "bin")}, "postgresql")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "15", "bin", "initdb"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	_, err = Find([]string{"mariadbd"}, []string{filepath.Join(root, "*", "bin")}, "mariadb-server")
	if err == nil || !strings.Contains(err.Error(), "apt-get install mariadb-server") {
		t.Errorf("missing binary: got %v", err)
	}
}

func TestCheckReachable(t *testing.T) {
	// Not t.TempDir: its parent is 0700.
	root, err := os.MkdirTemp("", "tierbench-reach-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	closed := filepath.Join(root, "closed")
	open := filepath.Join(root, "open")
	for dir, mode := range map[string]os.FileMode{closed: 0o700, open: 0o711} {
		if err := os.Mkdir(dir, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, mode)
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	// An owner that is neither the directory's owner nor its group.
	u := User{Name: "someone", UID: 54321, GID: 54321, Switch: true}
	if err := u.CheckReachable(filepath.Join(closed, "x")); err == nil || !strings.Contains(err.Error(), "chmod o+x "+closed) {
		t.Errorf("closed: got %v", err)
	}
	if err := u.CheckReachable(open); err != nil {
		t.Errorf("open: %v", err)
	}
}
