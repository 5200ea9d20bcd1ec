package host

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Disk is a file system under some of a run's directories, and the disk under it
// when it is a block device's.
type Disk struct {
	// Dirs are the run's directories on it.
	Dirs []string `json:"dirs"`
	// Mount is its mount point, FS its type (ext4, xfs, nfs4, overlay, tmpfs, fuse),
	// Source what is mounted (/dev/nvme0n1p2, server:/export).
	Mount  string `json:"mount"`
	FS     string `json:"fs"`
	Source string `json:"source,omitempty"`
	// Device is the whole disk under a block device's file system (nvme0n1 under
	// nvme0n1p2), with its model, whether it spins, and its size, as /sys says.
	Device     string `json:"device,omitempty"`
	Model      string `json:"model,omitempty"`
	Rotational *bool  `json:"rotational,omitempty"`
	SizeBytes  int64  `json:"size_bytes,omitempty"`
}

// Mount is a line of a mountinfo file (proc(5)): the device number MAJ:MIN, the mount
// point, the file system type and what is mounted, with mountinfo's octal escapes undone.
type Mount struct {
	Dev, Point, FS, Source string
}

// ReadMountinfo reads a mountinfo file (proc(5)): "ID PARENT MAJ:MIN ROOT POINT OPTIONS
// [TAGS...] - FSTYPE SOURCE SUPEROPTIONS". Lines of another shape are skipped. The host
// record and the emulator (which finds its own FUSE mounts here) share it, so both
// read the file the same way.
func ReadMountinfo(path string) ([]Mount, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Mount
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		sep := slices.Index(fs, "-")
		if len(fs) < 5 || sep < 0 || len(fs) < sep+3 {
			continue
		}
		out = append(out, Mount{Dev: fs[2], Point: unescape(fs[4]), FS: fs[sep+1], Source: unescape(fs[sep+2])})
	}
	return out, sc.Err()
}

// unescape undoes mountinfo's octal escapes of space, tab, newline and backslash.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// disks finds the file system under each of dirs: the last mount whose point is dir
// or an ancestor of it (later mounts hide earlier ones at the same point), with the
// disk under it.
func (p probe) disks(dirs []string) []Disk {
	ms, _ := ReadMountinfo(p.path("proc/self/mountinfo"))
	var out []Disk
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		real := resolve(dir)
		best := -1
		for i, m := range ms {
			if within(real, m.Point) && (best < 0 || len(m.Point) >= len(ms[best].Point)) {
				best = i
			}
		}
		if best < 0 {
			continue
		}
		m := ms[best]
		if j := slices.IndexFunc(out, func(d Disk) bool { return d.Mount == m.Point }); j >= 0 {
			if !slices.Contains(out[j].Dirs, dir) {
				out[j].Dirs = append(out[j].Dirs, dir)
			}
			continue
		}
		d := Disk{Dirs: []string{dir}, Mount: m.Point, FS: m.FS, Source: m.Source}
		p.blockDevice(&d, m.Dev)
		out = append(out, d)
	}
	return out
}

// blockDevice fills in the disk under a file system of device MAJ:MIN, when /sys
// knows it as a block device: a partition's disk is its parent in /sys.
func (p probe) blockDevice(d *Disk, dev string) {
	link, err := filepath.EvalSymlinks(p.path(filepath.Join("sys/dev/block", dev)))
	if err != nil {
		return
	}
	disk := link
	if _, err := os.Stat(filepath.Join(link, "partition")); err == nil {
		disk = filepath.Dir(link)
	}
	d.Device = filepath.Base(disk)
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(disk, name))
		return strings.TrimSpace(string(b))
	}
	d.Model = read("device/model")
	if r := read("queue/rotational"); r == "0" || r == "1" {
		spins := r == "1"
		d.Rotational = &spins
	}
	if n, err := strconv.ParseInt(read("size"), 10, 64); err == nil {
		d.SizeBytes = n * 512 // /sys counts 512-byte sectors whatever the disk's
	}
}

// resolve is dir as the kernel sees it: absolute, symbolic links followed, from its
// nearest ancestor that exists (a run's directory may not exist yet).
func resolve(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	rest := ""
	for cur := abs; ; cur = filepath.Dir(cur) {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		if cur == filepath.Dir(cur) {
			return abs
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}

// within reports whether path is point or under it.
func within(path, point string) bool {
	if point == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == point || strings.HasPrefix(path, point+"/")
}
