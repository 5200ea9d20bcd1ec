package verdict

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"tierbench/internal/monitor"
)

// window builds a window summary by hand: counters by their rise a second over a 10 s
// window, values by their mean (and median).
type window struct{ ws *monitor.WindowSummary }

func newWindow(users int) *window {
	return &window{&monitor.WindowSummary{Label: monitor.LevelLabel(users), Users: users, CoveredS: 10, Samples: 10,
		Series: map[string]monitor.Stats{}, Counters: map[string]monitor.CounterDelta{}}}
}

func (w *window) rate(name string, perS float64) *window {
	w.ws.Counters[name] = monitor.CounterDelta{Delta: perS * 10, PerS: perS}
	return w
}

func (w *window) mean(name string, mean float64) *window {
	w.ws.Series[name] = monitor.Stats{Mean: mean, P50: mean, Min: mean, Max: mean, N: 10}
	return w
}

func (w *window) median(name string, mean, p50 float64) *window {
	w.ws.Series[name] = monitor.Stats{Mean: mean, P50: p50, N: 10}
	return w
}

// host makes the host busy busyPct of 2 CPUs.
func (w *window) host(busyPct float64) *window {
	return w.rate("host.cpu.all.total_s", 2).rate("host.cpu.all.busy_s", 2*busyPct/100).mean("host.cpus", 2)
}

// procs sets the server's and tierbench's cores and CPU wait.
func (w *window) procs(server, serverWait, tb, tbWait float64) *window {
	return w.rate("proc.server.cpu_s", server).mean("proc.server.cpu_wait_cores", serverWait).
		rate("proc.tierbench.cpu_s", tb).mean("proc.tierbench.cpu_wait_cores", tbWait).
		mean("proc.server.blocked_threads", 0).mean("proc.tierbench.blocked_threads", 0)
}

// emu adds emulated tier name busy utilPct with a queue.
func (w *window) emu(name string, utilPct, queueMean, queueP50 float64) *window {
	base := "emu." + name
	return w.rate(base+".busy_s", utilPct/100).rate(base+".reads", 100).rate(base+".writes", 10).rate(base+".flushes", 0).
		rate(base+".latency_s", 1).rate(base+".read_latency_s", 0.5).median(base+".queue_depth", queueMean, queueP50)
}

// engine adds lock waits (a gauge's mean) and buffer hits and misses a second.
func (w *window) engine(lockWaits, hits, misses float64) *window {
	return w.mean("engine.lock_waits", lockWaits).rate("engine.buffer_hits", hits).rate("engine.buffer_misses", misses).
		rate("engine.commits", 100)
}

func check(t *testing.T, f *Finding, name string) Check {
	t.Helper()
	if f == nil {
		t.Fatalf("no finding, want one with check %q", name)
	}
	for _, c := range f.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("%s finding has no check %q: %+v", f.Rule, name, f.Checks)
	return Check{}
}

// TestDevice: utilisation fires at 90% (after rounding to 0.01), a standing queue at
// a median of 2 requests on a device at least 50% busy. With no engine and no process
// samples, the users waiting for I/O are the requests in the emulated device: a mean
// of 3.6 for 4 users explains 90% of their time.
func TestDevice(t *testing.T) {
	for _, tc := range []struct {
		name             string
		util, qMean, q50 float64
		fired            bool
	}{
		{"busy", 95, 3.6, 4, true},
		{"at the threshold", 90, 3.6, 1, true},
		{"just below", 89.994, 3.6, 1, false},
		{"rounds to the threshold", 89.996, 3.6, 1, true},
		{"standing queue", 60, 3.6, 2, true},
		{"queue on an idle device", 49, 3.6, 3, false},
		{"short queue", 60, 1.5, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWindow(4).emu("data", tc.util, tc.qMean, tc.q50)
			v := Judge(&monitor.Summary{}, w.ws, Facts{Users: 4, Tiers: []Tier{{Name: "data", Spec: "hdd-7200", Classes: []string{"data", "wal"}}}})
			f := v.Finding(Device)
			if f == nil || f.Fired != tc.fired {
				t.Fatalf("finding %+v, want fired %v", f, tc.fired)
			}
			if want := 100 * tc.qMean / 4; f.ExplainsPct != want {
				t.Errorf("explains %v%%, want %v of 4 users: %v%%", f.ExplainsPct, tc.qMean, want)
			}
			if !strings.Contains(f.Resource, "tier data (emulated hdd-7200; holds data, wal)") {
				t.Errorf("resource %q does not name the tier and what it holds", f.Resource)
			}
			if want := Device; tc.fired && v.Primary != want {
				t.Errorf("primary %s, want %s", v.Primary, want)
			}
			if !tc.fired && v.Primary != None {
				t.Errorf("primary %s, want none", v.Primary)
			}
		})
	}
}

