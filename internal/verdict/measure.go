package verdict

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"tierbench/internal/engine"
	"tierbench/internal/monitor"
)

// measured is what the rules read from a window, computed once.
type measured struct {
	sum   *monitor.Summary
	w     *monitor.WindowSummary
	f     Facts
	users float64

	// Sessions waiting for locks and for I/O (means), and the series they came from.
	lock, io         float64
	lockOK, ioOK     bool
	lockFrom, ioFrom string
	lockSeries       string
	engineOK         bool

	// CPU: cores used and cores' worth of waiting for a CPU, per process tree;
	// tbQueue is tierbench's goroutines waiting for a thread (Go's run queue).
	server, serverWait, tb, tbWait float64
	tbQueue                        float64
	serverOK, tbOK, waitOK         bool
	busyPct, cpus                  float64
	hostOK                         bool
	// pressurePct is the host's CPU pressure (PSI some), runnable its mean runnable
	// tasks; pressureOK says PSI was read.
	pressurePct, runnable float64
	pressureOK            bool

	devices []device
	missing []string
}

// device is one disk or emulated device sampled over the window.
type device struct {
	series      string // "emu.data", "disk.vda"
	resource    string // "tier data (emulated hdd-7200; holds data)"
	data        bool   // holds the database's data files
	utilPct     float64
	queueMedian float64
	queueMean   float64
	queueOK     bool
	readTimePct float64
	readTimeOK  bool
	readsPerS   float64
	writesPerS  float64
	awaitMs     float64
}

func measure(sum *monitor.Summary, w *monitor.WindowSummary, f Facts) *measured {
	m := &measured{sum: sum, w: w, f: f, users: math.Max(1, float64(f.Users))}
	if f.Users <= 0 {
		m.missing = append(m.missing, "the window's users were not given: shares are of one user's time")
	}
	m.measureEngine()
	m.measureCPU()
	m.measureDevices()
	m.measureIO()
	return m
}

func (m *measured) mean(name string) (float64, bool) { return m.w.Mean(name) }

// rate is counter name's rise per second over the window.
func (m *measured) rate(name string) (float64, bool) {
	c, ok := m.w.Counters[name]
	return c.PerS, ok
}

func (m *measured) delta(name string) float64 { return m.w.Counters[name].Delta }

func (m *measured) measureEngine() {
	// Time spent waiting, a counter, is exact; sessions waiting at each sample are a
	// sampled mean.
	if v, ok := m.rate("engine." + engine.StatLockWaitSeconds); ok {
		m.lock, m.lockOK, m.lockSeries = v, true, "engine."+engine.StatLockWaitSeconds
		m.lockFrom = m.lockSeries + " (seconds waited a second)"
	} else if v, ok := m.mean("engine." + engine.StatLockWaits); ok {
		m.lock, m.lockOK, m.lockSeries = v, true, "engine."+engine.StatLockWaits
		m.lockFrom = m.lockSeries + " (mean sessions)"
	}
	m.engineOK = hasPrefix(m.w.Series, "engine.") || hasPrefix(m.w.Counters, "engine.")
	if !m.engineOK {
		m.missing = append(m.missing, "the engine's statistics (lock waits, buffer hits): the memory and lock rules are not judged")
	}
}

