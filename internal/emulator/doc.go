// Package emulator puts device models (package device) under a real database server:
// every read, write and fsync on an emulated device's files completes when the model
// says the device would have finished, in real time. Two paths lead a database's I/O
// to the models (Options.Path):
//
//   - PathFUSE: a FUSE file system per device, backed by a real directory. Any program
//     can use it; each request costs a kernel round trip (the floor, below).
//   - PathPreload: the database's own processes do their I/O on the backing
//     directories and ask the server for each request's deadline through a shared-
//     memory ring (package preload: the LD_PRELOAD shim for PostgreSQL and MariaDB,
//     package sqlitevfs for SQLite in this process). ring_linux.go is the server's
//     side, preload_linux.go its start and floor.
//
// # Using it
//
//	e, err := emulator.Start(ctx, []emulator.Device{
//		{Name: "data", Spec: "hdd-7200", BackingDir: "/srv/tb/data", MountPoint: "/mnt/tb/data"},
//		{Name: "wal", Spec: "sata-ssd", BackingDir: "/srv/tb/wal", MountPoint: "/mnt/tb/wal"},
//	}, emulator.Options{})
//	defer e.Stop()            // unmounts; returns the final counters
//	st, err := e.Stats()      // per device, during the run
//
// The database's files go under the mount points (hybrid placement: several mounts
// and symlinks). Where FUSE cannot be used, Start returns an error wrapping ErrNoFUSE
// that says why and what to do; runs on real directories need none of this.
//
// # The server process
//
// Start runs `tierbench device serve` (Options.Command) as a child in its own process
// group, with Pdeathsig and a stdin pipe: it unmounts when Stop closes that pipe, on
// SIGTERM or SIGINT, and when tierbench dies. A server killed outright (SIGKILL, OOM)
// leaves its mounts behind with a dead connection; every Start first removes emulator
// mounts whose server is gone (CleanStale: the owner's pid is in the mount source,
// "tierbench-PID:NAME", and a dead connection answers ENOTCONN). Counters are read over
// a unix socket in StateDir; the final ones come back from Stop.
//
// # Timing
//
// Virtual time 0 is the moment a device is mounted. A request arriving at wall time w
// is submitted to the model at w (serialised by a mutex, never earlier than the last
// submission), the backing file's read or write is done, and the reply waits until the
// model's completion time. A request alone on its device waits in clock_nanosleep with
// a 1 ns timer slack and spins the last 300 us; queued requests park on one waker
// thread (waker_linux.go) that sleeps in a futex until the earliest deadline. Why not
// time.Sleep: it is up to 1 ms late here, and an idle CPU of a virtual machine takes
// 50-200 us to wake. Every file is opened with
// FOPEN_DIRECT_IO, so the kernel caches no data and the model sees every request (the
// page cache is the pagecache(...) model's job), and never with FUSE passthrough.
// O_DIRECT opens set Request.Direct; the backing file is opened without it.
//
// Files are laid out on the device in 1 MiB chunks (layout.go) so the model sees
// device offsets: a file's existing size in one run, growth in the order it happens.
//
// # The preload path
//
// A client stamps a request's arrival on CLOCK_MONOTONIC before anything else, queues
// it, does the real I/O while the server's one consumer submits it to the same
// timedDevice a mount uses (admit) and answers with the deadline, then waits until
// then and reports its completion (complete: counters, histograms, and how late it
// returned, DeviceStats.TimingError). The path's own time is inside the model's
// latency, so nothing is compensated; a device faster than the floor is refused. Who
// busy-waits: the consumer for 200 us after a burst, and up to CPUs-1 waiting clients,
// unless the host has more runnable threads than CPUs (then everyone sleeps: a spinner
// on a loaded host is descheduled for milliseconds). The backing files are not synced.
//
// A device whose model is a page cache on top publishes it to the clients
// (residency.go): where each file's chunks lie on the device, and which pages the model
// holds with their data there. A buffered read of such pages does not ask: the client
// reads and returns, as a hit in a real page cache costs only the copy, and reports a
// hit record that the consumer submits to the model afterwards (fastHit).
//
// # The floor
//
// At mount the server times 4 KiB reads through its own mount with the model out of
// the way: the mount's latency floor on this host (tens of microseconds). That much
// (plus a per-MiB copy cost, and for fast devices the residual measured through a
// scratch model) is taken off every completion, so a program sees the model's latency
// rather than the model's plus the floor. A device whose random 8 KiB read is faster
// than the floor cannot be emulated in real time here: Start refuses it with
// ErrTooFast (unless Options.AllowTooFast). For those, record a trace (Device.Trace)
// on a slower device and Replay it offline through the fast one.
//
// # Calibration
//
// Calibrate runs fio-like probes through fresh mounts of a device (random 8 KiB reads
// and writes at queue depth 1 and 32, sequential 1 MiB, write + fsync) and compares each
// with the same requests run through a fresh model in virtual time. Each probe runs
// first on a null device: what the path itself costs those requests on this host
// bounds what any emulation here can measure (the host's best; a probe whose best is
// more than 5% from the model is host-limited), and then in up to five rounds on fresh
// devices, of which the round with the median error is reported. On the preload path
// the probes run in C (package preload, probe.go); at queue depth 32 one thread keeps
// 32 requests in flight, as fio's iodepth does.
//
// The commands `tierbench device calibrate` and `device replay` are CalibrateSettings
// and ReplaySettings: their flags as parameters, checked before anything is mounted
// or read, and the text they print (Calibration.WriteText, ReplayResult.WriteText).
//
// What is not modelled: metadata operations (lookup, create, rename, unlink) take no
// device time; close(2) is not a flush; mmap of a file is served by the kernel's page
// cache (direct_io_allow_mmap) and not seen by the model; chunks of deleted files are
// not reused.
package emulator
