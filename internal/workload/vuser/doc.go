// Package vuser is the virtual-user driver that the transactional workloads share
// (package tpcc and package oltp, the YAML transaction mixes): virtual users that run
// a workload's transactions in a closed loop (each user waits for its transaction,
// plus optional keying and think times) or an open loop (transactions start on a
// fixed schedule at a target rate, and latency counts from the intended start, so a
// slow server cannot hide its queueing: no coordinated omission).
//
// A workload implements Transactions, which makes one Worker per user; a Worker runs
// one transaction at a time and says how it ended (Outcome: its statements, a
// rollback the workload asked for, retries, an error). Run drives the users for one
// level of a sweep (Config: users, ramp-up, window, interval, an open loop's rate;
// each Txn carries its keying and think times) and returns its Summary.
//
// A run has a ramp-up, whose transactions are measured but discarded, and a timed
// window. Every user opens its session before the ramp-up begins, then records into
// a metrics.Handle (users share at most 64, so memory does not grow with thousands of
// users); one tick goroutine merges them each interval into a terminal line and a
// JSON line, and keeps the cumulative window that the result reports.
//
// A worker that finds its connection or server gone returns a fatal Outcome: the run
// stops every user, keeps what it measured, and reports itself failed with the cause.
// A level whose transaction type failed every time, or whose failed transactions pass
// the allowed share, is failed too (TooManyErrorsError), whatever its throughput.
//
// Beside the loop the package holds what the transactional workloads share: their
// parameters (RunParams for a run, LoadParams for a load), the sweep of levels
// (Plan.RunLevels), RunResult and LevelReport (status, levels, the sweep table, first
// errors) with the definitions every result carries (Definitions), the
// client's own CPU (ClientCPU), the open loop's schedule lag, the memory estimates of
// users and loaders (RunNeed, LoadersNeed) and parallel bulk loading (LoadParallel).
package vuser
