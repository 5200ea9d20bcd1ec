package twin

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Where is the device and file system a directory is on, as the kernel reports them.
type Where struct {
	Dir string `json:"dir"`
	// Mount is the mount point, FSType its file system, Source what is mounted there
	// (/dev/vda, /dev/loop0).
	Mount  string `json:"mount"`
	FSType string `json:"fs_type"`
	Source string `json:"source"`
	// Device is the block device's kernel name (vda, loop0; a partition's disk), and
	// Scheduler, Rotational, Model what sysfs says of it.
	Device     string `json:"device,omitempty"`
	Scheduler  string `json:"scheduler,omitempty"`
	Rotational bool   `json:"rotational"`
	Model      string `json:"model,omitempty"`
	// QueueDepth is the block layer's queue of the device (nr_requests): how many
	// requests it holds in the device's queue before a submitter waits; 0 unknown.
	QueueDepth int `json:"queue_depth,omitempty"`
	// MaxRequestKiB is the largest request the block layer sends the device
	// (max_sectors_kb): a larger read or write is split into requests of this size;
	// 0 unknown.
	MaxRequestKiB int `json:"max_request_kib,omitempty"`
	// ReadAheadKiB is how far the host's page cache reads ahead on the device's files
	// (read_ahead_kb); nil unknown.
	ReadAheadKiB *int64 `json:"read_ahead_kib,omitempty"`
	// CapacityBytes is the file system's size, FreeBytes what an unprivileged writer
	// may still use.
	CapacityBytes int64 `json:"capacity_bytes"`
	FreeBytes     int64 `json:"free_bytes"`
}

// memoryFS are the file systems that keep their files in RAM: statfs's f_type
// (linux/magic.h) and their names.
var memoryFS = map[int64]string{
	0x01021994: "tmpfs",
	0x858458f6: "ramfs",
	0x958458f6: "hugetlbfs",
}

// Locate checks that dir is a directory on a device and says which. A memory file
// system is refused: it has no device to fit.
func Locate(dir string) (*Where, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such directory: give a directory on the device to measure", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory: give a directory on the device to measure", dir)
	}
	var sfs unix.Statfs_t
	if err := unix.Statfs(abs, &sfs); err != nil {
		return nil, fmt.Errorf("%s: statfs: %w", dir, err)
	}
	w := &Where{Dir: abs,
		CapacityBytes: int64(sfs.Blocks) * sfs.Bsize,
		FreeBytes:     int64(sfs.Bavail) * sfs.Bsize}
	w.Mount, w.FSType, w.Source = mountOf(abs)
	if name, ok := memoryFS[int64(sfs.Type)]; ok {
		return nil, fmt.Errorf("%s is on %s, a file system in memory: there is no device under it to fit; give a directory on the device to measure", dir, name)
	}
	var sst unix.Stat_t
	if err := unix.Stat(abs, &sst); err == nil {
		w.Device = blockDevice(unix.Major(sst.Dev), unix.Minor(sst.Dev))
	}
	if w.Device != "" {
		q := filepath.Join(sysBlock, w.Device, "queue")
		w.Scheduler = selected(readLine(filepath.Join(q, "scheduler")))
		w.Rotational = readLine(filepath.Join(q, "rotational")) == "1"
		w.Model = readLine(filepath.Join(sysBlock, w.Device, "device", "model"))
		w.QueueDepth, _ = strconv.Atoi(readLine(filepath.Join(q, "nr_requests")))
		w.MaxRequestKiB, _ = strconv.Atoi(readLine(filepath.Join(q, "max_sectors_kb")))
		if kib, ok := readAheadKiB(sysBlock, w.Device); ok {
			w.ReadAheadKiB = &kib
		}
	}
	return w, nil
}

// sysBlock is where sysfs lists the block devices.
const sysBlock = "/sys/block"

// readAheadKiB is the readahead the host's page cache does on files of the block
// device dev (vda, loop0: Where.Device): its queue/read_ahead_kb under sys (sysBlock).
// ok is false when the device or the setting is unknown.
func readAheadKiB(sys, dev string) (kib int64, ok bool) {
	if dev == "" {
		return 0, false
	}
	kib, err := strconv.ParseInt(readLine(filepath.Join(sys, dev, "queue", "read_ahead_kb")), 10, 64)
	if err != nil || kib < 0 {
		return 0, false
	}
	return kib, true
}

// mountOf finds the mount holding path in /proc/self/mountinfo: the longest mount
// point that is a prefix of it.
func mountOf(path string) (mount, fstype, source string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 2 {
			continue
		}
		mp := unescapeMount(fields[4])
		if within(path, mp) && len(mp) >= len(mount) {
			mount, fstype, source = mp, tail[0], tail[1]
		}
	}
	return mount, fstype, source
}

func within(path, dir string) bool {
	return dir == "/" || path == dir || strings.HasPrefix(path, dir+"/")
}

// unescapeMount undoes mountinfo's octal escapes of space, tab, newline and backslash.
func unescapeMount(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

// blockDevice is the kernel name of the disk holding device major:minor: the device
// itself, or the disk a partition belongs to; "" when it is no block device (a
// network or virtual file system).
func blockDevice(major, minor uint32) string {
	link, err := filepath.EvalSymlinks(fmt.Sprintf("/sys/dev/block/%d:%d", major, minor))
	if err != nil {
		return ""
	}
	if _, err := os.Stat(filepath.Join(link, "partition")); err == nil {
		link = filepath.Dir(link)
	}
	return filepath.Base(link)
}

func readLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// selected is the bracketed choice of a sysfs list: "none [mq-deadline] kyber" ->
// mq-deadline.
func selected(list string) string {
	if i := strings.IndexByte(list, '['); i >= 0 {
		if j := strings.IndexByte(list[i:], ']'); j > 0 {
			return list[i+1 : i+j]
		}
	}
	return list
}

// Describe is the device for people: "vda (ext4 on /dev/vda, mq-deadline)".
func (w *Where) Describe() string {
	name := w.Device
	if name == "" {
		name = w.Source
	}
	var parts []string
	if w.FSType != "" {
		parts = append(parts, w.FSType+" on "+w.Source)
	}
	if w.Model != "" {
		parts = append(parts, w.Model)
	}
	if w.Scheduler != "" {
		parts = append(parts, "scheduler "+w.Scheduler)
	}
	if len(parts) == 0 {
		return name
	}
	return name + " (" + strings.Join(parts, ", ") + ")"
}
