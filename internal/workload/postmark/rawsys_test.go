package postmark

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSysCalls: the executor's system calls (raw on Linux) open, write, stat, seek,
// read, close and unlink a file as the syscall package's would, and return the
// kernel's errno.
func TestSysCalls(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	path := append([]byte(name), 0) // as the kernel takes it
	f, err := sysOpen(path, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := sysWrite(f, []byte("hello, world")); n != 12 || err != nil {
		t.Fatalf("write: %d, %v", n, err)
	}
	var st syscall.Stat_t
	if err := sysFstat(f, &st); err != nil || st.Size != 12 || st.Mode&0o777 != 0o600 {
		t.Fatalf("fstat: size %d mode %o, %v; want 12, 600", st.Size, st.Mode&0o777, err)
	}
	if end, err := sysSeekEnd(f); end != 12 || err != nil {
		t.Fatalf("seek end: %d, %v", end, err)
	}
	if err := sysClose(f); err != nil {
		t.Fatal(err)
	}
	if f, err = sysOpen(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	if n, err := sysRead(f, buf); n != 12 || err != nil || string(buf[:n]) != "hello, world" {
		t.Fatalf("read: %q, %v", buf[:n], err)
	}
	if n, err := sysRead(f, buf); n != 0 || err != nil {
		t.Fatalf("read at the end: %d, %v; want 0, nil", n, err)
	}
	if n, err := sysRead(f, nil); n != 0 || err != nil {
		t.Fatalf("read of nothing: %d, %v", n, err)
	}
	sysClose(f)
	if err := sysUnlink(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Fatalf("after unlink: %v", err)
	}
	// errors are the kernel's
	if _, err := sysOpen(path, syscall.O_RDONLY, 0); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("open of a missing file: %v, want ENOENT", err)
	}
	if err := sysUnlink(path); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("unlink of a missing file: %v, want ENOENT", err)
	}
	if err := sysClose(-1); !errors.Is(err, syscall.EBADF) {
		t.Errorf("close(-1): %v, want EBADF", err)
	}
	if _, err := sysWrite(-1, []byte("x")); !errors.Is(err, syscall.EBADF) {
		t.Errorf("write(-1): %v, want EBADF", err)
	}
}
