// Package lifecycle is the one run lifecycle every command, the demo and studies go
// through: lock the output directory, set an earlier run's files aside, estimate and
// refuse what cannot fit, place the files on tiers, open the engine (or, for a
// workload without one, take the directory to run in), start the energy recorder and
// the monitor, run the phase, then stop the monitor, close the engine, unmount, attach
// the storage, energy and monitoring sections, write the result atomically, say what
// was kept and unlock.
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
// Energy: the recorder (package energy) samples at the start and the end of the
// phase, the end with the host's CPU utilisation over the phase (/proc/stat, steal
// left out); a Monitor, when there is one, samples instead, at its own interval. The phase's windows (workload.Env.Mark) become the energy
// section's windows beside the whole run's.
package lifecycle
