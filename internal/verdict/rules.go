package verdict

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"tierbench/internal/engine"
)

// devices judges each device: saturated at DeviceUtilPct busy, or with a standing
// queue (DeviceQueue requests in flight or more for half the window: the median of its
// samples, each weighed by the time it stands for). It explains the share
// of the users' time spent waiting for I/O; without a measure of that, its mean queue
// over the users.
func (th Thresholds) devices(m *measured) []Finding {
	var out []Finding
	for _, d := range m.devices {
		f := Finding{Rule: Device, Resource: d.resource, Fires: "utilisation, or a standing queue on a device busy enough"}
		util := atLeast("utilisation", d.utilPct, th.DeviceUtilPct, "pct", d.series+".busy_s (rise over the window)")
		f.Checks = append(f.Checks, util)
		f.Fired = util.Met
		if d.queueOK {
			queue := atLeast("standing queue (time-weighted median)", d.queueMedian, th.DeviceQueue, "requests", d.series+".queue_depth")
			busy := atLeast("busy enough for a queue to stand", d.utilPct, th.DeviceQueueUtilPct, "pct", d.series+".busy_s (rise over the window)")
			f.Checks = append(f.Checks, queue, busy)
			f.Fired = f.Fired || (queue.Met && busy.Met)
		}
		waited := ""
		if m.ioOK {
			f.ExplainsPct, f.ExplainsFrom = round1(m.pct(m.io)), m.ioFrom+", over the users"
			waited = fmt.Sprintf("; users waited for I/O %.0f%% of their time", f.ExplainsPct)
		} else if d.queueOK {
			f.ExplainsPct, f.ExplainsFrom = round1(m.pct(d.queueMean)), d.series+".queue_depth (mean) over the users"
		}
		f.Text = fmt.Sprintf("%s %.0f%% busy, queue %.1f (median %.0f), %.0f reads/s %.0f writes/s, await %.1f ms%s",
			d.resource, d.utilPct, d.queueMean, d.queueMedian, d.readsPerS, d.writesPerS, d.awaitMs, waited)
		out = append(out, f)
	}
	return out
}

// cpu judges the host's CPU: full (HostBusyPct) while the run's users spent RunCPUPct
// of their time or more on a CPU or waiting for one: the server's and tierbench's CPU
// and CPU wait (tierbench's goroutines waiting for a thread included) and, when the
// CPUs had a queue (CPUPressurePct), the time on the socket, where a request or an
// answer waits for its reader to get a CPU. It explains the server's share of that
// time and the socket's, and tierbench's unless the harness rule fires on it.
func (th Thresholds) cpu(m *measured) (Finding, bool) {
	if !m.hostOK || !(m.serverOK || m.tbOK) {
		return Finding{}, false
	}
	use := m.cpuUse()
	from := "proc.server and proc.tierbench cpu_s (rise) + cpu_wait_cores (mean), proc.tierbench.goroutines_runnable (mean)"
	socket, restName := m.rest()
	queued := th.cpuQueued(m)
	if !queued || restName != timeSocket {
		socket = 0
	} else if socket > 0 {
		from += " and the time on the socket (the CPUs had a queue)"
	}
	run := math.Min(100, m.pct(m.serverDemand()+m.clientDemand())+socket)
	f := Finding{Rule: CPU, Resource: "host CPU", CPU: use,
		Fires: "host busy and users' time on or waiting for a CPU; their time on the socket counts when tasks waited for a CPU (pressure)"}
	busy := atLeast("host busy", m.busyPct, th.HostBusyPct, "pct", "host.cpu.all.busy_s over total_s")
	users := atLeast("users' time on or waiting for a CPU", run, th.RunCPUPct, "pct", from+", over the users")
	f.Checks = []Check{busy}
	if m.pressureOK {
		f.Checks = append(f.Checks, atLeast("tasks waiting for a CPU (pressure)", m.pressurePct, th.CPUPressurePct, "pct", "host.psi.cpu.some_pct"))
	}
	f.Checks = append(f.Checks, users)
	f.Fired = busy.Met && users.Met
	// Tierbench's part is the harness's when that rule fires on it, so that no part of
	// the users' time counts in two findings.
	mine := run
	f.ExplainsFrom = "server and tierbench: CPU and CPU wait, and the time on the socket when the CPUs had a queue, over the users"
	if th.clientBound(m) {
		mine = math.Min(100, m.pct(m.serverDemand())+socket)
		f.ExplainsFrom = "the server's CPU and CPU wait, and the time on the socket when the CPUs had a queue, over the users (tierbench's are the harness's)"
	}
	f.ExplainsPct = round1(mine)
	queue := ""
	if m.pressureOK {
		queue = fmt.Sprintf(", pressure %.0f%%", m.pressurePct)
	}
	parts := fmt.Sprintf("server %.0f%%, tierbench %.0f%%", m.pct(m.serverDemand()), m.pct(m.clientDemand()))
	if socket > 0 {
		parts += fmt.Sprintf(", on the socket %.0f%%", socket)
	}
	f.Text = fmt.Sprintf("host CPU %.0f%% busy of %.0f (%s)%s, %.1f runnable; users on or waiting for a CPU %.0f%% of their time (%s)",
		m.busyPct, m.cpus, m.who(use), queue, m.runnable, run, parts)
	return f, true
}