// TestDeviceDisk: a disk names the directories on it; its users' I/O time comes from
// the engine's I/O waits or the blocked threads, whichever is larger (3 of 4 users).
func TestDeviceDisk(t *testing.T) {
	w := newWindow(4).rate("disk.vda.busy_s", 0.97).median("disk.vda.queue_depth", 5, 5).
		mean("engine.io_waits", 2).mean("proc.server.blocked_threads", 3)
	sum := &monitor.Summary{Storage: []monitor.Placement{{Label: "data", Path: "/srv/db", Disks: []string{"vda"}}}}
	v := Judge(sum, w.ws, Facts{Users: 4})
	f := v.Finding(Device)
	if v.Primary != Device || f.ExplainsPct != 75 || f.Resource != "disk vda (under data /srv/db)" {
		t.Errorf("primary %s, finding %+v", v.Primary, f)
	}
}

// TestCPU: the host full and the users wanting CPU. Server 1.2 cores + 0.6 waiting,
// tierbench 0.3 + 0.1 of 4 users: 2.2 / 4 = 55%; the others used 95% of 2 CPUs less
// 1.5 cores: 0.4.
func TestCPU(t *testing.T) {
	v := Judge(nil, newWindow(4).host(95).procs(1.2, 0.6, 0.3, 0.1).ws, Facts{Users: 4})
	f := v.Finding(CPU)
	if v.Primary != CPU || !f.Fired || f.ExplainsPct != 55 {
		t.Fatalf("primary %s, finding %+v", v.Primary, f)
	}
	if u := f.CPU; u.Others != 0.4 || u.Server != 1.2 || u.Tierbench != 0.3 || u.BusyPct != 95 {
		t.Errorf("who used the CPU: %+v", u)
	}
	if !strings.Contains(f.Text, "server 1.20 cores, tierbench 0.30, others 0.40") {
		t.Errorf("text %q does not say who used the CPU", f.Text)
	}
	for _, tc := range []struct {
		name              string
		busy, server      float64
		fired             bool
		hostMet, usersMet bool
	}{
		{"demand at the threshold", 95, 1.0, true, true, true},     // (1.0+0.6+0.3+0.1)/4 = 50%
		{"demand just below", 95, 0.98, false, true, false},        // 49.5%
		{"host just below", 89.99, 1.2, false, false, true},        // 89.99% busy
		{"a host others keep busy", 100, 0.05, false, true, false}, // the run wants little of it
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Judge(nil, newWindow(4).host(tc.busy).procs(tc.server, 0.6, 0.3, 0.1).ws, Facts{Users: 4})
			f := v.Finding(CPU)
			if f.Fired != tc.fired || check(t, f, "host busy").Met != tc.hostMet ||
				check(t, f, "users' time on or waiting for a CPU").Met != tc.usersMet {
				t.Errorf("finding %+v", f)
			}
		})
	}
}

