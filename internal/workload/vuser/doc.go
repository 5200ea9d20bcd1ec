// Package vuser generates and measures transactional load: virtual users that run a
// workload's transactions in a closed loop (each user waits for its transaction, plus
// optional keying and think times) or an open loop (transactions start on a fixed
// schedule at a target rate, and latency counts from the intended start, so a slow
// server cannot hide its queueing: no coordinated omission).
//
// A run has a ramp-up, whose transactions are measured but discarded, and a timed
// window. Every user records into its own metrics.Handle; one tick goroutine merges
// them each interval into a terminal line and a JSON line, and keeps the cumulative
// window that the result reports.
//
// A workload implements Transactions and Worker: TPC-C (package tpcc) and the
// transaction mixes declared in YAML (package oltp) do.
//
// A worker that finds its connection or server gone returns a fatal Outcome: the run
// stops every user, keeps what it measured, and reports itself failed with the cause.
package vuser
