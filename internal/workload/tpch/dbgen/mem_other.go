//go:build !linux

package dbgen

func allocPoolMem(n int) []byte { return make([]byte, n) }

func freePoolMem([]byte) {}