// TestHarnessCPU: tierbench used 1.6 cores and waited 0.3 for 2 users: 95% of their
// time in tierbench, so the harness fires and the CPU finding explains only the
// server's 5%. With the engine inside tierbench (SQLite) the same figures are the
// engine's: CPU-bound, the harness not judged by CPU.
func TestHarnessCPU(t *testing.T) {
	w := newWindow(2).host(100).procs(0.1, 0, 1.6, 0.3)
	v := Judge(nil, w.ws, Facts{Users: 2})
	h, c := v.Finding(Harness), v.Finding(CPU)
	if v.Primary != Harness || h.ExplainsPct != 95 || !check(t, h, "users' time in tierbench's CPU").Met {
		t.Errorf("primary %s, harness %+v", v.Primary, h)
	}
	if !c.Fired || c.ExplainsPct != 5 {
		t.Errorf("cpu finding %+v: want fired, explaining the server's 5%%", c)
	}
	v = Judge(nil, w.ws, Facts{Users: 2, Embedded: true})
	if v.Primary != CPU || v.Finding(CPU).ExplainsPct != 100 || v.Finding(Harness) != nil {
		t.Errorf("embedded: primary %s, findings %+v", v.Primary, v.Findings)
	}
	// At the threshold: 0.8 + 0.2 of 2 users is 50%.
	v = Judge(nil, newWindow(2).host(100).procs(0.1, 0, 0.8, 0.2).ws, Facts{Users: 2})
	if h := v.Finding(Harness); !h.Fired {
		t.Errorf("client at 50%%: %+v", h)
	}
	v = Judge(nil, newWindow(2).host(100).procs(0.1, 0, 0.79, 0.2).ws, Facts{Users: 2})
	if h := v.Finding(Harness); h.Fired {
		t.Errorf("client at 49.5%%: %+v", h)
	}
}

// TestHarnessOpenLoop: an open loop that kept 85% of 1000/s did not keep its schedule;
// the server explains 0.2 of 4 users waiting for I/O (5%) and 1.0 core of CPU (25%),
// so the harness explains the other 70%. At 90% of the rate it kept it.
func TestHarnessOpenLoop(t *testing.T) {
	w := newWindow(4).host(60).procs(0.8, 0.2, 0.1, 0).mean("engine.io_waits", 0.2).mean("engine.lock_waits", 0)
	v := Judge(nil, w.ws, Facts{Users: 4, Rate: 1000, Throughput: 850, LagMeanMs: 120, LatePct: 40})
	h := v.Finding(Harness)
	if v.Primary != Harness || h.ExplainsPct != 70 || !check(t, h, "open loop's rate kept").Met {
		t.Fatalf("primary %s, harness %+v", v.Primary, h)
	}
	if !strings.Contains(h.Text, "kept 85% of the 1000 a second asked") || !strings.Contains(h.Text, "120.0 ms behind") {
		t.Errorf("text %q", h.Text)
	}
	v = Judge(nil, w.ws, Facts{Users: 4, Rate: 1000, Throughput: 900})
	if h := v.Finding(Harness); h.Fired || v.Primary != None {
		t.Errorf("at 90%% of the rate: primary %s, harness %+v", v.Primary, h)
	}
}

