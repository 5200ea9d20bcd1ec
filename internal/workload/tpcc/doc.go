// Package tpcc is TPC-C (Standard Specification revision 5.11) on any engine: the
// schema and initial population (clause 4.3), the five transactions (clause 2), the
// mix (clause 5.2.3) dealt from a deck, keying and think times (clause 5.2.5), and the
// twelve consistency conditions (clause 3.3.2). It is a benchmark kit, not an audited
// implementation: there are no terminals or RTEs, Delivery runs in-line rather than
// deferred (as HammerDB and go-tpc do), and results carry no pricing.
//
// Population is batch-addressable: every table is generated in units (a warehouse's
// stock, a district's customers, ...) whose rows depend only on the seed and the
// unit, so units load in parallel, in any order, and the same seed always gives the
// same data (Fingerprint pins it). Tables are bulk-loaded through Engine.Load.
//
// Users. User u (0-based) has home warehouse u%W+1 and, for Stock-Level, the fixed
// district (u/W)%10+1; every other input is drawn per transaction as clause 2 says
// (NURand customers and items with run-time constants C that satisfy 2.1.6.1 against
// the load's, 1% New-Order rollbacks, 1% remote order lines, 15% remote Payments,
// 60% customers by last name). Transactions are dealt from a shuffled deck (5.2.4.2):
// by default 100 cards, 45/43/4/4/4 (New-Order, Payment, Order-Status, Delivery,
// Stock-Level: the minimum percentages of 5.2.3, as HammerDB and go-tpc use), or the
// spec's example of 23 cards, 10/10/1/1/1. Keying and think times (5.2.5.7, think
// times drawn as 5.2.5.4 says) are optional; without them users run back to back.
//
// Metrics. NOPM and TPM follow HammerDB's definitions, counted by tierbench's users:
//   - nopm: New-Order transactions committed per minute of the measured window
//     (the 1% that roll back on an unused item are not counted). HammerDB computes it
//     on the server from the change of SUM(D_NEXT_O_ID), which the result also
//     reports as nopm_server.
//   - tpm: transactions of all five types completed per minute: committed, plus the
//     New-Orders rolled back on purpose. HammerDB reads this from the engine's
//     commit and rollback counters (xact_commit + xact_rollback, Com_commit +
//     Com_rollback), which count the same events on the server side; failed
//     transactions and retried attempts count in neither.
//   - tps: tpm / 60; qps counts every statement sent, BEGIN and COMMIT included.
//
// Consistency. Check evaluates the twelve conditions of 3.3.2. Condition 11 as
// written (ORDER rows - NEW-ORDER rows = 2100 per district) holds only until the first
// Delivery; Check tests its general form, 2100 plus the orders delivered since the
// load (those with O_ID > 2100 and a carrier), which is the spec's text on a fresh load.
//
// Conflicts. A deadlock or serialization failure (MySQL 1213 and 1205, PostgreSQL
// 40001 and 40P01, SQLITE_BUSY/SQLITE_LOCKED) rolls the transaction back and runs it
// again with the same input, up to 10 attempts; the latency covers every attempt and
// the retries are counted. A transaction that still fails, or fails otherwise, counts
// as an error; when its connection no longer answers, the run stops as failed.
//
// Transactions implements vuser.Transactions, so the virtual users, sweeps and open
// loop are package vuser's; Workload is TPC-C as the registry names it ("tpcc",
// `tierbench tpcc load|run|check`), with its three phases; docs/tpcc.md is its manual.
package tpcc
