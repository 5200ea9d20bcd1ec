// Package tpch runs the TPC-H decision support benchmark (specification revision
// 2.17.3) against an engine.Engine and reports its official metrics.
//
// A run (Run, Clause 5.3) is the load test, an optional answer check, the power test
// (stream 0: RF1, the 22 queries, RF2 on one session) and the throughput test (S query
// streams in parallel with a refresh stream of S RF1/RF2 pairs). Data and update sets
// come from the dbgen subpackage, query texts from qgen.
//
// Everything a run measured goes into a Result, handed to the run lifecycle after each
// test (RunConfig.Checkpoint), which writes it atomically as result.json; Summary
// prints it for people. Finalize computes the
// metrics of Clause 5.4 (Power@Size, Throughput@Size, QphH@Size) from the intervals
// rounded as Clause 5.3.7.5 says, next to twins from the raw intervals, and lists every
// reason the run could not be published (scale factor, streams, timeouts, wrong
// answers, an early stop). Finalize reads nothing but the Result, so the metrics can be
// recomputed from a result.json alone.
//
// CheckAnswer compares a query's rows with the TPC's SF 1 qualification answers,
// embedded from answers/, using the tolerances of Clause 2.1.3.5 column by column;
// CompareAnswers applies the same tolerances between two engines at any scale factor.
//
// Workload is TPC-H as the registry names it ("tpch", `tierbench tpch run`): one phase,
// run, with its parameters; docs/tpch.md is its manual.
//
// The tool commands `tierbench tpch gen` and `tpch qgen` are GenSettings and
// QgenSettings: their flags as parameters, the checks (dbgen's update sets at a scale
// factor, the capacity the files need) and the output.
package tpch