// TestLock: 6 of 8 users waiting for locks (75%); from 1 user at 100/s to 8 at
// 110/s the level bought 10% / 7 = 1.4% of linear. Waits are named with their share
// of the users' time.
func TestLock(t *testing.T) {
	w := newWindow(8).host(40).procs(0.3, 0, 0.1, 0).engine(6, 1000, 1).
		mean("engine.wait.Lock.transactionid", 5.6).mean("engine.wait.Lock.tuple", 0.4).mean("engine.wait.CPU.running", 1).
		rate("engine.deadlocks", 0.2)
	prev := &Level{Users: 1, Throughput: 100}
	v := Judge(nil, w.ws, Facts{Users: 8, Throughput: 110, Previous: prev})
	f := v.Finding(Lock)
	if v.Primary != Lock || f.ExplainsPct != 75 {
		t.Fatalf("primary %s, lock %+v", v.Primary, f)
	}
	if c := check(t, f, "throughput gained, of linear in users"); c.Measured != 1.43 || !c.Met {
		t.Errorf("scaling check %+v", c)
	}
	if len(f.Waits) != 2 || f.Waits[0] != (Wait{"Lock.transactionid", 70}) || f.Waits[1] != (Wait{"Lock.tuple", 5}) {
		t.Errorf("waits %+v", f.Waits)
	}
	for _, want := range []string{"75% of their time (Lock.transactionid 70%, Lock.tuple 5%)", "+10% from 1 to 8 users", "with CPU (40% busy)", "2 deadlocks"} {
		if !strings.Contains(f.Text, want) {
			t.Errorf("text %q lacks %q", f.Text, want)
		}
	}
	for _, tc := range []struct {
		name       string
		waits, tps float64
		fired      bool
	}{
		{"half the users", 4, 110, true},
		{"just under half", 3.99, 110, false},
		{"scaling at half of linear", 6, 450, false}, // (4.5 - 1) / 7 = 50%
		{"just under", 6, 449.3, true},               // 49.9%
		{"falling", 6, 60, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWindow(8).engine(tc.waits, 1000, 1)
			if f := Judge(nil, w.ws, Facts{Users: 8, Throughput: tc.tps, Previous: prev}).Finding(Lock); f.Fired != tc.fired {
				t.Errorf("finding %+v, want fired %v", f, tc.fired)
			}
		})
	}
	// The time waited, a counter, is preferred to the sampled gauge: 3 s a second is 3
	// of 4 users.
	w = newWindow(4).engine(0, 1000, 1).rate("engine.lock_wait_s", 3)
	if f := Judge(nil, w.ws, Facts{Users: 4}).Finding(Lock); !f.Fired || f.ExplainsPct != 75 {
		t.Errorf("lock from engine.lock_wait_s: %+v", f)
	}
}

// TestMemory: 600 hits and 400 misses a second (60%), reads 50% of the data device's
// time (0.5 of 1 s a second), the device 95% busy: memory fires. The device explains
// the users' I/O time (3.2 of 4: 80%), memory that times the reads' share (40%):
// the device is primary.
func TestMemory(t *testing.T) {
	tiers := []Tier{{Name: "data", Classes: []string{"data"}}, {Name: "log", Classes: []string{"wal"}}}
	build := func(hits, misses, util float64) *monitor.WindowSummary {
		return newWindow(4).engine(0, hits, misses).emu("data", util, 3.2, 3).emu("log", 99, 0, 0).ws
	}
	v := Judge(nil, build(600, 400, 95), Facts{Users: 4, Tiers: tiers})
	m := v.Finding(Memory)
	if !m.Fired || m.ExplainsPct != 40 || v.Primary != Device {
		t.Fatalf("primary %s, memory %+v", v.Primary, m)
	}
	if fired := v.Fired(); len(fired) != 3 || fired[2].Rule != Memory {
		t.Errorf("fired %+v: want both devices, then memory", fired)
	}
	if !strings.Contains(m.Text, "buffer hits 60.0%") || !strings.Contains(m.Text, "(emu.data)") {
		t.Errorf("text %q", m.Text)
	}
	for _, tc := range []struct {
		name         string
		hits, misses float64
		util         float64
		fired        bool
	}{
		{"hits at the threshold", 900, 100, 95, false},
		{"hits just below", 8999, 1001, 95, true},
		{"device not busy enough", 600, 400, 49, false},
		{"device half busy", 600, 400, 50, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if f := Judge(nil, build(tc.hits, tc.misses, tc.util), Facts{Users: 4, Tiers: tiers}).Finding(Memory); f.Fired != tc.fired {
				t.Errorf("finding %+v, want fired %v", f, tc.fired)
			}
		})
	}
}

