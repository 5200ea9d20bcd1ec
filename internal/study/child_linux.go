package study

import "syscall"

// childAttr puts a child in a process group of its own, and has the kernel send it
// SIGTERM when the study dies (even by SIGKILL), so it stops cleanly.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
