package host

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// HostnameEnv names the test hook that replaces the hostname recorded (see the
// package comment).
const HostnameEnv = "TIERBENCH_HOSTNAME"

// Info is the machine a run ran on.
type Info struct {
	Hostname string `json:"hostname"`
	// HostnameFrom says where Hostname came from when it is not the kernel's
	// (the test hook HostnameEnv).
	HostnameFrom string `json:"hostname_from,omitempty"`
	// Kernel is the kernel's name and release ("Linux 6.1.0-18-amd64"); KernelBuild
	// its build string ("#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1").
	Kernel      string `json:"kernel"`
	KernelBuild string `json:"kernel_build,omitempty"`
	Arch        string `json:"arch"`
	// OS is /etc/os-release's PRETTY_NAME: in a container, the image's.
	OS       string `json:"os,omitempty"`
	CPUModel string `json:"cpu_model,omitempty"`
	// Cores counts the logical CPUs this process may run on; CPULimit is the
	// cgroup's CPU quota in CPUs (a container's limit), 0 when there is none.
	Cores    int     `json:"cores"`
	CPULimit float64 `json:"cpu_limit,omitempty"`
	// MemoryBytes is the machine's memory; MemoryLimitBytes the cgroup's limit, 0
	// when there is none.
	MemoryBytes      int64 `json:"memory_bytes"`
	MemoryLimitBytes int64 `json:"memory_limit_bytes,omitempty"`
	// Disks are the file systems and disks under the run's directories.
	Disks     []Disk `json:"disks,omitempty"`
	Tierbench Build  `json:"tierbench"`
	// Engine is the engine's name and version ("postgres 15.6"); empty for a
	// workload without one, or a run that failed before the engine answered.
	Engine string `json:"engine,omitempty"`
}

// Key names the host for grouping runs by host: its hostname, "unknown" for a
// record without one (a run recorded by a tierbench that did not record hosts).
func (i *Info) Key() string {
	if i == nil || i.Hostname == "" {
		return "unknown"
	}
	return i.Hostname
}

// Summary is the host in one line: "node-a: Linux 6.1.0 x86_64, Intel Xeon (2
// cores), 23.5 GiB, tierbench v1.2 (3f2a9c1)".
func (i *Info) Summary() string {
	if i == nil {
		return "unknown (not recorded)"
	}
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	add(strings.TrimSpace(i.Kernel + " " + i.Arch))
	cpu := fmt.Sprintf("%d cores", i.Cores)
	if i.CPULimit > 0 {
		cpu += fmt.Sprintf(", limited to %g", i.CPULimit)
	}
	if i.CPUModel != "" {
		cpu = i.CPUModel + " (" + cpu + ")"
	}
	add(cpu)
	mem := gib(i.MemoryBytes)
	if i.MemoryLimitBytes > 0 {
		mem += " (limited to " + gib(i.MemoryLimitBytes) + ")"
	}
	add(mem)
	add(i.OS)
	add("tierbench " + i.Tierbench.String())
	if i.Engine != "" {
		add(i.Engine)
	}
	return i.Key() + ": " + strings.Join(parts, ", ")
}

func gib(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }

// Collect describes this machine, with the disks under dirs (the run's directory,
// its tiers'). What cannot be read is left empty.
func Collect(dirs ...string) *Info { return probe{root: "/"}.collect(dirs) }

// probe reads the machine's files under root ("/"; a fake tree in tests).
type probe struct{ root string }

func (p probe) path(name string) string { return filepath.Join(p.root, name) }

func (p probe) collect(dirs []string) *Info {
	i := &Info{Cores: runtime.NumCPU(), Tierbench: BuildInfo()}
	if name := os.Getenv(HostnameEnv); name != "" {
		i.Hostname, i.HostnameFrom = name, HostnameEnv+" (a test hook)"
	} else {
		i.Hostname, _ = os.Hostname()
	}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		i.Kernel = unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
		i.KernelBuild = unix.ByteSliceToString(u.Version[:])
		i.Arch = unix.ByteSliceToString(u.Machine[:])
	} else {
		i.Arch = runtime.GOARCH
	}
	i.OS = osRelease(p.path("etc/os-release"))
	i.CPUModel = cpuModel(p.path("proc/cpuinfo"))
	i.CPULimit = cpuLimit(p.path("sys/fs/cgroup/cpu.max"))
	i.MemoryBytes = memTotal(p.path("proc/meminfo"))
	i.MemoryLimitBytes = memoryLimit(p.path("sys/fs/cgroup/memory.max"))
	i.Disks = p.disks(dirs)
	return i
}

// osRelease is PRETTY_NAME of an os-release file.
func osRelease(path string) string {
	v, _ := field(path, "PRETTY_NAME", "=")
	return strings.Trim(v, `"'`)
}

// cpuModel is the first processor's model in /proc/cpuinfo: "model name" on x86,
// "Model" or "Hardware" on ARM boards, "cpu" on POWER.
func cpuModel(path string) string {
	for _, key := range []string{"model name", "Model", "Hardware", "cpu"} {
		if v, ok := field(path, key, ":"); ok && v != "" {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return ""
}

// memTotal is MemTotal of /proc/meminfo, in bytes (the file counts kB).
func memTotal(path string) int64 {
	v, _ := field(path, "MemTotal", ":")
	kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
	if err != nil {
		return 0
	}
	return kb * 1024
}

// cpuLimit reads cgroup v2's cpu.max, "QUOTA PERIOD" in microseconds or "max
// PERIOD": the CPUs a container may use, 0 without a limit.
func cpuLimit(path string) float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || f[0] == "max" {
		return 0
	}
	q, qerr := strconv.ParseFloat(f[0], 64)
	per, perr := strconv.ParseFloat(f[1], 64)
	if qerr != nil || perr != nil || per <= 0 {
		return 0
	}
	return q / per
}

// memoryLimit reads cgroup v2's memory.max: bytes, or "max" for none (0).
func memoryLimit(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// field is the value of the first line "key SEP value" of a file, trimmed.
func field(path, key, sep string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), sep)
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}
