// Package verdict says what limited a run (docs/monitoring.md, "The bottleneck
// verdict"): for each measured window (a level of users in a sweep, TPC-H's power or
// throughput test), a verdict with its evidence, in the spirit of the USE method: the
// utilisation, saturation and errors of each resource, read from the monitor's summary
// of the window.
//
// # The users' time
//
// Every rule's strength is the same quantity: the share of the users' time its
// resource explains. A window of U users (closed-loop users, open-loop users,
// streams) has U users' worth of time a second; the monitor's samples say how much of
// it went where:
//
//   - lock: sessions waiting for a lock, a mean: engine.lock_wait_s's rise a second
//     when the engine counts the time (SQLite, MariaDB), else the mean of the sampled
//     gauge engine.lock_waits (PostgreSQL's pg_locks);
//   - io: sessions waiting for I/O: engine.io_waits (PostgreSQL's wait events of
//     class IO and the WAL and buffer I/O locks), or the run's threads blocked on a
//     disk (proc.*.blocked_threads, state D) plus the requests in its emulated devices
//     (emu.*.queue_depth, means), whichever is larger;
//   - cpu.server, cpu.tierbench: each process tree's CPU (proc.*.cpu_s's rise a
//     second) plus the time its threads waited for a CPU (proc.*.cpu_wait_cores, the
//     kernel's run delay): what it used and what it wanted but did not get;
//   - app: users waiting for the application's gates (a connection pool, critical
//     sections), as the workload timed them (Facts.AppWaits).
//
// Each is divided by U and capped at 100%. The kernel sees threads: goroutines of
// tierbench waiting for one of its GOMAXPROCS threads are not counted, so an engine
// inside tierbench (SQLite) with more users than CPUs shows less CPU demand than it
// has. The estimates can overlap (a session is
// counted as waiting for a lock and, at the same time, its thread as waiting for a
// CPU after the lock is granted), so they need not add up to 100; they rank findings,
// they are not an accounting.
//
// # Rules and thresholds
//
// Each rule records every check with the measured value, the threshold and the
// series it came from, whether it fired or not. A measurement is rounded to 0.01
// before it is compared. Defaults:
//
//   - device (each disk under the run's directories and each emulated tier): busy
//     >= 90% of the window (DeviceUtilPct, iostat's %util from the busy time's rise),
//     or a standing queue: the median sample had >= 2 requests in flight (DeviceQueue:
//     one served, one waiting) on a device busy >= 50% of the window
//     (DeviceQueueUtilPct; bursts that leave it idle half the time stand nowhere).
//     Explains: io (without any measure of it, the device's mean queue over U). Names
//     the tier, its profile and the classes of files it holds, or the disk and the
//     directories on it. A disk is shared: its figures include other processes' I/O.
//   - cpu: the host's CPUs >= 90% busy (HostBusyPct) and the users >= 50% of their
//     time on a CPU or waiting for one (RunCPUPct): a host other processes keep busy
//     does not make a run that wants no CPU CPU-bound. Explains cpu.server +
//     cpu.tierbench, or cpu.server alone when the harness rule fires on tierbench's
//     CPU. Says who used the CPU: the server's tree, tierbench (with the embedded
//     engine for SQLite), and the others (the busy cores left).
//   - memory: the engine's buffer served < 90% of page reads (BufferHitPct), reads
//     took >= 50% of the data devices' time (ReadTimePct: disk r_wait_s over
//     rw_wait_s, emulated read_latency_s over latency_s) and those devices were >= 50%
//     busy (MemoryDeviceUtilPct): misses that reach a device that matters. Explains io
//     times the reads' share, never more than the device it keeps busy, which comes
//     first: the device is what saturates, memory is why.
//   - lock: users waited for locks >= 50% of their time (LockPct) and, from a sweep's
//     second level on, the level bought < 50% of the throughput its added users would
//     have linearly (ScalingPct: the gain over the level before, over the users'
//     growth less one; flat or falling throughput is near 0). Whether CPU and devices
//     had headroom is said, not required: when they had none their findings compete.
//     Explains lock. Names the wait events (PostgreSQL: Lock.transactionid, ...) and
//     their share, and the deadlocks of the window (errors).
//   - harness: the users spent >= 50% of their time in tierbench's CPU (ClientCPUPct;
//     not judged when the engine runs inside tierbench), or an open loop completed <
//     90% of its rate (RateKeptPct; its schedule lag is the evidence). Explains
//     cpu.tierbench, or for an open loop that fell behind, what no resource of the
//     server explains (100 less lock, io and cpu.server).
//   - application: users waited for the application's own gates, a connection pool
//     smaller than the users or critical sections around chosen statements
//     (Facts.AppWaits, the workload's own clock), >= 50% of their time (AppWaitPct,
//     as LockPct: more than half the users' time). Explains that share, and when it
//     fires it comes first, whatever the others explain: time spent in the
//     application is time the statements never reached the database, whose findings
//     then describe only the concurrency the application let through. Names each
//     gate and its share.
//   - none: every rule judged and none fired: the load was too light to say.
//   - unknown: the window has no samples (--sample off).
//
// Findings that fired come first, the one that explains the most first; ties go to
// the device, then locks, CPU, the harness and memory. The first is the primary.
//
// # How the run lifecycle uses it
//
// A result names its windows by implementing Subject: each window's label (the
// label its workload marked: "4 users", TPC-H's "load", "power" and "throughput", the
// file workload's phases) with the facts the workload knows of it (Users, the
// users, sessions or streams; Throughput, what it completed a second; for a sweep's
// level the one before it, Previous; an open loop's Rate, LagMeanMs and LatePct), and
// which one the result's headline reports. After the monitor stopped, the lifecycle
// calls
//
//	sec.Verdict = verdict.JudgeRun(sec.Monitoring, result, verdict.Facts{
//		Embedded: ..., // the engine (or, without one, the workload) runs inside tierbench
//		Tiers:    ..., // each emulated tier's name, spec and classes of files
//	})
//
// which judges each window (Judge on sum.Window(label)) into the result's "verdict"
// section, and the summary for people ends with WriteLines.
package verdict
