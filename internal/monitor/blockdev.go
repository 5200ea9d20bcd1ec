package monitor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// Placement is where one directory's files are: the device the file system is on,
// the chain down to whole disks, and those disks, whose counters the storage source
// reads. Unavailable says why a directory has none (tmpfs, an emulated device).
type Placement struct {
	Label string `json:"label"`
	Path  string `json:"path"`
	// Device is the kernel's name of the file system's device (sda1, dm-0, vda).
	Device string `json:"device,omitempty"`
	// Chain describes the way down: "dm-0 (vg-data) on sda2 on sda".
	Chain string   `json:"chain,omitempty"`
	Disks []string `json:"disks,omitempty"`
	// Unavailable says why the directory is on no block device.
	Unavailable string `json:"unavailable,omitempty"`
}

// resolver maps a directory to its block devices through /sys (and /proc's
// mountinfo for file systems whose device number is not a block device's, as btrfs).
type resolver struct {
	sys  string // sysfs mount point
	proc procfs.FS
	// statDev is the device number of a path's file system, and of a device node its
	// own; tests replace it.
	statDev func(path string) (dev uint64, rdev uint64, err error)
}

func statDev(path string) (uint64, uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, 0, err
	}
	return uint64(st.Dev), uint64(st.Rdev), nil
}

// maxDepth bounds the way down through loop devices and device-mapper tables.
const maxDepth = 8

// place finds the disks under dir.
func (r *resolver) place(lbl, dir string) Placement {
	p := Placement{Label: lbl, Path: dir}
	dev, _, err := r.statDev(dir)
	if err != nil {
		p.Unavailable = err.Error()
		return p
	}
	name, chain, disks, err := r.device(unix.Major(dev), unix.Minor(dev), 0)
	if err != nil {
		p.Unavailable = err.Error()
		return p
	}
	p.Device, p.Chain, p.Disks = name, chain, disks
	return p
}

// device resolves the block device major:minor to its kernel name, the chain below
// it, and the whole disks at the bottom.
func (r *resolver) device(major, minor uint32, depth int) (name, chain string, disks []string, err error) {
	if depth > maxDepth {
		return "", "", nil, fmt.Errorf("device %d:%d: more than %d layers of devices", major, minor, maxDepth)
	}
	if major == 0 {
		return r.anonymous(major, minor, depth)
	}
	link := filepath.Join(r.sys, "dev", "block", fmt.Sprintf("%d:%d", major, minor))
	dir, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "", "", nil, fmt.Errorf("device %d:%d: not in %s", major, minor, filepath.Dir(link))
	}
	return r.node(dir, depth)
}

// node resolves the block device whose sysfs directory is dir.
func (r *resolver) node(dir string, depth int) (name, chain string, disks []string, err error) {
	name = filepath.Base(dir)
	chain = name
	if dm, err := os.ReadFile(filepath.Join(dir, "dm", "name")); err == nil {
		chain += " (" + strings.TrimSpace(string(dm)) + ")"
	}
	if exists(filepath.Join(dir, "partition")) {
		disk := filepath.Base(filepath.Dir(dir))
		return name, chain + " on " + disk, []string{disk}, nil
	}
	if backing, err := os.ReadFile(filepath.Join(dir, "loop", "backing_file")); err == nil {
		file := strings.TrimSpace(string(backing))
		dev, _, err := r.statDev(file)
		if err != nil {
			return name, "", nil, fmt.Errorf("%s: backing file %s: %w", name, file, err)
		}
		_, below, d, err := r.device(unix.Major(dev), unix.Minor(dev), depth+1)
		if err != nil {
			return name, "", nil, fmt.Errorf("%s: backing file %s: %w", name, file, err)
		}
		return name, chain + " on " + file + " on " + below, d, nil
	}
	slaves, _ := os.ReadDir(filepath.Join(dir, "slaves"))
	if len(slaves) == 0 {
		return name, chain, []string{name}, nil // a whole disk: sda, nvme0n1, vda
	}
	var belows []string
	for _, s := range slaves {
		sdir, err := filepath.EvalSymlinks(filepath.Join(dir, "slaves", s.Name()))
		if err != nil {
			return name, "", nil, fmt.Errorf("%s: %w", name, err)
		}
		_, below, d, err := r.node(sdir, depth+1)
		if err != nil {
			return name, "", nil, err
		}
		belows = append(belows, below)
		disks = appendNew(disks, d...)
	}
	return name, chain + " on " + strings.Join(belows, " + "), disks, nil
}

// anonymous resolves a file system without a block device of its own in its device
// number (btrfs, overlay, tmpfs, FUSE) through the mount's source in mountinfo.
func (r *resolver) anonymous(major, minor uint32, depth int) (name, chain string, disks []string, err error) {
	mounts, err := r.proc.GetMounts()
	if err != nil {
		return "", "", nil, fmt.Errorf("device %d:%d: %w", major, minor, err)
	}
	want := strconv.Itoa(int(major)) + ":" + strconv.Itoa(int(minor))
	for _, m := range mounts {
		if m.MajorMinorVer != want {
			continue
		}
		if !strings.HasPrefix(m.Source, "/dev/") {
			return "", "", nil, fmt.Errorf("on %s (%s), which is no block device%s", m.FSType, m.Source, fsHint(m.FSType))
		}
		_, rdev, err := r.statDev(m.Source)
		if err != nil {
			return "", "", nil, fmt.Errorf("on %s from %s: %w", m.FSType, m.Source, err)
		}
		return r.device(unix.Major(rdev), unix.Minor(rdev), depth+1)
	}
	return "", "", nil, fmt.Errorf("device %d:%d: no mount has it", major, minor)
}

// fsHint explains the file systems a directory tier is often on by mistake.
func fsHint(fstype string) string {
	switch {
	case fstype == "tmpfs" || fstype == "ramfs":
		return ": its files are in memory"
	case strings.HasPrefix(fstype, "fuse"):
		return ": an emulated device's series are emu.<tier>"
	case fstype == "overlay":
		return ": a container's file system; give a directory on a volume to see its disk"
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil || !errors.Is(err, os.ErrNotExist)
}

// appendNew appends the items not yet in list.
func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, l := range list {
			found = found || l == it
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}
