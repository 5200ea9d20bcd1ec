package monitor

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeProc copies testdata/proc0 to a directory of its own and returns it, with a
// function that replaces it with testdata/proc1: the same machine a moment later.
func fakeProc(t *testing.T) (root string, advance func()) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "proc")
	copyTree(t, "testdata/proc0", root)
	return root, func() {
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
		copyTree(t, "testdata/proc1", root)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// read reads src at now and fails t on an error.
func read(t *testing.T, src Source, now time.Time) *Reading {
	t.Helper()
	r := newReading()
	if err := src.Read(context.Background(), now, r); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		names map[string]float64
		kind  Kind
	}{{r.Values, Value}, {r.Counters, Counter}} {
		for name := range m.names {
			if info, _, ok := Find(src.Series(), name); !ok || info.Kind != m.kind {
				t.Errorf("%s: %s %s is not a %s of the source's series", src.Name(), m.kind, name, m.kind)
			}
		}
	}
	return r
}

// expect compares values with those by hand.
func expect(t *testing.T, got map[string]float64, want map[string]float64) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s missing", name)
		} else if math.Abs(g-w) > 1e-6 {
			t.Errorf("%s = %v, want %v", name, g, w)
		}
	}
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// TestHost: the shares of CPU time, memory, load and pressure from two readings of a
// fake /proc one second apart, by hand. The deltas of CPU time (in 1/100 s) are, for
// all CPUs: user 100, system 30, idle 40, iowait 10, irq 5 + softirq 5, steal 10 of
// 200; for cpu0: 60, 20, 10, 5, 2 + 3, 0 of 100.
func TestHost(t *testing.T) {
	root, advance := fakeProc(t)
	h, err := NewHost(root)
	if err != nil {
		t.Fatal(err)
	}
	first := read(t, h, t0)
	if _, ok := first.Values["host.cpu.all.user_pct"]; ok {
		t.Error("a share of CPU time from a single reading")
	}
	expect(t, first.Counters, map[string]float64{"host.cpu.all.user_s": 10, "host.cpu.all.total_s": 100, "host.psi.io.some_s": 1})
	advance()
	r := read(t, h, t0.Add(time.Second))
	expect(t, r.Values, map[string]float64{
		"host.cpu.all.user_pct": 50, "host.cpu.all.system_pct": 15, "host.cpu.all.idle_pct": 20, "host.cpu.all.iowait_pct": 5,
		"host.cpu.all.irq_pct": 5, "host.cpu.all.steal_pct": 5, "host.cpu.all.busy_pct": 75,
		"host.cpu.0.user_pct": 60, "host.cpu.0.system_pct": 20, "host.cpu.0.idle_pct": 10, "host.cpu.0.busy_pct": 85,
		"host.cpu.1.steal_pct": 10, "host.cpu.1.busy_pct": 65,
		"host.cpus": 2, "host.procs_running": 4, "host.procs_blocked": 0, "host.context_switches_per_s": 5000,
		"host.load_1": 1.5, "host.load_5": 1, "host.load_15": 0.5,
		"host.mem.total_mib": 16000, "host.mem.available_mib": 8000, "host.mem.used_mib": 8000, "host.mem.free_mib": 2000,
		"host.mem.page_cache_mib": 5000, "host.mem.dirty_mib": 10, "host.mem.writeback_mib": 2, "host.mem.swap_used_mib": 1000,
		// io: some stalled 0.25 s and full 0.1 s of the second; cpu some 0.5 s.
		"host.psi.io.some_pct": 25, "host.psi.io.full_pct": 10, "host.psi.cpu.some_pct": 50, "host.psi.cpu.full_pct": 0,
	})
	if _, ok := r.Values["host.psi.memory.some_pct"]; ok {
		t.Error("memory pressure read although the fake /proc has none")
	}
	un := h.Unavailable()
	if len(un) != 1 || !strings.Contains(un[0].What, "memory") || !strings.Contains(un[0].Why, "CONFIG_PSI") {
		t.Errorf("unavailable %+v: want memory pressure, missing from the kernel", un)
	}
}

