// Package runreport makes the report of one run directory (`tierbench report DIR`):
// a self-contained DIR/report.html, with its charts as figures/NAME.png and .svg
// beside it, built with package report's Document, so that it has the study
// report's look, its exact numbers (data-value, each chart's data as JSON and as a
// table) and its browser test (package reporttest).
//
// It reads what any workload command leaves in its --out (tpch run, tpcc run, oltp
// run, postmark run, each device's directory of the demo):
//
//   - result.json, through package resultfile: the workload's title, status and
//     headline numbers from its own result type, which the registry names by the
//     file's benchmark member (workload.Headliner and Statuser), the levels of a
//     sweep, and the
//     sections the run lifecycle attaches: the verdict of each window with its
//     findings, their checks and thresholds; the monitoring summary of each window;
//     the energy of each window and component, and the SCI's embodied items (a
//     default figure said to be one); the storage section's tiers;
//   - metrics.jsonl (the file the monitoring section names): charts over time of the
//     host's CPU, memory and pressure, each disk's and emulated device's IOPS, MB/s,
//     utilisation, await and queue, the engine's hit ratio, commits and waits, the
//     processes' CPU and memory, and each energy component's watts;
//   - intervals.jsonl (TPC-C and mixes): throughput and latency over time.
//
// The report opens with a summary that fits one screen: the headline numbers by
// their titles in the workload's registry (QphH@Size, NOPM, TPS), how the run ended
// when it did not end well, the verdict in a sentence, and small multiples of the
// throughput, latency, host CPU and devices' busy share over time; then what was run,
// the charts over time, and the evidence: the verdict's findings and checks, the
// per-window figures (a row per figure, a column per window), the storage and the
// energy.
//
// Time 0 of every chart is the monitor's first sample (without one, the start of the
// first report interval); intervals are drawn at their end by the wall clock, the
// clock both files share. A run longer than MaxPoints samples is drawn as means of
// consecutive samples, and the chart's note says so.
//
// A directory without result.json is a NotRunDirError; a line of metrics.jsonl or
// intervals.jsonl that does not decode is an error naming the file and the line,
// but a torn last line (a run killed while it wrote) is left out and the report says
// so (Report.Notes). A run without monitoring (--sample off) gets a report of what it
// has, which says what is missing.
package runreport