// clientBound says the harness rule fires on tierbench's CPU.
func (th Thresholds) clientBound(m *measured) bool {
	return !m.f.Embedded && m.tbOK && round2(m.pct(m.threadDemand())) >= th.ClientCPUPct
}

// cpuUse says who used the CPU.
func (m *measured) cpuUse() *CPUUse {
	u := &CPUUse{CPUs: m.cpus, BusyPct: round1(m.busyPct), Server: round2(m.server), Tierbench: round2(m.tb),
		ServerWait: round2(m.serverWait), TierbenchWait: round2(m.tbWait)}
	u.Others = round2(math.Max(0, m.busyPct/100*m.cpus-m.server-m.tb))
	u.Runnable, _ = m.mean("host.procs_running")
	u.Runnable = round1(u.Runnable)
	if p, ok := m.mean("host.psi.cpu.some_pct"); ok {
		u.PressurePct = round1(p)
	}
	return u
}

// who says who used the CPU in words.
func (m *measured) who(u *CPUUse) string {
	tb := "tierbench"
	if m.f.Embedded {
		tb = "tierbench with " + m.f.inside()
	}
	var parts []string
	if m.serverOK {
		parts = append(parts, fmt.Sprintf("server %.2f cores", u.Server))
	}
	parts = append(parts, fmt.Sprintf("%s %.2f", tb, u.Tierbench), fmt.Sprintf("others %.2f", u.Others))
	return strings.Join(parts, ", ")
}

// memory judges the engine's buffer: misses dominate (hits below BufferHitPct) while
// reads take ReadTimePct or more of the data devices' time and those devices are
// MemoryDeviceUtilPct busy or more. It explains the users' I/O time, times the reads'
// share of it: never more than the device it keeps busy.
func (th Thresholds) memory(m *measured) (Finding, bool) {
	if !m.engineOK {
		return Finding{}, false
	}
	hit, ok := m.w.BufferHitPct()
	if !ok {
		return Finding{}, false
	}
	f := Finding{Rule: Memory, Resource: "the engine's buffer", Fires: "all"}
	f.Checks = append(f.Checks, below("buffer hits", hit, th.BufferHitPct, "pct",
		"engine."+engine.StatBufferHits+" over hits + "+engine.StatBufferMisses))
	// The data devices; all of them when the run does not say which hold the data.
	var data []device
	for _, d := range m.devices {
		if d.data {
			data = append(data, d)
		}
	}
	if len(data) == 0 {
		data = m.devices
	}
	readTime, util, names := 0.0, 0.0, []string{}
	readOK := false
	for _, d := range data {
		if d.readTimeOK && d.readTimePct >= readTime {
			readTime, readOK = d.readTimePct, true
		}
		util = math.Max(util, d.utilPct)
		names = append(names, d.series)
	}
	on := strings.Join(names, ", ")
	if len(data) == 0 {
		on = "no device sampled"
	}
	f.Checks = append(f.Checks,
		atLeast("reads' share of the data devices' time", readTime, th.ReadTimePct, "pct", on+": read time over all requests' time"),
		atLeast("data devices busy", util, th.MemoryDeviceUtilPct, "pct", on+" busy_s (rise)"))
	f.Fired = all(f.Checks) && readOK
	if m.ioOK {
		f.ExplainsPct, f.ExplainsFrom = round1(m.pct(m.io)*readTime/100), "the users' I/O time ("+m.ioFrom+") times the reads' share of the devices' time"
	}
	misses, _ := m.rate("engine." + engine.StatBufferMisses)
	f.Text = fmt.Sprintf("buffer hits %.1f%% (%.0f misses/s); reads %.0f%% of the data devices' time, %.0f%% busy (%s)", hit, misses, readTime, util, on)
	return f, true
}

