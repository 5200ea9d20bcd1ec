//go:build linux && cgo

package preload

/*
#cgo CFLAGS: -O2 -std=gnu11
#cgo LDFLAGS: -lpthread
#include <stdlib.h>
#include "client.h"

// One calibration probe, run in C with the client code the shim runs (client.h), so
// that what it measures is the ring's timing and the real call's cost, not cgo's or
// the Go scheduler's.
struct tb_probe {
	int dev, fd, op, fsync, depth;
	uint32_t flags;
	int64_t size, nreq;
	const int64_t *offs; // nreq file offsets
	char *buf;           // depth * size bytes
	int64_t *lats;       // out: each request's latency (arrival to return), ns
	int64_t *gaps;       // out: from the return that freed its place to its arrival, ns; -1: none
	int64_t *flushes;    // out (fsync probes): each commit's flush, call to return, ns
	_Atomic int32_t *stop;
	int64_t next;          // the next request to issue
	int64_t start, end;    // CLOCK_MONOTONIC ns: the probe's start and budget's end
	int64_t n, elapsed;    // out: requests completed, and ns from start to the last
	int err;               // out: errno of a failed call, or -1: the ring failed
};

static ssize_t tb_probe_call(struct tb_probe *p, int op, char *buf, int64_t off)
{
	if (op == TB_READ)
		return pread(p->fd, buf, p->size, off);
	if (op == TB_WRITE)
		return pwrite(p->fd, buf, p->size, off);
	return fdatasync(p->fd);
}

struct tb_probe_arg { struct tb_probe *p; int op; char *buf; int64_t off; };

static ssize_t tb_probe_io(void *a)
{
	struct tb_probe_arg *x = a;
	return tb_probe_call(x->p, x->op, x->buf, x->off);
}

static ssize_t tb_probe_nothing(void *a) { return 0; }

// tb_probe_sync: one request at a time through tb_timed, exactly as the shim makes a
// call (and, for an fsync probe, the flush as the next request).
static void tb_probe_sync(struct tb_client *c, struct tb_probe *p, uint64_t file, int64_t end)
{
	int64_t last = 0;
	for (;;) {
		if (last != 0 && (tb_mono() >= end || atomic_load(p->stop)))
			break;
		int64_t i = p->next++;
		if (i >= p->nreq)
			break;
		int64_t t = tb_mono();
		p->gaps[i] = last != 0 ? t - last : -1;
		struct tb_probe_arg a = {p, p->op, p->buf, p->offs[i]};
		ssize_t r = tb_timed(c, p->dev, p->fd, p->op, p->flags, p->offs[i], p->size, file, NULL, tb_probe_io, &a);
		if (r >= 0 && p->fsync) {
			a.op = TB_FLUSH;
			tb_io_fn fn = (c->h->dev[p->dev].flags & TB_DEV_NO_BACKING_SYNC) ? tb_probe_nothing : tb_probe_io;
			int64_t tf = tb_mono();
			r = tb_timed(c, p->dev, p->fd, TB_FLUSH, p->flags, 0, 0, file, NULL, fn, &a);
			p->flushes[i] = tb_mono() - tf;
		}
		if (r < 0) {
			p->err = errno;
			return;
		}
		last = tb_mono();
		p->lats[i] = last - t;
		p->n++;
	}
}

// A place in the asynchronous probe's queue.
struct tb_place {
	struct tb_req q;
	int64_t idx, deadline, freed;
	int answered, busy;
};

// tb_probe_submit queues request i and makes the real call, as tb_timed does up to
// its wait (tb_timed_begin); the wait is the loop's. A request that would go untimed
// fails the probe.
static int tb_probe_submit(struct tb_client *c, struct tb_probe *p, struct tb_place *pl, int k, int64_t i, uint64_t file)
{
	if (pl->freed)
		p->gaps[i] = tb_mono() - pl->freed;
	else
		p->gaps[i] = -1;
	int64_t off = p->offs[i];
	// asked even when cached: the loop waits on the slot's answer
	tb_timed_begin(c, p->dev, p->fd, (uint32_t)p->op, p->flags | TB_REQ_NO_HIT, off, p->size, file, NULL, &pl->q);
	if (pl->q.slot < 0) {
		p->err = -1;
		return -1;
	}
	ssize_t r = tb_probe_call(p, p->op, p->buf + (size_t)k * (size_t)p->size, off);
	if (r < 0) {
		p->err = errno;
		return -1;
	}
	pl->idx = i;
	pl->answered = 0;
	pl->busy = 1;
	return 0;
}

// tb_probe_async keeps depth requests in flight from this one thread, as fio does
// with an asynchronous engine at that iodepth: each place is refilled as soon as its
// request returns at the model's deadline. The thread busy-waits for the earliest
// deadline (it is the only client: a calibration, not a database).
static void tb_probe_async(struct tb_client *c, struct tb_probe *p, uint64_t file, int64_t end)
{
	struct tb_header *h = c->h;
	struct tb_place pl[p->depth];
	memset(pl, 0, sizeof pl);
	int busy = 0;
	for (int k = 0; k < p->depth; k++) {
		int64_t i = p->next++;
		if (i >= p->nreq)
			break;
		if (tb_probe_submit(c, p, &pl[k], k, i, file) != 0)
			goto drain;
		busy++;
	}
	int64_t waiting_since = 0;
	while (busy > 0) {
		int64_t best = INT64_MAX;
		int bk = -1;
		for (int k = 0; k < p->depth; k++) {
			struct tb_place *x = &pl[k];
			if (!x->busy)
				continue;
			if (!x->answered) {
				if (atomic_load_explicit(&c->slots[x->q.slot].state, memory_order_acquire) != TB_ANSWERED)
					continue;
				x->deadline = tb_take_answer(c, &x->q);
				x->answered = 1;
			}
			if (x->deadline < best) {
				best = x->deadline;
				bk = k;
			}
		}
		int64_t now = tb_mono();
		if (bk < 0) {
			// nothing answered yet: the server is at work, or gone
			if (waiting_since == 0)
				waiting_since = now;
			else if (now - waiting_since > TB_GIVE_UP_NS || ((now - waiting_since) > 100000000LL && !tb_server_alive(c))) {
				tb_fail(c, "no answer from the emulator server (pid %d) for a calibration probe", (int)h->server_pid);
				p->err = -1;
				return;
			}
			tb_pause();
			continue;
		}
		waiting_since = 0;
		if (now < best) {
			tb_pause();
			continue;
		}
		struct tb_place *x = &pl[bk];
		int64_t t1 = tb_complete(c, &x->q, best);
		p->lats[x->idx] = t1 - x->q.t0;
		p->n++;
		x->busy = 0;
		x->freed = t1;
		busy--;
		if (t1 < end && !atomic_load_explicit(p->stop, memory_order_relaxed)) {
			int64_t i = p->next++;
			if (i < p->nreq) {
				if (tb_probe_submit(c, p, x, bk, i, file) != 0)
					goto drain;
				busy++;
			}
		}
	}
	return;
drain:
	// a failed submission: return what is in flight, so that no slot stays claimed
	// and the device's count of requests in flight comes back to none
	for (int k = 0; k < p->depth; k++) {
		if (!pl[k].busy)
			continue;
		if (pl[k].answered)
			tb_complete(c, &pl[k].q, pl[k].deadline); // its slot is free already
		else
			tb_end(c, &pl[k].q);
	}
}

static void tb_probe_run(struct tb_client *c, struct tb_probe *p)
{
	struct stat st;
	if (fstat(p->fd, &st) != 0) {
		p->err = errno;
		return;
	}
	uint64_t file = tb_file_id(&st);
	if (p->depth <= 1) {
		tb_probe_sync(c, p, file, p->end);
	} else {
		// This thread busy-waits throughout: the server's load watch counts it as a
		// spinner.
		atomic_fetch_add(&c->h->spinners, 1);
		tb_probe_async(c, p, file, p->end);
		atomic_fetch_sub(&c->h->spinners, 1);
	}
	p->elapsed = tb_mono() - p->start;
}

#include <pthread.h>

struct tb_probe_thread { struct tb_client *c; struct tb_probe *p; int done_fd; };

static void *tb_probe_main(void *a)
{
	struct tb_probe_thread *t = a;
	tb_probe_run(t->c, t->p);
	char b = 1;
	while (write(t->done_fd, &b, 1) < 0 && errno == EINTR) {
	}
	return NULL;
}

// tb_probe_start runs the probe on a thread of its own, outside Go's runtime (a
// goroutine in a long cgo call holds a P in a system call that the runtime's monitor
// keeps watching), so that the probe competes with nothing of tierbench's but the
// server. done_fd gets a byte when it ends. Returns an errno.
static int tb_probe_start(struct tb_probe_thread *t)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_t th;
	int err = pthread_create(&th, &attr, tb_probe_main, t);
	pthread_attr_destroy(&attr);
	return err;
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// ProbeSpec is one calibration probe (package emulator's `device calibrate`) on the
// preload path: fio-like requests of Size bytes at Offsets on FD, a file of device
// Dev, at queue depth Depth. Depth 1 runs each request through the shim's own call
// (tb_timed); a deeper queue keeps Depth requests in flight from one thread, as fio's
// iodepth does with an asynchronous engine.
type ProbeSpec struct {
	Dev, FD int
	Write   bool
	// Fsync: each write is followed by fdatasync, the pair one commit (depth 1 only).
	Fsync   bool
	Size    int64
	Offsets []int64
	Depth   int
	// Budget bounds the run; the first request goes whatever it is.
	Budget time.Duration
	Flags  IOFlags
}

// ProbeRun is what a probe did.
type ProbeRun struct {
	N       int
	Elapsed time.Duration
	// Lats are the completed requests' latencies (a commit's: write and flush), in
	// issue order.
	Lats []time.Duration
	// Gaps are, for each request after its place's first, the time from the return
	// that freed its place to its arrival.
	Gaps []time.Duration
	// Flushes are, on an fsync probe, each commit's flush (part of its Lats).
	Flushes []time.Duration
}

// Probe runs spec on a thread of its own. It returns when the requests or the budget
// run out, or soon after ctx is done.
func (c *Client) Probe(ctx context.Context, spec ProbeSpec) (*ProbeRun, error) {
	n := len(spec.Offsets)
	switch {
	case n == 0:
		return nil, errors.New("probe: no requests")
	case spec.Depth < 1 || spec.Depth > 256:
		return nil, fmt.Errorf("probe: queue depth %d: give 1 to 256", spec.Depth)
	case spec.Fsync && (spec.Depth != 1 || !spec.Write):
		return nil, errors.New("probe: an fsync probe writes at queue depth 1")
	case spec.Size <= 0:
		return nil, fmt.Errorf("probe: request size %d: give a positive size", spec.Size)
	}
	done, doneW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer done.Close()
	// C memory and the pipe's write end, freed on return unless the probe's thread
	// may still use them
	var cmem []unsafe.Pointer
	running := false
	defer func() {
		if !running {
			doneW.Close()
			for _, m := range cmem {
				C.free(m)
			}
		}
	}()
	// Everything the thread touches is C's memory: it runs outside Go's view.
	offs := (*[1 << 30]C.int64_t)(C.malloc(C.size_t(8 * n)))[:n:n]
	cmem = append(cmem, unsafe.Pointer(&offs[0]))
	for i, o := range spec.Offsets {
		offs[i] = C.int64_t(o)
	}
	lats := (*[1 << 30]C.int64_t)(C.calloc(C.size_t(n), 8))[:n:n]
	cmem = append(cmem, unsafe.Pointer(&lats[0]))
	gaps := (*[1 << 30]C.int64_t)(C.calloc(C.size_t(n), 8))[:n:n]
	cmem = append(cmem, unsafe.Pointer(&gaps[0]))
	flushes := (*[1 << 30]C.int64_t)(C.calloc(C.size_t(n), 8))[:n:n]
	cmem = append(cmem, unsafe.Pointer(&flushes[0]))
	stop := (*int32)(C.calloc(1, 4)) // set on ctx's end; the thread reads it
	cmem = append(cmem, unsafe.Pointer(stop))
	var buf unsafe.Pointer
	if C.posix_memalign(&buf, 4096, C.size_t(spec.Size)*C.size_t(spec.Depth)) != 0 {
		return nil, errors.New("probe: out of memory for the buffers")
	}
	cmem = append(cmem, buf)
	p := (*C.struct_tb_probe)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_tb_probe{}))))
	cmem = append(cmem, unsafe.Pointer(p))
	th := (*C.struct_tb_probe_thread)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_tb_probe_thread{}))))
	cmem = append(cmem, unsafe.Pointer(th))

	p.dev, p.fd, p.depth = C.int(spec.Dev), C.int(spec.FD), C.int(spec.Depth)
	p.op = C.TB_READ
	if spec.Write {
		p.op = C.TB_WRITE
	}
	if spec.Fsync {
		p.fsync = 1
	}
	p.flags = C.uint32_t(spec.Flags.bits())
	p.size, p.nreq = C.int64_t(spec.Size), C.int64_t(n)
	p.offs, p.lats, p.gaps, p.flushes = &offs[0], &lats[0], &gaps[0], &flushes[0]
	p.buf = (*C.char)(buf)
	p.stop = (*C.int32_t)(unsafe.Pointer(stop))
	th.c, th.p, th.done_fd = c.c, p, C.int(doneW.Fd())

	p.start = C.tb_mono()
	p.end = p.start + C.int64_t(spec.Budget)
	running = true
	if e := C.tb_probe_start(th); e != 0 {
		running = false
		return nil, fmt.Errorf("probe: start a thread: %w", syscall.Errno(e))
	}
	// Wait on the pipe through Go's poller (no thread of Go's stays busy meanwhile).
	ended := make(chan error, 1)
	go func() {
		var b [1]byte
		_, err := done.Read(b[:])
		ended <- err
	}()
	select {
	case err = <-ended:
	case <-ctx.Done():
		atomic.StoreInt32(stop, 1)
		err = <-ended
	}
	if err != nil {
		// the thread may still use its memory and pipe: they stay
		return nil, fmt.Errorf("probe: wait for the probe thread: %w", err)
	}
	running = false

	// the thread's own span: its wake-up of this goroutine is not the probe's time
	run := &ProbeRun{N: int(p.n), Elapsed: time.Duration(p.elapsed)}
	for i := range n {
		if lats[i] > 0 {
			run.Lats = append(run.Lats, time.Duration(lats[i]))
		}
		if lats[i] > 0 && gaps[i] >= 0 {
			run.Gaps = append(run.Gaps, time.Duration(gaps[i]))
		}
		if lats[i] > 0 && spec.Fsync {
			run.Flushes = append(run.Flushes, time.Duration(flushes[i]))
		}
	}
	switch {
	case p.err > 0:
		return run, fmt.Errorf("probe: %w", syscall.Errno(p.err))
	case p.err < 0:
		if m := c.Failed(); m != "" {
			return run, fmt.Errorf("preload ring: %s", m)
		}
		return run, errors.New("preload ring: a request could not be timed")
	}
	return run, nil
}
