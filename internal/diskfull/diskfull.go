// Package diskfull gives tests a real file system that fills up: a tmpfs of a few
// MiB, mounted for one test and unmounted after it, so that "no space left on device"
// comes from the kernel, as on a full disk, not from a fake writer.
package diskfull

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes on a new directory (mode 0755) and unmounts it
// when t ends. Mounting needs root: without it the test is skipped, except under
// CI=true, where it fails.
func Mount(t testing.TB, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: a full-disk test mounts a tmpfs and needs root")
		}
		t.Skip("a full-disk test mounts a tmpfs and needs root")
	}
	dir, err := os.MkdirTemp("", "tierbench-diskfull-")
	if err != nil {
		t.Fatal(err)
	}
	opts := "size=" + strconv.FormatInt(size, 10) + ",mode=0755"
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		os.Remove(dir)
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount a tmpfs on %s: %v", dir, err)
		}
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			syscall.Unmount(dir, syscall.MNT_DETACH) // a file still open: detach, the kernel frees it after
		}
		os.Remove(dir)
	})
	return dir
}

// Fill writes a file in dir until the file system has no space left, and returns
// its path; removing it frees the space again.
func Fill(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 64<<10)
	// Bounded by the file system's size; the guard stops a file system that never fills.
	for written := int64(0); written < 1<<30; {
		n, err := f.Write(block)
		written += int64(n)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// The last partial block may have left a page or two: fill them byte by byte.
	for range 1 << 16 {
		if _, err := f.Write(block[:1]); err != nil {
			return path
		}
	}
	t.Fatalf("%s never filled", dir)
	return ""
}
