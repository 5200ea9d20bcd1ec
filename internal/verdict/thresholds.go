package verdict

// Thresholds are the values the rules compare measurements with; a result records
// the ones it was judged by. Percentages are 0 to 100.
type Thresholds struct {
	// DeviceUtilPct: a device busy this share of the window or more is saturated
	// (iostat's %util; the emulator's model busy time).
	DeviceUtilPct float64 `json:"device_util_pct"`
	// DeviceQueue: a device with this many requests in flight or more for half the
	// window (the time-weighted median of its samples, monitor.Stats) has a standing
	// queue (one in service, at least one waiting).
	DeviceQueue float64 `json:"device_queue"`
	// DeviceQueueUtilPct: a queue counts as standing only on a device busy this share
	// of the window or more; bursts that leave it idle half the time stand nowhere.
	DeviceQueueUtilPct float64 `json:"device_queue_util_pct"`
	// HostBusyPct: the host's CPUs busy this share of the time or more are full.
	HostBusyPct float64 `json:"host_cpu_busy_pct"`
	// RunCPUPct: the run wants CPU when its users spent this share of their time or
	// more on a CPU or waiting for one (server and tierbench together).
	RunCPUPct float64 `json:"run_cpu_pct"`
	// CPUPressurePct: tasks waited for a CPU this share of the time or more (PSI
	// some): the CPUs had a queue, and the users' time on the socket was spent
	// waiting for the reader at its end to get a CPU.
	CPUPressurePct float64 `json:"cpu_pressure_pct"`
	// BufferHitPct: below this share of page reads served by the engine's buffer,
	// misses matter.
	BufferHitPct float64 `json:"buffer_hit_pct"`
	// ReadTimePct: reads took this share of the data devices' time or more.
	ReadTimePct float64 `json:"read_time_pct"`
	// MemoryDeviceUtilPct: the data devices were busy enough for their reads to
	// matter.
	MemoryDeviceUtilPct float64 `json:"memory_device_util_pct"`
	// LockPct: users waited for locks this share of their time or more.
	LockPct float64 `json:"lock_pct"`
	// ScalingPct: a sweep's level that gained less than this share of the
	// throughput its added users would have bought linearly did not scale (flat or
	// falling).
	ScalingPct float64 `json:"scaling_pct"`
	// ClientCPUPct: users spent this share of their time or more in tierbench's own
	// CPU (on it or waiting for it).
	ClientCPUPct float64 `json:"client_cpu_pct"`
	// RateKeptPct: an open loop that completed less than this share of its rate did
	// not keep its schedule.
	RateKeptPct float64 `json:"rate_kept_pct"`
	// AppWaitPct: users waited for the application's gates (its connection pool,
	// its critical sections) this share of their time or more.
	AppWaitPct float64 `json:"app_wait_pct"`
}

// Defaults are the thresholds every command judges by; doc.go says why each.
var Defaults = Thresholds{
	DeviceUtilPct:       90,
	DeviceQueue:         2,
	DeviceQueueUtilPct:  50,
	HostBusyPct:         90,
	RunCPUPct:           50,
	CPUPressurePct:      50,
	BufferHitPct:        90,
	ReadTimePct:         50,
	MemoryDeviceUtilPct: 50,
	LockPct:             50,
	ScalingPct:          50,
	ClientCPUPct:        50,
	RateKeptPct:         90,
	AppWaitPct:          50,
}

// atLeast and below make checks. A measurement is rounded to 0.01 before it is
// compared, so that the record a reader checks is the one that decided.
func atLeast(name string, measured, threshold float64, unit, from string) Check {
	m := round2(measured)
	return Check{Name: name, Measured: m, Op: ">=", Threshold: threshold, Unit: unit, From: from, Met: m >= threshold}
}

func below(name string, measured, threshold float64, unit, from string) Check {
	m := round2(measured)
	return Check{Name: name, Measured: m, Op: "<", Threshold: threshold, Unit: unit, From: from, Met: m < threshold}
}

// all and anyMet combine checks.
func all(cs []Check) bool {
	for _, c := range cs {
		if !c.Met {
			return false
		}
	}
	return len(cs) > 0
}

func anyMet(cs []Check) bool {
	for _, c := range cs {
		if c.Met {
			return true
		}
	}
	return false
}
