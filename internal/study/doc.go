// Package study runs studies: a matrix of configurations of one workload, run,
// repeated, resumed and reported as one unit of work (`tierbench study`; docs/studies.md
// is the manual).
//
// # From a file to cells
//
// A study file (YAML) names a registered workload, fixes some of its parameters and of
// the run settings by flag name, and varies others as factors; zip pairs factors that
// vary together, exclude drops cells, baseline names the cell each other cell is
// compared with, and sizes are named variants (--size quick). Open reads a bundled
// study by name (studies/*.yaml, embedded) or a user's file by path; Parse reports
// every problem as file:line: field with what would be valid (FileError). File.At
// applies a size, and Expand checks the result against the workload's parameters
// (package params, through lifecycle.ParamSets) and turns it into a Plan: its cells,
// each with its factors' levels, every value it sets, an ID and a fingerprint, and the
// order its runs go in (fixed, repetition by repetition, or shuffled by a seed). A study
// holds at most 10,000 cells, counted before they are made. Tiers declared once and
// chosen by a factor are left out of the cells that place nothing on them. A cell
// whose baseline cell is excluded is named in the plan's notes. Plan.Validate checks
// every cell as its commands would parse and check it (a lifecycle.Validator, which
// reads what cells share once), before anything runs, and stops at Ctrl-C.
//
// # Running
//
// A Runner runs the plan's runs (cell x repetition) in OUT/cells/CELL/rep-N, each
// phase as the tierbench command a user would type (lifecycle.CommandArgs) in a child
// process of its own, so that a crash, an OOM kill or a hang of one run never takes
// the study down and a study accepts exactly what the command line accepts. The child
// writes how it ended to the file its hidden --outcome flag names (WriteOutcome); the
// runner records each run as cell.json (RunRecord), written last, and the study as
// study.json (Record). A run that fails is recorded and the study goes on; a timeout
// or Ctrl-C sends SIGTERM, then SIGKILL after a grace period; what finished is
// kept, and the cause says who ended the run (package exitstatus). Running again
// resumes: finished runs are skipped, failed ones kept (the study still fails), and a
// study file that no longer matches the runs OUT holds is refused (MismatchError); a
// damaged cell.json or study.json is a DamagedError that says how to recover. --shard
// K/N (Shard) runs every N-th cell, for several machines. No study command writes
// into a directory that holds something else (OccupiedError).
//
// # Reporting
//
// Load reads one study's directories (one, or its shards', merged; directories of
// different studies are refused) into Results; BuildReport summarises each cell's
// repetitions (package report: mean, SD, confidence interval, Welch's test against the
// baseline), words the comparisons (Findings), ranks the cells by the file's goal
// (Goal: all together, or apart for each level of its per factors), chooses each
// chart by the factors' axes (Axis: numbers, sizes and durations as lines, categories as grouped bars), adds
// what the runs' result files hold beyond the headline metrics (latency, devices,
// monitoring, verdicts, energy), and Report.Write writes report.html, its figures,
// cells.csv and summary.json. Compare sets two studies, or two runs of one, side by
// side cell by cell.
package study
