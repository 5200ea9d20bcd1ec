// Package preload is the emulator's fast path: the database's processes do their own
// I/O on the devices' directories and ask the emulator server for each request's
// completion time through a shared-memory ring, instead of going through a FUSE
// mount. A request costs a few microseconds of the host's time (fstat, the real
// pread or pwrite, a round trip through shared memory) instead of a kernel round trip
// through FUSE, and that time is spent inside the model's latency rather than added
// to it: the client stamps the arrival before anything else.
//
// # The pieces
//
//   - ring.h, ring.go: the shared memory. Slots (one request each, answered in place
//     with a deadline on CLOCK_MONOTONIC), a submission queue of slot numbers and a
//     completion queue of latencies, both bounded multi-producer queues; futex words
//     for the consumer's doorbell and for clients that sleep on an answer.
//   - client.h: what a client runs around one I/O (tb_timed): claim a slot, stamp
//     and queue the request, do the real call while the server answers, wait until
//     the deadline (a few spin, the others sleep and spin the rest), report the
//     completion. A buffered read of pages the server marked as held by its page
//     cache model takes no slot: the client reads, returns and reports a hit record
//     (the chunk map and the resident-page bitmaps in the ring). Header-only;
//     compiled into the shim, the SQLite VFS and Client.
//   - shim.c: the LD_PRELOAD shared object for PostgreSQL and MariaDB (Shim builds it
//     with the system's C compiler on first use).
//   - Client: the same client code called from Go (the server's floor probe, and the
//     thread ceiling of `device calibrate --emulator preload`).
//   - probe.go: `device calibrate`'s probes on this path, run in C on a thread of
//     their own: at queue depth 1 each request through the shim's own call; deeper,
//     one thread keeping that many requests in flight (fio's iodepth), each returned
//     at its deadline.
//
// The server side (the one consumer, in front of the same timed device as a FUSE
// mount) is in package emulator: ring_linux.go.
package preload