// TestHostCPUStepsBack: a CPU's idle count that steps back between two readings (the
// kernel's idle and iowait estimates do, on tickless kernels) counts as no idle time:
// the shares are of the other modes' increases and stay within 0-100. Third reading,
// in 1/100 s: cpu1 user +30, idle -20 (5030 -> 5010), iowait +10, others unchanged: user
// 75%, iowait 25%, busy 75%, idle 0 of 40 (the step back is not the 200% busy of taking
// busy as the total's increase less idle's).
func TestHostCPUStepsBack(t *testing.T) {
	root, advance := fakeProc(t)
	h, err := NewHost(root)
	if err != nil {
		t.Fatal(err)
	}
	read(t, h, t0)
	advance()
	read(t, h, t0.Add(time.Second))
	stat := filepath.Join(root, "stat")
	b, err := os.ReadFile(stat)
	if err != nil {
		t.Fatal(err)
	}
	next := strings.Replace(string(b), "cpu1 440 0 210 5030 105 33 22 210", "cpu1 470 0 210 5010 115 33 22 210", 1)
	if next == string(b) {
		t.Fatal("testdata/proc1/stat changed: update this test's cpu1 line")
	}
	if err := os.WriteFile(stat, []byte(next), 0o644); err != nil {
		t.Fatal(err)
	}
	r := read(t, h, t0.Add(2*time.Second))
	expect(t, r.Values, map[string]float64{
		"host.cpu.1.user_pct": 75, "host.cpu.1.iowait_pct": 25, "host.cpu.1.idle_pct": 0, "host.cpu.1.busy_pct": 75,
	})
	for name, v := range r.Values {
		if strings.HasPrefix(name, "host.cpu.") && strings.HasSuffix(name, "_pct") && (v < 0 || v > 100) {
			t.Errorf("%s = %v, outside 0-100", name, v)
		}
	}
}

// TestProcesses: a process tree's CPU time counts the children its processes reaped,
// so it does not fall when one ends. Between the readings process 102 (0.5 + 0.5 s)
// ended after 0.2 s more and was reaped by 101 (cutime+cstime 1.2 s), 101 ran 0.5 s +
// 0.2 s more, 100 0.3 s + 0.1 s: 1.3 s of CPU in the second. The process alone
// (tierbench, 200) leaves out its children's 19.98 s. Resident memory counts private
// pages of each process and the most shared pages of any once. CPU wait counts the
// threads read both times: 100 waited 0.3 s more and 101 0.5 s (102 ended), and 101
// is in uninterruptible sleep; tierbench's one thread waited 0.1 s.
func TestProcesses(t *testing.T) {
	root, advance := fakeProc(t)
	p, err := NewProcesses(root, Process{Who: "server", PID: 100, Tree: true}, Process{Who: "tierbench", PID: 200})
	if err != nil {
		t.Fatal(err)
	}
	first := read(t, p, t0)
	expect(t, first.Counters, map[string]float64{"proc.server.cpu_s": 5.5, "proc.tierbench.cpu_s": 15})
	expect(t, first.Values, map[string]float64{"proc.server.processes": 3, "proc.tierbench.threads": 8})
	advance()
	r := read(t, p, t0.Add(time.Second))
	expect(t, r.Values, map[string]float64{
		"proc.server.cpu_cores": 1.3, "proc.server.user_cores": 0.9, "proc.server.system_cores": 0.4,
		"proc.server.processes": 2, "proc.server.threads": 2,
		// RssAnon 10000 + 5000 kB, shared memory once (100000 kB), file pages once (20000 kB).
		"proc.server.rss_mib":      135000.0 / 1024,
		"proc.tierbench.cpu_cores": 0.7, "proc.tierbench.rss_mib": 46000.0 / 1024,
		"proc.server.cpu_wait_cores": 0.8, "proc.server.blocked_threads": 1,
		"proc.tierbench.cpu_wait_cores": 0.1, "proc.tierbench.blocked_threads": 0,
	})
	if _, ok := first.Values["proc.server.cpu_wait_cores"]; ok {
		t.Error("the first reading has a CPU wait: it needs two")
	}
	if u := p.Unavailable(); u != nil {
		t.Errorf("unavailable %v with schedstat files", u)
	}
	// The second reading found the tree through the kernel's lists of children, the first
	// (no lists in testdata/proc0) through every process's parent. A process that says
	// 100 is its parent but is in no list is not in the tree.
	decoy := filepath.Join(root, "300")
	copyTree(t, filepath.Join(root, "101"), decoy)
	r = read(t, p, t0.Add(2*time.Second))
	if r.Values["proc.server.processes"] != 2 {
		t.Errorf("%v processes in the tree: the lists of children were not read", r.Values["proc.server.processes"])
	}
	if _, err := NewProcesses(root, Process{Who: "server", PID: 4242}); err == nil || !strings.Contains(err.Error(), "no process 4242") {
		t.Errorf("a process that does not exist: %v", err)
	}
	if err := os.RemoveAll(filepath.Join(root, "100")); err != nil {
		t.Fatal(err)
	}
	if err := p.Read(context.Background(), t0.Add(2*time.Second), newReading()); err == nil || !strings.Contains(err.Error(), "ended") {
		t.Errorf("the server's process gone: %v", err)
	}
}

