// Package workload is the contract between the benchmarks and the run lifecycle: a
// phase (load, run, check) states what it asks of the run before anything opens
// (Request), runs in what the lifecycle opened for it (Env), and hands back what it
// produced (Report), which the lifecycle writes with the storage and energy sections
// once the engine has stopped and the tiers are unmounted.
//
// The package imports no engine implementation, emulator or placement: the workloads
// (tpch, oltp, files) import it, and package lifecycle, which imports it, puts the
// pieces together.
package workload
