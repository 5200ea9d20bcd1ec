// Package metrics measures load: bounded HDR latency histograms recorded per worker
// and merged by one tick goroutine into an interval and a cumulative view, the text
// and JSON-lines formats of each interval, the atomic write of a result file (where
// a number JSON cannot hold, NaN or an infinity, is written as null and named rather
// than losing the file), and the saturation point of a concurrency sweep.
//
// Memory is flat over any run length: a histogram covers 1 µs to 1 h with two
// significant digits (1%) in a fixed array of about 26 KiB, whatever it records;
// values above the range are clamped to it and counted.
//
// Formatting lives apart from measurement: Snapshot is plain data, and IntervalLine
// and the JSON encoding only read it, so every report can be rebuilt offline from the
// JSON lines.
package metrics
