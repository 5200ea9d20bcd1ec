// Package lifecycle is the one run lifecycle every command, the demo and studies go
// through: lock the output directory, set an earlier run's files aside, estimate and
// refuse what cannot fit, place the files on tiers, open the engine (or, for a
// workload without one, take the directory to run in), start the energy recorder and
// the monitor, run the phase, then stop the monitor, close the engine, unmount, attach
// the storage, energy and monitoring sections, write the result atomically, say what
// was kept and unlock. The lifecycle is the only writer of result.json: a phase that
// saves as it goes hands its result to Run.Checkpoint (workload.Env), which writes it
// atomically so that a crash keeps what was measured.
//
//	s := lifecycle.NewSettings(lifecycle.Options{Engine: true, Sections: true, ...})
//	... set s.Params() from flags or a study ...
//	req, err := bench.Prepare(workload.Run)         // the phase's own checks
//	r, err := lifecycle.Start(ctx, s, req, io)      // load, capacity, Config, Open
//	rep, err := bench.Run(ctx, r)                   // r is the phase's workload.Env
//	err = r.Finish(rep, err)                        // sections, result, what was kept
//
// Settings are the run settings as parameters (package params), so a command line and
// a study file set them alike; Settings.Config validates them into a Config without
// running anything, which is how a study checks every cell before the first starts.
//
// Monitoring (--sample, default every second; sampling.go): the sampler of package
// monitor follows the host, tierbench's and the server's process trees, the disks
// under the run's directories, the emulated devices and the engine into
// OUT/metrics.jsonl and metrics.csv, from the engine's opening to the workload's end,
// on the wall clock intervals.jsonl uses. The phase's windows (workload.Env.Mark) are
// marked in it; the result gets its summary ("monitoring") and, when the result names
// its windows (verdict.Subject), a bottleneck verdict for each ("verdict"), whose
// lines follow the summary for people. --metrics-addr serves the samples, and the
// interval records of workloads that have them (Run.Observer), to Prometheus.
//
// Energy: the recorder (package energy) samples at every sample of the monitor, with
// the host's CPU utilisation over the interval (steal left out), so each window has
// its watts and the run its watts over time; with --sample off, at the start and the
// end of the phase, the end with the utilisation over the phase (/proc/stat). The
// phase's windows become the energy section's windows beside the whole run's.
package lifecycle
