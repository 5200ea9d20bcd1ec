package capacity

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// OverrideFlag is the flag, on every command that checks capacity, that runs a
// command whose estimate exceeds this host's limits anyway (for machines whose
// memory or disk tierbench cannot see, e.g. storage mounted later).
const OverrideFlag = "--ignore-limits"

// OverrideHelp is OverrideFlag's help, the same on every command.
const OverrideHelp = "run even when the estimated memory or disk exceeds what this host has (for hosts whose limits tierbench cannot see)"

// Need is what a command estimates it will use.
type Need struct {
	// What names the command and the input that sizes it, for the error:
	// "tpcc load --warehouses 100000".
	What string
	// Memory is the resident memory the run adds to the host (client and servers), in
	// bytes; 0 when not estimated.
	Memory float64
	// Disk is what the run writes below DiskDir, in bytes; 0 when not estimated.
	Disk float64
	// DiskDir is where the data goes; it need not exist yet (its nearest existing
	// parent is measured).
	DiskDir string
	// Basis says how the estimate was made, e.g. "about 100 MB per warehouse"; it ends
	// the error so a user can check the arithmetic.
	Basis string
}

// Limits are what this host has to give.
type Limits struct {
	// MemAvailable is /proc/meminfo's MemAvailable: memory that can be used without
	// swapping.
	MemAvailable float64
	// DiskFree is the space an unprivileged user may still write on DiskDir's file
	// system (statfs f_bavail).
	DiskFree float64
	// DiskDir is the directory whose file system DiskFree describes.
	DiskDir string
}

// TooBigError says that a run's estimate exceeds a limit of this host.
type TooBigError struct {
	Need     Need
	Resource string // "memory" or "disk"
	// Estimate and Limit are in bytes.
	Estimate, Limit float64
	// Where is the directory whose free space is the limit (disk only).
	Where string
}

func (e *TooBigError) Error() string {
	where := ""
	if e.Resource == "disk" {
		where = " on " + e.Where
	}
	avail := "available"
	if e.Resource == "disk" {
		avail = "free"
	}
	basis := ""
	if e.Need.Basis != "" {
		basis = " (" + e.Need.Basis + ")"
	}
	return fmt.Sprintf("%s needs about %s of %s%s, but this host has %s %s%s: make it smaller, or give %s to run it anyway",
		e.Need.What, Bytes(e.Estimate), e.Resource, where, Bytes(e.Limit), avail, basis, OverrideFlag)
}

// Check compares need with this host's limits; with ignore set it checks nothing.
func Check(need Need, ignore bool) error {
	if ignore {
		return nil
	}
	if need.Memory <= 0 && need.Disk <= 0 {
		return nil
	}
	lim, err := HostLimits(need.DiskDir)
	if err != nil {
		// A host whose limits cannot be read is not a reason to refuse a run; the
		// estimate is a guard, not a measurement.
		return nil
	}
	return lim.Check(need)
}

// Check compares need with lim. Non-finite estimates (an overflowed product) always
// exceed the limit.
func (lim Limits) Check(need Need) error {
	if exceeds(need.Memory, lim.MemAvailable) {
		return &TooBigError{Need: need, Resource: "memory", Estimate: need.Memory, Limit: lim.MemAvailable}
	}
	if need.DiskDir != "" && exceeds(need.Disk, lim.DiskFree) {
		return &TooBigError{Need: need, Resource: "disk", Estimate: need.Disk, Limit: lim.DiskFree, Where: lim.DiskDir}
	}
	return nil
}

func exceeds(estimate, limit float64) bool {
	if estimate <= 0 || limit <= 0 {
		return estimate != 0 && (math.IsNaN(estimate) || math.IsInf(estimate, 1))
	}
	return math.IsNaN(estimate) || estimate > limit
}

// HostLimits reads this host's available memory and the free space of dir's file
// system (of its nearest existing parent when dir does not exist yet; "" skips disk).
func HostLimits(dir string) (Limits, error) {
	var lim Limits
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return lim, err
	}
	mi, err := fs.Meminfo()
	if err != nil {
		return lim, err
	}
	if mi.MemAvailableBytes != nil {
		lim.MemAvailable = float64(*mi.MemAvailableBytes)
	}
	if dir == "" {
		return lim, nil
	}
	existing, err := nearestExisting(dir)
	if err != nil {
		return lim, err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(existing, &st); err != nil {
		return lim, fmt.Errorf("statfs %s: %w", existing, err)
	}
	lim.DiskFree = float64(st.Bavail) * float64(st.Bsize)
	lim.DiskDir = existing
	return lim, nil
}

// nearestExisting is dir or its nearest parent that exists.
func nearestExisting(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(abs); err == nil {
			return abs, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return abs, nil
		}
		abs = parent
	}
}

// Bytes formats a byte count for people: 1.5 GiB, 320 MiB, 3.7 EiB; "more than any
// machine has" for infinities and NaN.
func Bytes(n float64) string {
	if math.IsNaN(n) || math.IsInf(n, 0) || n >= 1<<70 {
		return "more than any machine has"
	}
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f bytes", n)
	}
	if n < 10 {
		return fmt.Sprintf("%.1f %s", n, units[i])
	}
	return fmt.Sprintf("%.0f %s", n, units[i])
}
