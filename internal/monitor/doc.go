// Package monitor samples what a run does to the machine while it goes
// (docs/monitoring.md): every second by default, from the run's start to its end, it
// reads its sources in parallel and writes one JSON line per sample to metrics.jsonl,
// then metrics.csv when it stops, and summarises each measured window for the result.
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
// A window's first sample is the base of its values: those summarised are of the
// samples after it, whose time (since the sample before) lies in the window.
// BeginWindow and EndWindow ask for a sample at once, whose values count as taken at
// the mark, so a window starts and ends on samples of its own. The sampler takes it
// when it next runs, so the window's counters, which are cumulative, are read at the
// marks' instants by interpolation between the samples taken around each
// (counters.go): rises and rates run from mark to mark. Each window is summarised
// (WindowSummary: mean, min, max, p50, p95, p99 of every value, each sample weighed by
// the time it stands for, Stats; rise and rate of every counter) as its end's sample
// arrives; the whole run is the window "run".
//
// # How the run lifecycle uses it
//
// Package lifecycle's sampler (sampling.go) is the one caller: every phase whose result
// has sections, with --sample above 0, gets a monitor of the host, tierbench's
// process, the server's process tree (engine.Server's; a --dsn server's by
// --server-pid), the disks under the run's directories that are not on emulated
// tiers (not for --dsn), the emulated devices (placement.Placed.Stats) and the
// engine (engine.StatsSampler). It is started once the engine is open, before the
// workload, and stopped after the workload, before the engine closes and the tiers
// are unmounted (the sources read them). The workload's window marks
// (workload.Env.Mark) reach Mark: a level's label ("4 users", LevelLabel) makes the
// window the level's (Summary.Level). Config.OnSample feeds the energy recorder at
// every sample, the marks' included, and adds its watts (energy.<component>.watts).
// The result embeds the Summary as "monitoring" (result.Sections), and the summary
// for people ends with WriteLines on the verdict's headline window. A load names its
// files after itself (Config.Prefix "load-": load-metrics.jsonl).
//
// # Prometheus
//
// Listen serves the runner's throughput and latency (tierbench_workload_*, from the
// interval records of workloads that have them: TPC-C and mixes; the Exporter is the
// runner's metrics.Observer) and the latest sample (tierbench_<series>, <label> segments as labels, counters ending in
// _total) at /metrics while the run goes.
package monitor