// TestNoneAndUnknown: a light load fires nothing; no samples judge nothing; a window
// without engine statistics says which rules it left out.
func TestNoneAndUnknown(t *testing.T) {
	w := newWindow(2).host(30).procs(0.2, 0, 0.1, 0).emu("data", 10, 0.1, 0)
	v := Judge(nil, w.ws, Facts{Users: 2})
	if v.Primary != None || !strings.Contains(v.Headline, "host CPU 30% busy") || !strings.Contains(v.Headline, "too light to say") {
		t.Errorf("primary %s: %s", v.Primary, v.Headline)
	}
	if len(v.Fired()) != 0 || v.Finding(Lock) != nil || !strings.Contains(strings.Join(v.NotJudged, "; "), "the engine's statistics") {
		t.Errorf("findings %+v, not judged %v", v.Findings, v.NotJudged)
	}
	for _, ws := range []*monitor.WindowSummary{nil, {Label: "4 users"}} {
		if v := Judge(nil, ws, Facts{Users: 4}); v.Primary != Unknown {
			t.Errorf("window %+v: primary %s", ws, v.Primary)
		}
	}
}

// TestOrder: every fired finding comes before those that did not fire, the one that
// explains most first; the lock (75%) outranks a busy device whose I/O explains 12.5%.
func TestOrder(t *testing.T) {
	w := newWindow(8).host(50).procs(0.2, 0, 0.1, 0).engine(6, 1000, 1).rate("disk.vda.busy_s", 0.95).
		median("disk.vda.queue_depth", 1, 1).mean("engine.io_waits", 1)
	v := Judge(nil, w.ws, Facts{Users: 8})
	var got []string
	for _, f := range v.Findings {
		got = append(got, string(f.Rule)+map[bool]string{true: "!", false: ""}[f.Fired])
	}
	if strings.Join(got, " ") != "lock! device! cpu harness memory" || v.Primary != Lock {
		t.Errorf("order %v, primary %s", got, v.Primary)
	}
	if v.TimePct["lock"] != 75 || v.TimePct["io"] != 12.5 || v.TimePct["cpu.server"] != 2.5 {
		t.Errorf("time %v", v.TimePct)
	}
}

