// Package monitor samples what a run does to the machine while it goes (issue 15,
// section 1): every second by default, from the run's start to its end, it reads its
// sources in parallel and writes one JSON line per sample to metrics.jsonl, then
// metrics.csv when it stops, and summarises each measured window for the result.
//
// # Sources
//
//   - Host: CPU shares (all CPUs and each), run queue, memory and page cache, load,
//     and pressure stall information where the kernel has it (procfs).
//   - Processes: CPU cores and resident memory of tierbench and of the server's
//     whole process tree (the children it has reaped included, so a tree's CPU time
//     never falls).
//   - Storage: the whole disks under each directory (stat's device number through
//     /sys/dev/block: partitions to their disk, device-mapper and md to their slaves,
//     loop devices to their backing file's disk, btrfs through mountinfo) and their
//     IOPS, MB/s, utilisation, await and queue depth from /proc/diskstats.
//   - Emulated devices: each emulated tier's counters as series, through a function
//     the caller supplies.
//   - Engine: an engine's internals through engine.StatsSampler.
//
// Something a source cannot measure on this host (no pressure stall information, a
// directory on tmpfs) is an Unavailable with the reason, not an error. A source that
// fails a reading is left out of that sample (Sample.Errors) and counted in its
// SourceStatus; the run goes on.
//
// # Series
//
// Names are dot-separated: host.cpu.<cpu>.busy_pct, disk.<disk>.util_pct,
// emu.<tier>.await_ms, proc.<who>.cpu_cores, engine.commits_per_s. Values are what a
// sample measured: a level, or a rate or share over the time since the source's
// previous reading (so the first sample has levels and counters only). Counters are
// cumulative; a window's rate is their rise over it. Every source documents its series
// (SeriesInfo: kind, unit, meaning) and the summary carries them all. Units: pct (0 to
// 100), cores (CPU seconds a second), mib (2^20 bytes), mb_s (10^6 bytes a second),
// per_s, ms, seconds, bytes.
//
// # Windows
//
// A window's first sample is its base: counter rates run from there, and the values
// summarised are those of the samples after it, whose time (since the sample before)
// lies in the window. BeginWindow and EndWindow take a sample at once, which counts as
// taken at the mark, so a window starts and ends on samples of its own. Each window is
// summarised (WindowSummary: mean, min, max, p50, p95, p99 of every value; rise and rate
// of every counter) as its end's sample arrives; the whole run is the window "run".
//
// # What the run lifecycle calls
//
// After the engine is open (and its files placed), before the workload starts:
//
//	host, err := monitor.NewHost("")
//	procs, err := monitor.NewProcesses("",
//		monitor.Process{Who: "tierbench", PID: os.Getpid()},
//		monitor.Process{Who: "server", PID: srv.ServerPID(), Tree: true}) // engine.Server; a --dsn server by --server-pid; SQLite has none
//	disks, err := monitor.NewStorage("", "", []monitor.Directory{
//		{Label: "data", Path: cfg.Dir}, {Label: "wal", Path: cfg.WALDir}, {Label: "temp", Path: cfg.TempDir}}) // not for --dsn
//	emu := monitor.NewEmulated(devices) // when a tier is emulated: placement.Placed.Stats, converted
//	eng, ok, err := monitor.NewEngine(ctx, e) // ok false: the engine reports nothing
//	mon, err := monitor.New(monitor.Config{Interval: sample, Dir: out, Sources: sources}) // --sample
//	exp, err := monitor.Listen(addr) // --metrics-addr; then exp.Watch(mon)
//	mon.Start()
//
// While it runs: an oltp run gets metrics.Observers{mon, exp} as oltp.Plan.Observer,
// and its levels mark their windows themselves (mon.Window, "4 users"); any other
// workload calls mon.BeginWindow(label, 0, time.Now()) and mon.EndWindow(label,
// time.Now()) around each measured window (TPC-H's power and throughput tests).
//
// After the run, before the engine closes and the tiers are unmounted (the sources
// read them): sum, err := mon.Stop(), then exp.Close(). The result embeds sum
// (*Summary, JSON; sum.Level(users) is a level's window), and the summary for people
// ends with monitor.WriteLines(w, sum, window). Stop's error (a file not written)
// keeps the summary. A source the user named that cannot be followed (--server-pid of
// no process) should fail the command before the run; the others may be left out.
//
// # Prometheus
//
// Listen serves the runner's throughput and latency (tierbench_workload_*) and the
// latest sample (tierbench_<series>, <label> segments as labels, counters ending in
// _total) at /metrics while the run goes.
package monitor
