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
//     kernel's run delay): what it used and what it wanted but did not get. For
//     tierbench also its goroutines waiting for a thread to run on
//     (proc.tierbench.goroutines_runnable, Go's run queue): the kernel sees threads,
//     and one thread waiting for a CPU holds up every goroutine queued behind it, so
//     users waiting in tierbench are counted by goroutine;
//   - pause: the users' time outside their transactions (think and keying times, an
//     open loop's idle users), from the workload's own clock (Facts.ActivePct:
//     throughput times mean latency over the users, Little's law);
//   - socket (other when the engine runs inside tierbench): the rest of the users'
//     time in transactions, which none of the above explains: requests and answers on
//     their way between server and client, waiting on the socket for a reader that has
//     not run, and the server's waits no share above counts.
//   - app: users waiting for the application's gates (a connection pool, critical
//     sections), as the workload timed them (Facts.AppWaits), inside their transactions;
//
// Each is divided by U and capped at 100%. The shares add up to 100: the rest is what
// the others leave. The measures can overlap (a session counted as waiting for a lock
// has its thread counted waiting for a CPU once it gets it); when together they pass
// the time in transactions, the rest is 0 and the sum passes 100.
//
// # Rules and thresholds
//
// Each rule records every check with the measured value, the threshold and the
// series it came from, whether it fired or not. A measurement is rounded to 0.01
// before it is compared. Defaults:
//
//   - device (each disk under the run's directories and each emulated tier): busy
//     >= 90% of the window (DeviceUtilPct, iostat's %util from the busy time's rise),
//     or a standing queue: >= 2 requests in flight for half the window, the median of
//     its samples each weighed by the time it stands for (DeviceQueue: one served, one
//     waiting) on a device busy >= 50% of the window
//     (DeviceQueueUtilPct; bursts that leave it idle half the time stand nowhere).
//     Explains: io (without any measure of it, the device's mean queue over U). Names
//     the tier, its profile and the classes of files it holds, or the disk and the
//     directories on it. A disk is shared: its figures include other processes' I/O.
//   - cpu: the host's CPUs >= 90% busy (HostBusyPct) and the users >= 50% of their
//     time on a CPU or waiting for one (RunCPUPct): cpu.server + cpu.tierbench, and
//     the time on the socket when tasks waited for a CPU >= 50% of the window
//     (CPUPressurePct, PSI's cpu some): with the CPUs queued, a request or answer on
//     the socket waits for its reader to get one. A host other processes keep busy
//     does not make a run that wants no CPU CPU-bound. Explains that time, less
//     tierbench's threads when the harness rule fires on them. Says who used the CPU:
//     the server's tree, tierbench (with the embedded engine for SQLite), and the
//     others (the busy cores left).
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
//   - harness: the users spent >= 50% of their time in tierbench's CPU: its threads'
//     CPU and run delay (ClientCPUPct; not judged when the engine runs inside
//     tierbench; its goroutines' queue is the CPU rule's unless this fires), or an
//     open loop completed < 90% of its rate (RateKeptPct; its schedule lag is the
//     evidence). Explains cpu.tierbench, or for an open loop that fell behind, what no
//     resource of the server explains (100 less lock, io and cpu.server).
//   - application: users waited for the application's own gates, a connection pool
//     smaller than the users or critical sections around chosen statements
//     (Facts.AppWaits, the workload's own clock), >= 50% of their time (AppWaitPct,
//     as LockPct: more than half the users' time). Explains that share, and when it
//     fires it comes first, whatever the others explain: time spent in the
//     application is time the statements never reached the database, whose findings
//     then describe only the concurrency the application let through. Names each
//     gate and its share.
//   - none: every rule judged and none fired. The load was too light to say only when
//     no resource was at its limit; a host CPU >= HostBusyPct busy (or a device >=
//     DeviceUtilPct) is named with where the users' time went instead.
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
