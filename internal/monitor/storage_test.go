package monitor

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakeSys builds a /sys with a partition (sda1 of sda), a device-mapper volume over a
// partition and a whole disk (dm-0 over sdb1 and sdc), virtio disks (vda, vdb) and a
// loop device, with /sys/dev/block's links to them.
func fakeSys(t *testing.T) string {
	t.Helper()
	sys := filepath.Join(t.TempDir(), "sys")
	files := map[string]string{
		"devices/pci/block/sda/sda1/partition":          "1",
		"devices/pci/block/sdb/sdb1/partition":          "1",
		"devices/pci/block/sdc/size":                    "100",
		"devices/virtual/block/dm-0/dm/name":            "vg-wal",
		"devices/virtio/block/vda/size":                 "100",
		"devices/virtio/block/vdb/size":                 "100",
		"devices/virtual/block/loop0/loop/backing_file": "/images/db.img\n",
	}
	for path, content := range files {
		p := filepath.Join(sys, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"dev/block/8:1":                          "../../devices/pci/block/sda/sda1",
		"dev/block/253:0":                        "../../devices/virtual/block/dm-0",
		"dev/block/252:0":                        "../../devices/virtio/block/vda",
		"dev/block/252:16":                       "../../devices/virtio/block/vdb",
		"dev/block/7:0":                          "../../devices/virtual/block/loop0",
		"devices/virtual/block/dm-0/slaves/sdb1": "../../../../pci/block/sdb/sdb1",
		"devices/virtual/block/dm-0/slaves/sdc":  "../../../../pci/block/sdc",
	}
	for path, target := range links {
		p := filepath.Join(sys, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	return sys
}

// fakeStat gives the device numbers of the test's paths: their file system's, and for
// device nodes their own.
func fakeStat(path string) (uint64, uint64, error) {
	devs := map[string][2]uint64{
		"/data":          {unix.Mkdev(8, 1), 0},
		"/wal":           {unix.Mkdev(253, 0), 0},
		"/temp":          {unix.Mkdev(0, 45), 0}, // btrfs: an anonymous device number
		"/dev/vdb":       {unix.Mkdev(0, 5), unix.Mkdev(252, 16)},
		"/mem":           {unix.Mkdev(0, 50), 0},
		"/fast":          {unix.Mkdev(0, 51), 0},
		"/image":         {unix.Mkdev(7, 0), 0},
		"/images/db.img": {unix.Mkdev(252, 0), 0},
	}
	d, ok := devs[path]
	if !ok {
		return 0, 0, fmt.Errorf("stat %s: no such file or directory", path)
	}
	return d[0], d[1], nil
}

// TestStoragePlacement: each directory maps to the whole disks under it, through a
// partition, a device-mapper volume, btrfs's anonymous device, a loop device's backing
// file; tmpfs and an emulated device's FUSE mount are on none, and say so.
func TestStoragePlacement(t *testing.T) {
	root, _ := fakeProc(t)
	s, err := newStorage(root, fakeSys(t), []Directory{{"data", "/data"}, {"wal", "/wal"}, {"temp", "/temp"},
		{"mem", "/mem"}, {"fast", "/fast"}, {"image", "/image"}, {"gone", "/gone"}}, fakeStat)
	if err != nil {
		t.Fatal(err)
	}
	want := []Placement{
		{Label: "data", Path: "/data", Device: "sda1", Chain: "sda1 on sda", Disks: []string{"sda"}},
		{Label: "wal", Path: "/wal", Device: "dm-0", Chain: "dm-0 (vg-wal) on sdb1 on sdb + sdc", Disks: []string{"sdb", "sdc"}},
		{Label: "temp", Path: "/temp", Device: "vdb", Chain: "vdb", Disks: []string{"vdb"}},
		{Label: "image", Path: "/image", Device: "loop0", Chain: "loop0 on /images/db.img on vda", Disks: []string{"vda"}},
	}
	got := map[string]Placement{}
	for _, p := range s.Placements() {
		got[p.Label] = p
	}
	for _, w := range want {
		if !reflect.DeepEqual(got[w.Label], w) {
			t.Errorf("placement of %s: %+v, want %+v", w.Label, got[w.Label], w)
		}
	}
	for label, why := range map[string]string{"mem": "tmpfs (tmpfs), which is no block device: its files are in memory",
		"fast": "fuse.tierbench", "gone": "no such file"} {
		if p := got[label]; p.Device != "" || !strings.Contains(p.Unavailable, why) {
			t.Errorf("placement of %s: %+v, want it unavailable: %s", label, p, why)
		}
	}
	if n := len(s.Unavailable()); n != 3 {
		t.Errorf("%d directories noted as on no disk, want 3: %+v", n, s.Unavailable())
	}
	if !reflect.DeepEqual(s.disks, []string{"sda", "sdb", "sdc", "vdb", "vda"}) {
		t.Errorf("disks followed %v", s.disks)
	}
}

// TestStorageRates: a disk's IOPS, MB/s, utilisation, await and queue depth from two
// readings of /proc/diskstats 2 s apart, by hand: sda did 200 reads (4000 sectors,
// 400 ms) and 600 writes (16000 sectors, 1800 ms), was busy 1500 ms with 3000 ms of
// weighted time in I/O, and completed 20 flushes.
func TestStorageRates(t *testing.T) {
	root, advance := fakeProc(t)
	s, err := newStorage(root, fakeSys(t), []Directory{{"data", "/data"}, {"wal", "/wal"}, {"temp", "/temp"}, {"image", "/image"}}, fakeStat)
	if err != nil {
		t.Fatal(err)
	}
	read(t, s, t0)
	advance()
	r := read(t, s, t0.Add(2*time.Second))
	expect(t, r.Values, map[string]float64{
		"disk.sda.read_iops": 100, "disk.sda.write_iops": 300, "disk.sda.read_mb_s": 1.024, "disk.sda.write_mb_s": 4.096,
		"disk.sda.util_pct": 75, "disk.sda.await_ms": 2.75, "disk.sda.r_await_ms": 2, "disk.sda.w_await_ms": 3,
		"disk.sda.queue_depth": 1.5, "disk.sda.in_flight": 3, "disk.sda.flush_per_s": 10,
		"disk.sdb.read_iops": 0, "disk.vda.util_pct": 0, "disk.sdb.await_ms": 0,
	})
	expect(t, r.Counters, map[string]float64{"disk.sda.busy_s": 4.5, "disk.sda.read_bytes": 84000 * 512, "disk.sda.rw_wait_s": 6.7,
		"disk.sda.r_wait_s": 0.9, "disk.sda.w_wait_s": 5.8})
	if _, ok := r.Values["disk.sda1.read_iops"]; ok {
		t.Error("the partition read as a disk of its own")
	}
}
