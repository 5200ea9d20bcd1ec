package emulator

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// spinWindow is how long before a deadline sleepUntil stops sleeping and spins.
const spinWindow = 300 * time.Microsecond

// sleepUntil blocks until t. time.Sleep overshoots by up to a millisecond on some hosts
// (measured on the 2-core CI VM: 1 ms late for a 20 us sleep), which would swamp an SSD
// model; clock_nanosleep with a 1 ns timer slack on a locked thread wakes within ~10-20
// us. It costs an OS thread per sleeping request, which is what a queue of 32 needs.
//
// With spin, the last spinWindow is spent busy-waiting instead: waking an idle CPU costs
// 50-200 us on a virtual machine (measured on the CI VM, a Firecracker guest), which a
// device answering in tens of microseconds cannot absorb. The emulator spins only for a
// request that is alone on its device, so a deep queue does not eat the CPUs.
func sleepUntil(t time.Time, spin bool) {
	if spin {
		if early := t.Add(-spinWindow); time.Until(early) > 0 {
			sleepUntil(early, false)
		}
		for time.Now().Before(t) {
		}
		return
	}
	d := time.Until(t)
	if d <= 0 {
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const prSetTimerslack = 29
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerslack, 1, 0)
	for d > 0 {
		if !nanosleep(d) {
			return
		}
		d = time.Until(t)
	}
}

// nanosleep sleeps d on this thread; false unless interrupted.
func nanosleep(d time.Duration) bool {
	ts := syscall.NsecToTimespec(int64(d))
	const clockMonotonic = 1
	_, _, errno := syscall.Syscall6(syscall.SYS_CLOCK_NANOSLEEP, clockMonotonic, 0,
		uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	return errno == syscall.EINTR
}

// monoNow is CLOCK_MONOTONIC in ns: the clock the preload ring's clients stamp
// requests with (and the one behind Go's monotonic time).
func monoNow() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}
