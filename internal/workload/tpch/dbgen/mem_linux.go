//go:build linux

package dbgen

import "syscall"

// allocPoolMem returns n zero bytes for the text pool. On Linux they come
// from an anonymous mapping marked for transparent huge pages: comments are
// cut from random places in the pool's pieces, and 4 KiB pages would make
// almost every cut a TLB miss. The pool lives for the whole process.
func allocPoolMem(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]byte, n)
	}
	_ = syscall.Madvise(b, 14) // MADV_HUGEPAGE; best effort
	return b
}

// freePoolMem releases memory from allocPoolMem that is no longer needed.
func freePoolMem(b []byte) {
	_ = syscall.Munmap(b[:cap(b)])
}
