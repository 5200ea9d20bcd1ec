package emulator

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"tierbench/internal/host"
)

// fsType is the file system type of every emulator mount in /proc/self/mountinfo
// ("fuse." + the go-fuse Name).
const fsType = "fuse.tierbench"

// CheckFUSE says whether this process can mount a FUSE file system, and if not, why and
// what to do.
func CheckFUSE() error {
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fuseUnavailable("/dev/fuse missing")
	case err != nil:
		return fuseUnavailable(fmt.Sprintf("cannot open /dev/fuse: %v", err))
	}
	f.Close()
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("fusermount3"); err != nil {
			if _, err := exec.LookPath("fusermount"); err != nil {
				return fuseUnavailable("not root, and no fusermount3 to mount as a user")
			}
		}
	}
	return nil
}

// mountEntry is one emulator mount from /proc/self/mountinfo.
type mountEntry struct {
	point  string
	source string // "tierbench-PID:NAME"
}

// ownerPID is the pid of the server that made the mount, from its source.
func (m mountEntry) ownerPID() int {
	s := strings.TrimPrefix(m.source, "tierbench-")
	if i := strings.IndexByte(s, ':'); i > 0 {
		if pid, err := strconv.Atoi(s[:i]); err == nil {
			return pid
		}
	}
	return 0
}

func mountSource(pid int, name string) string { return fmt.Sprintf("tierbench-%d:%s", pid, name) }

// emulatorMounts lists the emulator's mounts.
func emulatorMounts() ([]mountEntry, error) {
	ms, err := host.ReadMountinfo("/proc/self/mountinfo")
	var out []mountEntry
	for _, m := range ms {
		if m.FS == fsType {
			out = append(out, mountEntry{point: m.Point, source: m.Source})
		}
	}
	return out, err
}

// isMounted says whether path is an emulator mount point now.
func isMounted(path string) bool {
	ms, _ := emulatorMounts()
	for _, m := range ms {
		if m.point == path {
			return true
		}
	}
	return false
}

// unmount removes a mount: a plain unmount first, then a lazy one (MNT_DETACH) if
// something still holds a file open on it (a database server that is still stopping),
// then fusermount for a user mount.
func unmount(path string) error {
	err := syscall.Unmount(path, 0)
	if err == nil || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOENT) {
		return nil
	}
	if derr := syscall.Unmount(path, syscall.MNT_DETACH); derr == nil {
		return nil
	}
	for _, fm := range []string{"fusermount3", "fusermount"} {
		if p, lerr := exec.LookPath(fm); lerr == nil {
			if exec.Command(p, "-u", "-z", path).Run() == nil {
				return nil
			}
		}
	}
	return fmt.Errorf("unmount %s: %w", path, err)
}

// processAlive says whether pid is a running process.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// staleMount says whether an emulator mount has lost its server: the owner is gone, or
// the kernel says the connection is dead (ENOTCONN), which also covers a reused pid.
func staleMount(m mountEntry) bool {
	if !processAlive(m.ownerPID()) {
		return true
	}
	var st syscall.Stat_t
	return errors.Is(syscall.Stat(m.point, &st), syscall.ENOTCONN)
}

// CleanStale removes emulator mounts whose server died (SIGKILL, a crash, the machine's
// OOM killer) and returns the mount points it removed. Start calls it; so can a user.
func CleanStale() ([]string, error) {
	ms, err := emulatorMounts()
	if err != nil {
		return nil, fmt.Errorf("emulator: list mounts: %w", err)
	}
	var cleaned []string
	var errs []error
	for _, m := range ms {
		if m.ownerPID() == os.Getpid() || !staleMount(m) {
			continue
		}
		if err := unmount(m.point); err != nil {
			errs = append(errs, err)
			continue
		}
		cleaned = append(cleaned, m.point)
	}
	return cleaned, errors.Join(errs...)
}
