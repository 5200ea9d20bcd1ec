// Package lifecycle is the one run lifecycle every command, the demo and studies go
// through: check the load the phase runs on, estimate and refuse what cannot fit, lock
// the output directory, set an earlier run's files aside, place the files on tiers,
// open the engine (or, for a workload without one, take the directory to run in), start
// the energy recorder and the monitor, run the phase, then stop the monitor, close the
// engine, unmount, attach the storage, energy and monitoring sections, write the result
// atomically, say what was kept and unlock.
//
// The lifecycle is the only writer of result.json: a phase that saves as it goes
// hands its result to Run.Checkpoint (workload.Env), which writes it atomically so
// that a crash keeps what was measured.
//
// An execution is a Spec: a registered workload (package workload), its phases in
// order, and every value of its parameters and of the run settings by flag name, as
// strings, so that a command line and a study file set them alike. The command line,
// the demo and each study cell's commands run one with Execute:
//
//	o, err := lifecycle.Execute(ctx, lifecycle.Spec{Workload: "tpcc",
//		Phases: []workload.Phase{workload.Load, workload.Run},
//		Values: map[string][]string{"warehouses": {"2"}, "out": {dir}}, IO: io})
//
// Validate checks a Spec without running anything, as Execute does before it starts,
// which is how a study checks every cell before the first one runs; CommandArgs turns
// a Spec into one tierbench command line per phase, for a study that runs each cell in
// a process of its own. Execute takes each phase through the same steps:
//
//	s := lifecycle.NewSettings(lifecycle.OptionsFor(meta, phaseMeta))
//	... s.Params() and the workload's own parameters set from the Spec ...
//	req, err := w.Prepare(phase)                    // the phase's own checks
//	r, err := lifecycle.Start(ctx, s, req, io, mon) // load, capacity, Config, Open
//	rep, err := workload.Do(ctx, w, phase, r)       // r is the phase's workload.Env
//	err = r.Finish(rep, err)                        // sections, result, what was kept
//
// Settings are the run settings as parameters (package params); Settings.Config
// validates them into a Config without running anything. The lifecycle imports no
// workload: it finds them in the registry, and the workloads know nothing of the
// engine's implementation, the emulator or placement, which only the lifecycle puts
// together.
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