// measureIO estimates the sessions waiting for I/O: as the engine classifies its
// waits, or as the run's threads blocked on disks (state D) plus the requests in the
// emulated devices (a thread waiting for a FUSE device sleeps interruptibly, and an
// emulated device serves this run alone): the larger, as each misses some (the
// engine its background writers, the threads those waiting behind another's flush).
func (m *measured) measureIO() {
	var from []string
	if v, ok := m.mean("engine." + engine.StatIOWaits); ok {
		m.io, m.ioOK = v, true
		from = append(from, "engine."+engine.StatIOWaits)
	}
	waiting, ok := 0.0, false
	var parts []string
	for _, who := range []string{"server", "tierbench"} {
		if v, okW := m.mean("proc." + who + ".blocked_threads"); okW {
			waiting, ok = waiting+v, true
			if len(parts) == 0 {
				parts = append(parts, "proc.*.blocked_threads")
			}
		}
	}
	for _, d := range m.devices {
		if strings.HasPrefix(d.series, "emu.") && d.queueOK {
			waiting, ok = waiting+d.queueMean, true
			parts = append(parts, d.series+".queue_depth")
		}
	}
	if ok {
		from = append(from, strings.Join(parts, " + "))
		if !m.ioOK || waiting > m.io {
			m.io = waiting
		}
		m.ioOK = true
	}
	m.ioFrom = strings.Join(from, ", or if more, ")
}

func (m *measured) measureCPU() {
	if busy, ok := m.w.Share("host.cpu.all.busy_s", "host.cpu.all.total_s"); ok {
		m.busyPct, m.hostOK = busy, true
		m.cpus, _ = m.mean("host.cpus")
	} else {
		m.missing = append(m.missing, "the host's CPU: the CPU rule is not judged")
	}
	if m.f.Embedded {
		m.missing = append(m.missing, "the harness by CPU: "+m.f.inside()+" runs inside tierbench, whose CPU is also its")
	}
	m.server, m.serverOK = m.rate("proc.server.cpu_s")
	m.tb, m.tbOK = m.rate("proc.tierbench.cpu_s")
	sw, okS := m.mean("proc.server.cpu_wait_cores")
	tw, okT := m.mean("proc.tierbench.cpu_wait_cores")
	m.serverWait, m.tbWait, m.waitOK = sw, tw, okS || okT
	m.tbQueue, _ = m.mean("proc.tierbench.goroutines_runnable")
	m.pressurePct, m.pressureOK = m.mean("host.psi.cpu.some_pct")
	m.runnable, _ = m.mean("host.procs_running")
	if !m.serverOK && !m.tbOK {
		m.missing = append(m.missing, "the processes' CPU: the CPU and harness rules are not judged")
	} else if !m.waitOK {
		m.missing = append(m.missing, "the processes' CPU wait (schedstat): CPU demand counts CPU time only")
	}
}

// serverDemand and clientDemand are the cores' worth of the users' time on a CPU or
// waiting for one, in the server's process tree and in tierbench: there the goroutines
// waiting for a thread too, which the threads' run delay does not count (one thread
// waiting holds up every goroutine queued behind it). threadDemand is tierbench's
// threads alone, as the kernel sees them.
func (m *measured) serverDemand() float64 { return m.server + m.serverWait }
func (m *measured) clientDemand() float64 { return m.threadDemand() + m.tbQueue }
func (m *measured) threadDemand() float64 { return m.tb + m.tbWait }

// pct is part of the users' time in percent, at most 100.
func (m *measured) pct(sessions float64) float64 { return math.Min(100, 100*sessions/m.users) }

// cpuQueued says the host's CPUs had a queue: tasks waited for a CPU for at least
// CPUPressurePct of the window (PSI), or without PSI more tasks were runnable than
// there are CPUs. A reader of a socket then waits for a CPU too.
func (th Thresholds) cpuQueued(m *measured) bool {
	if m.pressureOK {
		return round2(m.pressurePct) >= th.CPUPressurePct
	}
	return m.cpus > 0 && m.runnable > m.cpus
}

// The users' time, accounted for: the shares add up to 100 (Judge's TimePct).
const (
	// timePause is the users' time outside their transactions (think and keying
	// times, an open loop's idle users), as the workload measured it (Facts.ActivePct).
	timePause = "pause"
	// timeSocket is the rest of their time in transactions with a server engine:
	// neither on a CPU nor waiting for one, for I/O or for a lock, so requests and
	// answers on their way between server and client (waiting on the socket for a
	// reader that has not run) and the server's waits no other share counts.
	timeSocket = "socket"
	// timeOther is that rest when the engine runs inside tierbench.
	timeOther = "other"
)

