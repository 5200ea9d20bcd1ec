package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// fakeRoot builds the files a probe reads, as a machine with an NVMe disk under
// /tbfake-data (a partition of it), a spinning disk under /, and an NFS export under
// /tbfake-shared, in a container limited to 1.5 CPUs and 2 GiB.
func fakeRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("proc/self/mountinfo", `22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw
40 27 259:1 / /tbfake-data rw,noatime shared:7 master:2 - xfs /dev/nvme0n1p1 rw
41 27 0:50 / /tbfake-shared rw,relatime - nfs4 fileserver:/export/runs rw,vers=4.2
42 27 0:51 / /tbfake-my\040disk rw - tmpfs tmpfs rw
`)
	write("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R)   Xeon(R) Gold 6248 CPU @ 2.50GHz\n\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\n")
	write("proc/meminfo", "MemTotal:       16318636 kB\nMemFree:         1234 kB\n")
	write("sys/fs/cgroup/cpu.max", "150000 100000\n")
	write("sys/fs/cgroup/memory.max", "2147483648\n")
	write("etc/os-release", "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n")
	nvme := "sys/devices/pci0000:00/nvme/nvme0/nvme0n1"
	write(nvme+"/nvme0n1p1/partition", "1\n")
	write(nvme+"/device/model", "Samsung SSD 980 1TB   \n")
	write(nvme+"/queue/rotational", "0\n")
	write(nvme+"/size", "1953525168\n")
	sda := "sys/devices/pci0000:00/ata1/sda"
	write(sda+"/sda2/partition", "2\n")
	write(sda+"/queue/rotational", "1\n")
	write(sda+"/size", "7814037168\n")
	if err := os.MkdirAll(filepath.Join(root, "sys/dev/block"), 0o755); err != nil {
		t.Fatal(err)
	}
	for dev, target := range map[string]string{"259:1": nvme + "/nvme0n1p1", "8:2": sda + "/sda2"} {
		if err := os.Symlink(filepath.Join(root, target), filepath.Join(root, "sys/dev/block", dev)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCollect(t *testing.T) {
	t.Setenv(HostnameEnv, "node-7")
	p := probe{root: fakeRoot(t)}
	i := p.collect([]string{"/tbfake-data/runs/a/rep-1", "/tbfake-data/tiers", "/tbfake-shared/out", "/tbfake-elsewhere", "/tbfake-my disk/x"})
	if i.Hostname != "node-7" || i.HostnameFrom != "TIERBENCH_HOSTNAME (a test hook)" {
		t.Errorf("hostname %q from %q, want node-7 from the test hook", i.Hostname, i.HostnameFrom)
	}
	if i.CPUModel != "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz" {
		t.Errorf("CPU model %q", i.CPUModel)
	}
	if i.CPULimit != 1.5 {
		t.Errorf("CPU limit %v, want 150000/100000 = 1.5", i.CPULimit)
	}
	if i.MemoryBytes != 16318636*1024 || i.MemoryLimitBytes != 2<<30 {
		t.Errorf("memory %d (limit %d), want %d (limit %d)", i.MemoryBytes, i.MemoryLimitBytes, 16318636*1024, 2<<30)
	}
	if i.OS != "Debian GNU/Linux 12 (bookworm)" {
		t.Errorf("OS %q", i.OS)
	}
	if len(i.Disks) != 4 {
		t.Fatalf("%d disks, want the NVMe partition, the NFS export, / and the tmpfs: %+v", len(i.Disks), i.Disks)
	}
	d := i.Disks[0]
	if d.Mount != "/tbfake-data" || d.FS != "xfs" || d.Source != "/dev/nvme0n1p1" || d.Device != "nvme0n1" ||
		d.Model != "Samsung SSD 980 1TB" || d.Rotational == nil || *d.Rotational || d.SizeBytes != 1953525168*512 ||
		len(d.Dirs) != 2 || d.Dirs[1] != "/tbfake-data/tiers" {
		t.Errorf("the NVMe partition: %+v", d)
	}
	if n := i.Disks[1]; n.Mount != "/tbfake-shared" || n.FS != "nfs4" || n.Source != "fileserver:/export/runs" || n.Device != "" {
		t.Errorf("the NFS export: %+v", n)
	}
	if r := i.Disks[2]; r.Mount != "/" || r.Device != "sda" || r.Rotational == nil || !*r.Rotational || r.SizeBytes != 7814037168*512 {
		t.Errorf("the root file system (the nearest mount of a directory that does not exist): %+v", r)
	}
	if s := i.Disks[3]; s.Mount != "/tbfake-my disk" || s.FS != "tmpfs" {
		t.Errorf("a mount point with a space, escaped in mountinfo: %+v", s)
	}
	// The record reads back as it was written: it goes into result.json and cell.json.
	b, err := json.Marshal(i)
	if err != nil {
		t.Fatal(err)
	}
	var back Info
	if err := json.Unmarshal(b, &back); err != nil || back.Hostname != "node-7" || back.Disks[0].Model != d.Model {
		t.Errorf("round trip: %v %+v", err, back)
	}
}

func TestCollectWithoutLimits(t *testing.T) {
	root := fakeRoot(t)
	os.WriteFile(filepath.Join(root, "sys/fs/cgroup/cpu.max"), []byte("max 100000\n"), 0o644)
	os.WriteFile(filepath.Join(root, "sys/fs/cgroup/memory.max"), []byte("max\n"), 0o644)
	t.Setenv(HostnameEnv, "")
	i := probe{root: root}.collect(nil)
	if i.CPULimit != 0 || i.MemoryLimitBytes != 0 {
		t.Errorf("limits %v %d, want none", i.CPULimit, i.MemoryLimitBytes)
	}
	name, _ := os.Hostname()
	if i.Hostname != name || i.HostnameFrom != "" {
		t.Errorf("hostname %q from %q, want the kernel's %q", i.Hostname, i.HostnameFrom, name)
	}
}

func TestBuild(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "tierbench", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "f6d70e6abad4a78e11ae177c9838e26df7dd5ad1"},
			{Key: "vcs.time", Value: "2026-11-27T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		name            string
		bi              *debug.BuildInfo
		version, commit string
		want            string
	}{
		{"from the checkout", bi, "", "", "devel (f6d70e6abad4, modified)"},
		{"from -ldflags", bi, "v1.2.0", "0123456789abcdef0123", "v1.2.0 (0123456789ab)"},
		{"nothing known", nil, "", "", "devel"},
		{"a module version", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.1"}}, "", "", "v0.9.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := buildFrom(tc.bi, tc.version, tc.commit).String(); got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}

func TestSummaryAndKey(t *testing.T) {
	var none *Info
	if none.Key() != "unknown" || none.Summary() != "unknown (not recorded)" {
		t.Errorf("a run without a host record: %q, %q", none.Key(), none.Summary())
	}
	i := &Info{Hostname: "node-a", Kernel: "Linux 6.1.0", Arch: "x86_64", CPUModel: "Xeon", Cores: 2, CPULimit: 1.5,
		MemoryBytes: 3 << 30, Tierbench: Build{Version: "devel", Commit: "abc"}, Engine: "sqlite 3.46.1"}
	want := "node-a: Linux 6.1.0 x86_64, Xeon (2 cores, limited to 1.5), 3.0 GiB, tierbench devel (abc), sqlite 3.46.1"
	if got := i.Summary(); got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
}