// TestSection: the run's verdict is its headline level's; the lines name it, the
// other findings that fired, and each level's.
func TestSection(t *testing.T) {
	one := Judge(nil, newWindow(1).host(20).procs(0.3, 0, 0.1, 0).engine(0, 100, 0).ws, Facts{Users: 1, Throughput: 100})
	lock := newWindow(8).host(50).procs(0.2, 0, 0.1, 0).engine(6, 1000, 1).rate("disk.vda.busy_s", 0.95).
		median("disk.vda.queue_depth", 1, 1).mean("engine.io_waits", 1).mean("engine.wait.Lock.transactionid", 6)
	eight := Judge(nil, lock.ws, Facts{Users: 8, Throughput: 105, Previous: &Level{1, 100}})
	s := NewSection(Defaults, []Verdict{one, eight}, 1)
	if s.Primary != Lock || s.Users != 8 || s.Level(1).Primary != None || s.Thresholds != Defaults {
		t.Fatalf("section %+v", s)
	}
	var b bytes.Buffer
	WriteLines(&b, s)
	want := "verdict, 8 users: lock-bound: users waited for locks 75% of their time (Lock.transactionid 75%); throughput +5% from 1 to 8 users\n" +
		"  also device-bound, 12% of the users' time: disk vda 95% busy, queue 1.0 (median 1), 0 reads/s 0 writes/s, await 0.0 ms; users waited for I/O 12% of their time\n" +
		"  by level: 1 user nothing saturated, 8 users lock-bound (75%)\n"
	if b.String() != want {
		t.Errorf("lines:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestCPUQueueOnTheSocket is a saturated host as a 100-user run on 2 cores saw it
// (docs/monitoring.md, "The users' time"): the server used 1.8 cores and its threads
// waited 13.8 for a CPU, tierbench used 0.27 and waited 3.47 with 20 goroutines
// waiting for a thread, 6.56 users waited for I/O and 0.01 for locks. Of 100 users
// that is 15.6% + 23.74% + 6.56% + 0.01% = 45.91%; the other 54.09% of their time in
// transactions was on the socket. With tasks waiting for a CPU 94% of the time, that is
// time waiting for a CPU too: 15.6 + 23.74 + 54.09 = 93.43% on or waiting for one.
// Without the queue (pressure 10%) the socket does not count: 39.34%, and the host at
// 100% busy is said to be at its limit, never "too light".
func TestCPUQueueOnTheSocket(t *testing.T) {
	build := func(pressure float64) *monitor.WindowSummary {
		return newWindow(100).host(100).procs(1.8, 13.8, 0.27, 3.47).mean("proc.tierbench.goroutines_runnable", 20).
			mean("engine.io_waits", 6.56).engine(0.01, 1000, 1).mean("host.psi.cpu.some_pct", pressure).mean("host.procs_running", 26.5).ws
	}
	v := Judge(nil, build(94), Facts{Users: 100, ActivePct: 100})
	f := v.Finding(CPU)
	if v.Primary != CPU || !f.Fired || f.ExplainsPct != 93.4 {
		t.Fatalf("primary %s: %s; cpu %+v", v.Primary, v.Headline, f)
	}
	if c := check(t, f, "users' time on or waiting for a CPU"); c.Measured != 93.43 || !c.Met {
		t.Errorf("users' check %+v", c)
	}
	want := map[string]float64{"lock": 0, "io": 6.6, "cpu.server": 15.6, "cpu.tierbench": 23.7, "socket": 54.1}
	sum := 0.0
	for k, p := range v.TimePct {
		sum += p
		if want[k] != p {
			t.Errorf("time %s = %v, want %v (all: %v)", k, p, want[k], v.TimePct)
		}
	}
	if math.Abs(sum-100) > 0.2 {
		t.Errorf("the shares add up to %v, not 100: %v", sum, v.TimePct)
	}
	for _, s := range []string{"pressure 94%", "on the socket 54%", "users on or waiting for a CPU 93%"} {
		if !strings.Contains(f.Text, s) {
			t.Errorf("text %q lacks %q", f.Text, s)
		}
	}

	v = Judge(nil, build(10), Facts{Users: 100, ActivePct: 100})
	if f := v.Finding(CPU); f.Fired || check(t, f, "users' time on or waiting for a CPU").Measured != 39.34 {
		t.Errorf("without a queue: %+v", f)
	}
	if v.Primary != None || strings.Contains(v.Headline, "too light") || !strings.Contains(v.Headline, "host CPU 100% busy") ||
		!strings.Contains(v.Headline, "at its limit") || !strings.Contains(v.Headline, "socket 54%") {
		t.Errorf("a host at 100%% busy: %s", v.Headline)
	}
}

// TestPauseAndRest: users inside transactions 60% of their time (Facts.ActivePct)
// paused 40%; of their 60%, the server's CPU explains 1 core of 4 users (25%) and I/O
// 0.4 (10%): the other 25% is on the socket, or "other" with the engine inside
// tierbench.
func TestPauseAndRest(t *testing.T) {
	w := newWindow(4).host(50).procs(1, 0, 0, 0).mean("engine.io_waits", 0.4)
	v := Judge(nil, w.ws, Facts{Users: 4, ActivePct: 60})
	if v.TimePct["pause"] != 40 || v.TimePct["socket"] != 25 || v.TimePct["cpu.server"] != 25 || v.TimePct["io"] != 10 {
		t.Errorf("time %v", v.TimePct)
	}
	v = Judge(nil, w.ws, Facts{Users: 4, ActivePct: 60, Embedded: true})
	if _, ok := v.TimePct["socket"]; ok || v.TimePct["other"] != 25 {
		t.Errorf("embedded: time %v", v.TimePct)
	}
}