// rest is the share of the users' time in transactions no measure explains, and its
// name (timeSocket or timeOther).
func (m *measured) rest() (float64, string) {
	active := 100.0
	if m.f.ActivePct > 0 {
		active = math.Min(100, m.f.ActivePct)
	}
	explained, measured := 0.0, m.measuredPct()
	for _, k := range []string{"lock", "io", "cpu.server", "cpu.tierbench", "app"} { // in order: the sum is the same every time
		explained += measured[k]
	}
	name := timeSocket
	if m.f.Embedded {
		name = timeOther
	}
	return math.Max(0, active-explained), name
}

// measuredPct is the users' time each measure explains: lock, io, cpu.server,
// cpu.tierbench and app (the application's gates, inside the transactions), those
// measured.
func (m *measured) measuredPct() map[string]float64 {
	out := map[string]float64{}
	if m.lockOK {
		out["lock"] = m.pct(m.lock)
	}
	if m.ioOK {
		out["io"] = m.pct(m.io)
	}
	if m.serverOK {
		out["cpu.server"] = m.pct(m.serverDemand())
	}
	if m.tbOK {
		out["cpu.tierbench"] = m.pct(m.clientDemand())
	}
	if len(m.f.AppWaits) > 0 {
		out["app"] = round1(m.pct(m.appWaiting()))
	}
	return out
}

// timePct is the users' time by what it went to: the measured shares, the time
// outside transactions (pause) when the workload says, and the rest (socket, or other
// when the engine runs inside tierbench). When the measures overlap (a session
// waiting for a lock while its thread waits for a CPU) and together pass the time in
// transactions, the rest is 0 and the shares add up to more than 100.
func (m *measured) timePct() map[string]float64 {
	out := map[string]float64{}
	for k, v := range m.measuredPct() {
		out[k] = round1(v)
	}
	if len(out) == 0 {
		return out
	}
	if m.f.ActivePct > 0 {
		out[timePause] = round1(100 - math.Min(100, m.f.ActivePct))
	}
	rest, name := m.rest()
	out[name] = round1(rest)
	return out
}

func (m *measured) measureDevices() {
	holds := map[string][]string{} // disk -> labels and paths of the directories on it
	dataDisks := map[string]bool{}
	if m.sum != nil {
		for _, p := range m.sum.Storage {
			for _, d := range p.Disks {
				holds[d] = append(holds[d], p.Label+" "+p.Path)
				if p.Label == "data" {
					dataDisks[d] = true
				}
			}
		}
	}
	for _, kind := range []string{"emu", "disk"} {
		var names []string
		for name := range m.w.Counters {
			if rest, ok := strings.CutPrefix(name, kind+"."); ok && strings.HasSuffix(rest, ".busy_s") {
				names = append(names, strings.TrimSuffix(rest, ".busy_s"))
			}
		}
		sort.Strings(names)
		for _, n := range names {
			d := device{series: kind + "." + n}
			d.utilPct = math.Min(100, 100*m.w.Counters[d.series+".busy_s"].PerS)
			if q, ok := m.w.Series[d.series+".queue_depth"]; ok {
				d.queueMedian, d.queueMean, d.queueOK = q.P50, q.Mean, true
			}
			d.readsPerS, _ = m.rate(d.series + ".reads")
			d.writesPerS, _ = m.rate(d.series + ".writes")
			total, read, ops := "rw_wait_s", "r_wait_s", m.delta(d.series+".reads")+m.delta(d.series+".writes")
			if kind == "emu" {
				total, read = "latency_s", "read_latency_s"
				ops += m.delta(d.series + ".flushes")
			}
			if t := m.delta(d.series + "." + total); t > 0 {
				if _, ok := m.w.Counters[d.series+"."+read]; ok {
					d.readTimePct, d.readTimeOK = 100*m.delta(d.series+"."+read)/t, true
				}
				if ops > 0 {
					d.awaitMs = 1000 * t / ops
				}
			}
			if kind == "emu" {
				d.resource, d.data = m.tierResource(n)
			} else {
				d.resource = "disk " + n
				if h := holds[n]; len(h) > 0 {
					d.resource += " (under " + strings.Join(h, ", ") + ")"
				}
				d.data = dataDisks[n]
			}
			m.devices = append(m.devices, d)
		}
	}
}

