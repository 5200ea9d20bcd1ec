// Package postmark is a file-system workload built on Postmark 1.5's model (Jeffrey
// Katcher, NetApp, 1997-2001; Debian ships 1.53): the small-file load of mail, news
// and web servers. With the same parameters and seed it does the same operations as
// Debian's postmark, in the same order, on the same files.
//
// A run has Postmark's three timed phases:
//
//   - create: a pool of Files files, sizes drawn in [SizeMin, SizeMax), spread over
//     Subdirs subdirectories;
//   - transactions: each reads a whole file or appends to one (ReadBias in tenths
//     picks reading), then creates a file or deletes one (CreateBias picks creating);
//     appends grow a file up to SizeMax;
//   - delete: every file left is deleted.
//
// Reads and writes go in ReadBlock and WriteBlock calls, through a buffer in the
// process (Buffered, as C's stdio in Postmark) or one system call per block. Neither
// bypasses the kernel's page cache, which is Postmark's behaviour too.
//
// Postmark draws every choice from the Mersenne Twister MT19937 (the 1999 reference
// code, seeded with its sgenrand), not from the C library's rand(): Debian's binary
// imports no rand, srand or random. Generator reproduces that generator and the
// order of its draws, which TestMatchesPostmark checks against the real binary.
//
// Run works the run out first (Simulate: the exact counts and the peak size of the
// files, without I/O), refuses a run whose files would not fit in the directory's
// free space (capacity.Check) or whose pool would run dry ("out of files!" in
// Postmark), runs it in a new directory inside the one given, and removes that
// directory at the end, also on failure or Ctrl-C. The result holds Postmark's report
// (counts, per-second rates as Postmark divides them, MB/s, phase times from the
// monotonic clock rather than whole seconds) and a latency histogram per operation
// (package metrics), over the run and per phase.
//
// Presets are the four load levels of the SAN study's power measurements. Postmark
// runs flat out, so a level is set by how much of its work reaches the device: how
// much data a transaction moves, how long files live (data written and deleted within
// the kernel's writeback delay, 30 s by default, never reaches the device), and
// whether the pool stays in the page cache. The utilisations aimed at are those of a
// disk-based array like the study's SAN:
//
//   - non-load (0%): no files for a minute: the devices' idle power, the baseline;
//   - low (under 20%): 1,000 files of 512 B to 16 KiB (8 MiB), 20,000 transactions,
//     4 KiB blocks, buffered; files live seconds and stay in any cache, so the device
//     sees little beyond metadata and the journal;
//   - medium (about 50%): 5,000 files of 4 KiB to 128 KiB (320 MiB, larger than small
//     cache models and array caches), 50,000 transactions, 16 KiB blocks, buffered:
//     about 50 KiB written a transaction, so writeback runs through the run while
//     reads mostly hit the cache;
//   - high (90% or more): 10,000 files of 64 KiB to 1 MiB (5.3 GiB), 100,000
//     transactions, 64 KiB blocks, unbuffered: about 0.4 MiB written a transaction,
//     39 GiB in all, far more than writeback can hold back.
//
// All levels keep Postmark's biases (5 and 5) and seed 42, and spread files over 10
// to 100 subdirectories so that directories stay small, as a mail spool's do. The
// README gives what each level measured on this project's test machine.
package postmark
