package postmark

import (
	"syscall"
	"unsafe"
)

// The executor's system calls on the run's files, made with syscall.RawSyscall: the
// workload is one goroutine doing one call after another, as Postmark's C does, and the
// runtime's bookkeeping around a blocking call (entersyscall, and sysmon handing the P
// to another thread when a create or unlink is slow) was most of the CPU that tierbench
// spent beyond Postmark's (docs/postmark.md, "Against Debian's postmark"). The other
// goroutines of a run (the monitor, the progress line, signals) have the other Ps; on
// one CPU they wait at most one call.

// sysOpen opens path, which ends with a NUL: the kernel's string, with no copy.
func sysOpen(path []byte, flags int, perm uint32) (int, error) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&path[0])), uintptr(flags), uintptr(perm), 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// atFDCWD is AT_FDCWD (-100) as the kernel's int argument.
var atFDCWD = -100

func sysRead(f int, b []byte) (int, error)  { return readWrite(syscall.SYS_READ, f, b) }
func sysWrite(f int, b []byte) (int, error) { return readWrite(syscall.SYS_WRITE, f, b) }

// readWrite is read(2) or write(2) (trap) of b on f.
func readWrite(trap uintptr, f int, b []byte) (int, error) {
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	r, _, e := syscall.RawSyscall(trap, uintptr(f), uintptr(p), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func sysClose(f int) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(f), 0, 0); e != 0 {
		return e
	}
	return nil
}

// sysUnlink removes path, which ends with a NUL.
func sysUnlink(path []byte) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_UNLINKAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&path[0])), 0); e != 0 {
		return e
	}
	return nil
}

func sysFstat(f int, st *syscall.Stat_t) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_FSTAT, uintptr(f), uintptr(unsafe.Pointer(st)), 0); e != 0 {
		return e
	}
	return nil
}

func sysSeekEnd(f int) (int64, error) {
	r, _, e := syscall.RawSyscall(syscall.SYS_LSEEK, uintptr(f), 0, uintptr(2)) // SEEK_END
	if e != 0 {
		return 0, e
	}
	return int64(r), nil
}