// tierResource names emulated tier name and says whether it holds the data files.
func (m *measured) tierResource(name string) (string, bool) {
	for _, t := range m.f.Tiers {
		if engine.StatLabel(t.Name) != name {
			continue
		}
		what := "emulated"
		if t.Spec != "" {
			what += " " + t.Spec
		}
		data := false
		for _, c := range t.Classes {
			data = data || c == "data"
		}
		if len(t.Classes) > 0 {
			what += "; holds " + strings.Join(t.Classes, ", ")
		}
		return "tier " + t.Name + " (" + what + ")", data
	}
	return "tier " + name + " (emulated)", len(m.f.Tiers) == 0
}

// lightLoad says how far from saturation the run stayed, for a verdict of none.
func (m *measured) lightLoad() string {
	var parts []string
	if m.hostOK {
		parts = append(parts, fmt.Sprintf("host CPU %.0f%% busy", m.busyPct))
	}
	if m.serverOK || m.tbOK {
		parts = append(parts, fmt.Sprintf("users on or waiting for a CPU %.0f%% of their time", m.pct(m.serverDemand()+m.clientDemand())))
	}
	var busiest *device
	for i := range m.devices {
		if busiest == nil || m.devices[i].utilPct > busiest.utilPct {
			busiest = &m.devices[i]
		}
	}
	if busiest != nil {
		parts = append(parts, fmt.Sprintf("busiest device %s %.0f%% busy", busiest.series, busiest.utilPct))
	}
	if m.lockOK {
		parts = append(parts, fmt.Sprintf("waiting for locks %.0f%%", m.pct(m.lock)))
	}
	if len(parts) == 0 {
		return "nothing measured to judge by"
	}
	return strings.Join(parts, ", ")
}

// atLimit says which resource was at its limit in a window where no rule fired, and
// why none did ("" when none was): the host's CPU busy HostBusyPct or more, or a
// device busy DeviceUtilPct or more.
func (th Thresholds) atLimit(m *measured, time map[string]float64) string {
	var at []string
	if m.hostOK && round2(m.busyPct) >= th.HostBusyPct {
		host := fmt.Sprintf("host CPU %.0f%% busy", m.busyPct)
		if m.serverOK || m.tbOK {
			u := m.cpuUse()
			host += fmt.Sprintf(" (%s)", m.who(u))
		}
		at = append(at, host)
	}
	for _, d := range m.devices {
		if round2(d.utilPct) >= th.DeviceUtilPct {
			at = append(at, fmt.Sprintf("%s %.0f%% busy", d.series, d.utilPct))
		}
	}
	if len(at) == 0 {
		return ""
	}
	return strings.Join(at, ", ") + " at its limit, but the users did not wait for it: their time went to " + timeLine(time)
}

// timeLine lists the users' time by share, the largest first: "socket 40%, io 12%".
func timeLine(time map[string]float64) string {
	keys := make([]string, 0, len(time))
	for k := range time {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if time[keys[i]] != time[keys[j]] {
			return time[keys[i]] > time[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", k, time[k]))
	}
	if len(parts) == 0 {
		return "nothing measured"
	}
	return strings.Join(parts, ", ")
}

func hasPrefix[V any](names map[string]V, prefix string) bool {
	for n := range names {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }
func round2(v float64) float64 { return math.Round(v*100) / 100 }