// lock judges locks: users waited for them LockPct of their time or more and, in a
// sweep, the level gained less than ScalingPct of the throughput its added users
// would have bought linearly. Whether CPU and devices had headroom is recorded, not
// required: when they had none, their own findings compete by the time they explain.
func (th Thresholds) lock(m *measured) (Finding, bool) {
	if !m.lockOK {
		return Finding{}, false
	}
	share := m.pct(m.lock)
	f := Finding{Rule: Lock, Resource: "locks", Fires: "all", ExplainsPct: round1(share), ExplainsFrom: m.lockFrom + " over the users"}
	f.Checks = append(f.Checks, atLeast("users' time waiting for locks", share, th.LockPct, "pct", m.lockFrom+" over the users"))
	scaling := ""
	if p := m.f.Previous; p != nil && p.Users > 0 && m.f.Users > p.Users && p.Throughput > 0 {
		gain := 100 * (m.f.Throughput/p.Throughput - 1) / (float64(m.f.Users)/float64(p.Users) - 1)
		f.Checks = append(f.Checks, below("throughput gained, of linear in users", gain, th.ScalingPct, "pct",
			fmt.Sprintf("throughput %.1f at %d users, %.1f at %d", p.Throughput, p.Users, m.f.Throughput, m.f.Users)))
		scaling = fmt.Sprintf("; throughput %+.0f%% from %d to %d users", 100*(m.f.Throughput/p.Throughput-1), p.Users, m.f.Users)
	}
	f.Fired = all(f.Checks)
	f.Waits = m.waits("Lock")
	var named []string
	for i, w := range f.Waits {
		if i < 3 {
			named = append(named, fmt.Sprintf("%s %.0f%%", w.Name, w.Pct))
		}
	}
	what := " (" + m.lockSeries + ")"
	if len(named) > 0 {
		what = " (" + strings.Join(named, ", ") + ")"
	}
	headroom := ""
	if m.hostOK {
		busiest := 0.0
		for _, d := range m.devices {
			busiest = math.Max(busiest, d.utilPct)
		}
		if m.busyPct < th.HostBusyPct && busiest < th.DeviceUtilPct {
			headroom = fmt.Sprintf(", with CPU (%.0f%% busy) and devices (at most %.0f%%) to spare", m.busyPct, busiest)
		}
	}
	deadlocks := ""
	if d := m.delta("engine." + engine.StatDeadlocks); d > 0 {
		deadlocks = fmt.Sprintf("; %.0f deadlocks", d)
	}
	f.Text = fmt.Sprintf("users waited for locks %.0f%% of their time%s%s%s%s", share, what, scaling, headroom, deadlocks)
	return f, true
}

// waits are the engine's wait events of class (all when class is ""), by their share
// of the users' time, the commonest first.
func (m *measured) waits(class string) []Wait {
	prefix := "engine." + engine.StatWaitPrefix
	if class != "" {
		prefix += class + "."
	}
	var out []Wait
	for _, name := range m.w.Names(prefix) {
		if v := m.w.Series[name].Mean; v > 0 {
			out = append(out, Wait{Name: strings.TrimPrefix(name, "engine."+engine.StatWaitPrefix), Pct: round1(m.pct(v))})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pct > out[j].Pct })
	return out
}

// harness judges tierbench itself: its users spent ClientCPUPct of their time or more
// in tierbench's CPU (not judged when the engine runs inside tierbench), or an open
// loop completed less than RateKeptPct of its rate. It explains tierbench's share of the users' time, or for
// an open loop that fell behind, the time no resource of the server explains.
func (th Thresholds) harness(m *measured) (Finding, bool) {
	f := Finding{Rule: Harness, Resource: "tierbench", Fires: "any"}
	var why []string
	if !m.f.Embedded && m.tbOK {
		// Its threads' CPU and run delay: goroutines queued behind a thread that waits
		// wait for the host's CPU, which the CPU rule judges.
		client := m.pct(m.threadDemand())
		f.Checks = append(f.Checks, atLeast("users' time in tierbench's CPU", client, th.ClientCPUPct, "pct",
			"proc.tierbench.cpu_s (rise) + cpu_wait_cores (mean), over the users"))
		// When it fires, tierbench's threads are what keeps its goroutines waiting.
		f.ExplainsPct, f.ExplainsFrom = round1(m.pct(m.clientDemand())), "tierbench's CPU, CPU wait and goroutines waiting for a thread, over the users"
		f.CPU = m.cpuUse()
		why = append(why, fmt.Sprintf("tierbench used %.2f cores and waited %.2f for a CPU (server %.2f and %.2f): %.0f%% of the users' time",
			m.tb, m.tbWait, m.server, m.serverWait, client))
	}
	if m.f.Rate > 0 {
		kept := 100 * m.f.Throughput / m.f.Rate
		f.Checks = append(f.Checks, below("open loop's rate kept", kept, th.RateKeptPct, "pct", "throughput over the rate asked"))
		if kept < th.RateKeptPct {
			server := 0.0
			if m.lockOK {
				server += m.pct(m.lock)
			}
			if m.ioOK {
				server += m.pct(m.io)
			}
			if m.serverOK {
				server += m.pct(m.serverDemand())
			} else if m.f.Embedded {
				server += m.pct(m.clientDemand())
			}
			if rest := 100 - math.Min(100, server); rest > f.ExplainsPct {
				f.ExplainsPct, f.ExplainsFrom = round1(rest), "the users' time no resource of the server explains: 100 less locks, I/O and the server's CPU"
			}
		}
		why = append(why, fmt.Sprintf("the open loop kept %.0f%% of the %.0f a second asked (%.0f), transactions started %.1f ms behind on average, %.0f%% of them an interval or more",
			kept, m.f.Rate, m.f.Throughput, m.f.LagMeanMs, m.f.LatePct))
	}
	if len(f.Checks) == 0 {
		return Finding{}, false
	}
	f.Fired = anyMet(f.Checks)
	f.Text = strings.Join(why, "; ")
	return f, true
}
