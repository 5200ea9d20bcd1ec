//go:build !linux

package postmark

import (
	"io"
	"syscall"
)

// Elsewhere the executor's calls are the syscall package's (rawsys_linux.go says why
// Linux makes them raw).

// sysOpen and sysUnlink take a path that ends with a NUL, as the kernel does.
func sysOpen(path []byte, flags int, perm uint32) (int, error) {
	return syscall.Open(string(path[:len(path)-1]), flags, perm)
}
func sysRead(f int, b []byte) (int, error)     { return syscall.Read(f, b) }
func sysWrite(f int, b []byte) (int, error)    { return syscall.Write(f, b) }
func sysClose(f int) error                     { return syscall.Close(f) }
func sysUnlink(path []byte) error              { return syscall.Unlink(string(path[:len(path)-1])) }
func sysFstat(f int, st *syscall.Stat_t) error { return syscall.Fstat(f, st) }
func sysSeekEnd(f int) (int64, error)          { return syscall.Seek(f, 0, io.SeekEnd) }
