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
// order, and the values of its parameters and of the run settings by flag name, so
// that a command line and a study file set them alike. The command line, the demo
// and each study cell run one as a Job:
//
//	j, err := lifecycle.NewJob(lifecycle.Spec{Workload: "tpcc", Phases: ..., Values: ...})
//	... or a command line parses its flags into j.Params() ...
//	o, err := j.Execute(ctx, io)
//
// and for each phase, Execute does
//
//	req, err := w.Prepare(phase)                    // the phase's own checks, once
//	cfg, err := settings.Config(req)                // the run settings together, once
//	... then, for every phase in turn:
//	r, err := settings.start(ctx, req, cfg, io)     // the load, capacity, Open
//	rep, err := w.Run(ctx, r)                       // r is the phase's workload.Env
//	err = r.Finish(rep, err)                        // sections, result, what was kept
//
// Settings are the run settings as parameters (package params), so a command line and
// a study file set them alike. Each value is parsed when it is set (a --buffer of
// 256MB is 268435456 bytes from then on) and travels typed: Settings.Config checks the
// values together into a Config without running anything, which is how a study
// checks every cell before the first starts (a Validator reads what its cells share,
// the device profiles and what each phase asks of the run, once), and the engine's
// configuration is written in one place (engine.go) from that Config and the placed
// tiers. A run whose emulator's server or managed database server dies under it
// (exitstatus.DiedError, from the emulator's Stop and the engine's Close) names that
// death first in its cause, the earlier of two first.
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
