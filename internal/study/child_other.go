//go:build !linux

package study

import "syscall"

// childAttr puts a child in a process group of its own.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
