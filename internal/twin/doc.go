// Package twin makes device twins: it measures the device under a real directory
// and fits a profile of the measured class (package device) to it (Fit, `tierbench
// device fit`), and it checks the twin against the device by running the same
// database workloads on both (Validate, `tierbench device validate`).
// docs/devices.md, "Device twins", is the manual, with real fits and validations.
//
// # The fit
//
// The probes (probe.go) run on files in the directory with O_DIRECT, so the page
// cache stays out of them: random 8 KiB reads and writes at queue depth 1 (the latency
// distributions) and 32 (the rates, from 32 threads each waiting for its request, as a
// database's threads do), reads at 128 the same way and writes at the block layer's
// full queue by a writeback of scattered blocks (what a checkpoint makes the kernel
// do), a 70/30 mix at depth 32 (do reads and writes share the
// device?), sequential 1 MiB reads and writes (transfer rates), and fdatasync after an
// O_DIRECT overwrite (the device's flush). The working set is written in full first
// (preconditioned), and every probe runs in several rounds, round after round through
// the list, so the spread of each figure is the device's own. A commit probe (a
// buffered 8 KiB write and fdatasync in a preallocated log) is a check: the fitted
// profile behind a page cache model should give its rate, and nothing is fitted to it.
//
// Every field of the profile names the probe it came from; the file's header says
// where and when it was measured and how well the model reproduces each probe (the
// probe's requests through the fitted profile in virtual time). A directory on a
// memory file system, one whose file system refuses O_DIRECT, a read-only one or one
// with too little free space is refused with one line before anything is written;
// Ctrl-C removes the probe files and writes no profile.
package twin
