//go:build linux

package emulator

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// floorProbe is the scratch file of the server's own probes, in the mount.
func floorProbe(mountPoint string) string {
	return filepath.Join(mountPoint, fmt.Sprintf(".tierbench-floor-%d", os.Getpid()))
}

// measureFloor times reads at queue depth 1 through the mount with the model out of the
// way: the kernel's FUSE round trip, go-fuse and the backing read. It returns the median
// for 4 KiB and the extra time per MiB of a read and of a write (from 1 MiB requests):
// the copies in and out of the kernel. A device whose requests take less than the floor cannot be emulated in real
// time on this host.
func measureFloor(mountPoint string, td *timedDevice) (floor, readPerMiB, writePerMiB time.Duration, err error) {
	td.mu.Lock()
	td.bypass = true
	td.mu.Unlock()
	defer func() {
		td.mu.Lock()
		td.bypass = false
		td.mu.Unlock()
	}()
	path := floorProbe(mountPoint)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, 0, 0, err
	}
	defer os.Remove(path)
	defer f.Close()
	if _, err := f.WriteAt(make([]byte, 1<<20), 0); err != nil {
		return 0, 0, 0, err
	}
	median := func(size, warmup, n int, write bool) (time.Duration, error) {
		buf := make([]byte, size)
		var h Histogram
		for i := range warmup + n {
			t := time.Now()
			off := int64(i%16) * 4096 % int64(1<<20-size+1)
			var err error
			if write {
				_, err = f.WriteAt(buf, off)
			} else {
				_, err = f.ReadAt(buf, off)
			}
			if err != nil {
				return 0, err
			}
			if i >= warmup {
				h.Record(time.Since(t))
			}
		}
		return h.Quantile(0.5), nil
	}
	// The smallest of three medians: another process's burst during one round says
	// nothing about the mount.
	for round := range 3 {
		m, err := median(4<<10, 30, 200, false)
		if err != nil {
			return 0, 0, 0, err
		}
		if round == 0 || m < floor {
			floor = m
		}
	}
	perMiB := func(write bool) (time.Duration, error) {
		small, err := median(4<<10, 20, 100, write)
		if err != nil {
			return 0, err
		}
		big, err := median(1<<20, 5, 40, write)
		if err != nil {
			return 0, err
		}
		return max(big-small, 0) * (1 << 20) / (1<<20 - 4<<10), nil
	}
	if readPerMiB, err = perMiB(false); err != nil {
		return 0, 0, 0, err
	}
	if writePerMiB, err = perMiB(true); err != nil {
		return 0, 0, 0, err
	}
	return floor, readPerMiB, writePerMiB, nil
}
