// Package demo is `tierbench demo`: TPC-H on embedded SQLite, at a small scale factor,
// on a few emulated devices from slow to fast, printed as one table whose ranking
// follows the devices' speeds.
//
// Each device runs the same thing: a fresh database on an emulated tier that holds the
// database and its temp files, the same qgen seed, the same SQLite cache, and the same
// page cache model in front of the device (pagecache(DEVICE,size=10MiB,page=64KiB), the
// emulated machine's RAM). The page cache is smaller than the database, so scans,
// index lookups, writes and every fsync reach the device, while the run still
// finishes in about a minute on a disk (see the Default constants).
//
// The devices are emulated on the preload path by default (SQLite's VFS, a few
// microseconds a request), which serves every built-in profile. On FUSE (--emulator
// fuse) the fastest ones (dram-ssd, nvme) answer faster than a round trip on many
// hosts; the emulator refuses those (an emulator.TooFastError) rather than report a
// wrong device, and the demo takes the next fastest it can emulate and says which it
// substituted and why.
//
// Settings are the command's flags as parameters; Settings.Run checks them into a
// Config, runs it (Run) and prints the table (WriteTable) or JSON.
package demo
