// Package layers holds no code, only the test that keeps tierbench's packages in
// their layers, checked with `go list -deps` on the packages as they build:
//
//   - Leaves import nothing of tierbench: device (the models), energy, params,
//     capacity, metrics and rundir. Anything may use them; they use nothing.
//   - The shared-memory ring (emulator/preload), which the LD_PRELOAD shim, the SQLite
//     VFS and the emulator's server share, links no engine, monitor, verdict, result,
//     placement, lifecycle or workload.
//   - Workloads (workload/...) and the results they write (result) link no emulator,
//     no placement, no engine implementation and no database driver or FUSE library:
//     what they know of an engine comes from package engine, and the lifecycle puts
//     the pieces together. So a report, a study or a workload's tests build without
//     them.
//   - The run lifecycle links no workload implementation (it knows workloads through
//     the registry of package workload) and no report.
//
// A change that breaks a rule fails the test with the package, the dependency it
// gained and the rule's reason.
package layers