// TestEmulated: an emulated device's rates over two readings 2 s apart, by hand.
func TestEmulated(t *testing.T) {
	devs := []EmulatedDevice{{Name: "fast", Reads: 100, Writes: 50, Flushes: 10, ReadBytes: 1e6, WriteBytes: 2e6,
		Busy: time.Second, Latency: 2 * time.Second, QueueDepth: 1}}
	e := NewEmulated(func() ([]EmulatedDevice, error) { return devs, nil })
	read(t, e, t0)
	devs = []EmulatedDevice{{Name: "fast", Reads: 300, Writes: 150, Flushes: 30, ReadBytes: 5e6, WriteBytes: 4e6,
		Busy: 2500 * time.Millisecond, Latency: 3200 * time.Millisecond, ReadLatency: 2 * time.Second, QueueDepth: 4}}
	r := read(t, e, t0.Add(2*time.Second))
	expect(t, r.Values, map[string]float64{"emu.fast.read_iops": 100, "emu.fast.write_iops": 50, "emu.fast.flush_per_s": 10,
		"emu.fast.read_mb_s": 2, "emu.fast.write_mb_s": 1, "emu.fast.util_pct": 75, "emu.fast.queue_depth": 4,
		// 1.2 s over 200 + 100 + 20 requests.
		"emu.fast.await_ms": 3.75})
	expect(t, r.Counters, map[string]float64{"emu.fast.busy_s": 2.5, "emu.fast.reads": 300, "emu.fast.read_latency_s": 2})
}

// TestEmulatedMedia: the requests that reached the media under a page cache model,
// over two readings 2 s apart, by hand: 60 more reads and 40 more writes.
func TestEmulatedMedia(t *testing.T) {
	devs := []EmulatedDevice{{Name: "d", Reads: 500, Writes: 200, MediaReads: 40, MediaWrites: 10}}
	e := NewEmulated(func() ([]EmulatedDevice, error) { return devs, nil })
	read(t, e, t0)
	devs = []EmulatedDevice{{Name: "d", Reads: 900, Writes: 300, MediaReads: 100, MediaWrites: 50}}
	r := read(t, e, t0.Add(2*time.Second))
	expect(t, r.Values, map[string]float64{"emu.d.read_iops": 200, "emu.d.write_iops": 50,
		"emu.d.media_read_iops": 30, "emu.d.media_write_iops": 20})
	expect(t, r.Counters, map[string]float64{"emu.d.media_reads": 100, "emu.d.media_writes": 50})
}
