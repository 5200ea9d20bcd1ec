// Package workload is the registry of benchmarks and their contract with the run
// lifecycle, after CockroachDB's pkg/workload: each workload registers its Meta from
// init() (Register panics on a duplicate, as database/sql does), package all imports
// them all, and the command line, studies and reports are built from the registry
// without knowing a workload's package or switching on its name.
//
// Meta describes a workload fully: its name and older names (Aliases, looked up by
// Get), its title for people, its phases and their help, and its result file
// (ResultMeta): the result type to decode it into, the "benchmark" values that name
// it (ForResult), and its headline metrics.
//
// A Workload is small: its Meta, its parameters per phase (package params) and
// Prepare, which checks them and says what a phase asks of the run (Request) without
// running anything. Its phases are optional interfaces found by type assertion
// (Loader, Runner, Checker), as are its results' headline numbers (Headliner) and how
// they ended (Statuser). A phase runs in what the lifecycle opened for it (Env) and
// hands back what it produced (Report), which the lifecycle writes with the storage
// and energy sections once the engine has stopped and the tiers are unmounted. The
// lifecycle is the only writer of result files: a phase that saves as it goes (after
// each level of users) hands its result to Env.Checkpoint.
//
// The workloads live in the folders below this one: tpch (with dbgen, qgen and dists),
// tpcc, oltp (the YAML transaction mixes) and postmark (the file workload), each with
// a type Workload that implements this package's Workload; vuser is the virtual-user
// driver that tpcc and oltp share. The package imports no engine implementation,
// emulator or placement: the workloads import it, and package lifecycle, which
// imports it, puts the pieces together (lifecycle.Execute).
package workload
