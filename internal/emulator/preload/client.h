/*
 * The client side of the ring (ring.h): what the LD_PRELOAD shim (shim.c) and the
 * SQLite VFS (package sqlitevfs) run around each read, write and flush of a device's
 * file. Header-only and static, so each user compiles its own copy.
 *
 *	struct tb_req q;
 *	tb_begin(&c, dev, TB_READ, flags, file, off, size, file_size, &q);  // arrival
 *	n = real_pread(...);                       // the real I/O, while the server answers
 *	tb_end(&c, &q);                            // waits until the model's completion
 *
 * Nothing here takes a lock or allocates: the shim runs it inside signal handlers'
 * callers, across fork, and in every thread of a server.
 */
#ifndef TB_CLIENT_H
#define TB_CLIENT_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ring.h"

#if defined(__x86_64__) || defined(__i386__)
#define tb_pause() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define tb_pause() __asm__ __volatile__("yield")
#else
#define tb_pause() ((void)0)
#endif

struct tb_client {
	struct tb_header *h;
	struct tb_slot *slots;
	struct tb_sq_cell *sq;
	struct tb_cq_cell *cq;
	size_t size;
};

/* A request between tb_begin and tb_end. slot < 0: not timed (the ring failed), or
 * TB_SLOT_HIT: a read of cached pages or a copy-only write, served without asking
 * (file, off, file_size go in its hit record). */
struct tb_req {
	int slot;
	uint32_t dev, op, flags;
	int64_t t0;
	int64_t size;
	uint64_t file;
	int64_t off, file_size;
};

#define TB_SLOT_HIT (-2)

/* How long a client waits for an answer or a free slot before it calls the server
 * gone: far beyond any model's latency, short enough that a dead server does not
 * hang the database for long. */
#define TB_GIVE_UP_NS (10LL * 1000000000LL)

static inline int64_t tb_mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static inline long tb_futex(void *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

/* tb_fail records the first failure, which the server reports with the device's
 * counters and which fails the run: a request the ring could not time is a device
 * the emulator did not emulate. */
static void tb_fail(struct tb_client *c, const char *fmt, ...)
{
	struct tb_header *h = c->h;
	uint32_t zero = 0;
	if (!h || !atomic_compare_exchange_strong(&h->msg_lock, &zero, 1))
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = snprintf(h->msg, TB_MSG_MAX, "pid %d: ", (int)getpid());
	if (n > 0 && n < TB_MSG_MAX)
		vsnprintf(h->msg + n, TB_MSG_MAX - n, fmt, ap);
	va_end(ap);
	atomic_store(&h->failed, 1);
}

/* tb_unseen records a call on a device's file whose I/O the ring cannot time (an
 * mmap, native AIO, io_uring, sync_file_range): the first one's name is kept. */
static void tb_unseen(struct tb_client *c, const char *what)
{
	struct tb_header *h = c->h;
	if (!h)
		return;
	if (atomic_fetch_add(&h->unseen, 1) == 0)
		snprintf(h->unseen_msg, TB_MSG_MAX, "%s (pid %d)", what, (int)getpid());
}

/* tb_attach maps the ring at path. On error it returns -1 with a reason in err. */
static int tb_attach(struct tb_client *c, const char *path, int (*open_fn)(const char *, int, ...),
		     char *err, size_t errlen)
{
	int fd = open_fn(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "open %s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(struct tb_header)) {
		snprintf(err, errlen, "%s is not a tierbench ring (size %lld)", path, (long long)st.st_size);
		close(fd);
		return -1;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "mmap %s: %s", path, strerror(errno));
		return -1;
	}
	struct tb_header *h = m;
	if (h->magic != TB_MAGIC || h->version != TB_VERSION || h->header_size != sizeof(struct tb_header) ||
	    h->total_size != (uint64_t)st.st_size || h->ndevices > TB_MAX_DEVICES || h->nslots == 0 ||
	    (h->nslots & (h->nslots - 1)) || h->ncq == 0 || (h->ncq & (h->ncq - 1)) ||
	    h->slots_off + (uint64_t)h->nslots * sizeof(struct tb_slot) > h->total_size ||
	    h->sq_off + (uint64_t)h->nslots * sizeof(struct tb_sq_cell) > h->total_size ||
	    h->cq_off + (uint64_t)h->ncq * sizeof(struct tb_cq_cell) > h->total_size) {
		snprintf(err, errlen, "%s: not a version %d tierbench ring (another tierbench's shim?)", path, TB_VERSION);
		munmap(m, (size_t)st.st_size);
		return -1;
	}
	c->h = h;
	c->slots = (struct tb_slot *)((char *)m + h->slots_off);
	c->sq = (struct tb_sq_cell *)((char *)m + h->sq_off);
	c->cq = (struct tb_cq_cell *)((char *)m + h->cq_off);
	c->size = (size_t)st.st_size;
	atomic_fetch_add(&h->attached, 1);
	return 0;
}

/* tb_device_of returns the device whose directory holds the canonical path p, or -1. */
static int tb_device_of(const struct tb_client *c, const char *p)
{
	if (!c->h)
		return -1;
	size_t n = strlen(p);
	for (uint32_t i = 0; i < c->h->ndevices; i++) {
		const struct tb_device *d = &c->h->dev[i];
		uint32_t l = d->dir_len;
		if (l == 0 || l >= TB_DIR_MAX || n < l || memcmp(p, d->dir, l) != 0)
			continue;
		if (n == l || p[l] == '/')
			return (int)i;
	}
	return -1;
}

static int tb_server_alive(const struct tb_client *c)
{
	return kill(c->h->server_pid, 0) == 0 || errno == EPERM;
}

static void tb_ring_doorbell(struct tb_header *h)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&h->sleeping)) {
		atomic_fetch_add(&h->doorbell, 1);
		tb_futex(&h->doorbell, FUTEX_WAKE, 1, NULL);
	}
}

static __thread uint32_t tb_hint;

/* tb_claim returns a free slot, waiting while every one is in use (a queue deeper than
 * the ring: a device's queue is full). -1 when the server stopped answering. */
static int tb_claim(struct tb_client *c)
{
	struct tb_header *h = c->h;
	uint32_t mask = h->nslots - 1;
	if (tb_hint == 0)
		tb_hint = (uint32_t)syscall(SYS_gettid) * 2654435761u | 1;
	int64_t give_up = 0;
	for (;;) {
		for (uint32_t i = 0; i <= mask; i++) {
			uint32_t idx = (tb_hint + i) & mask;
			uint32_t want = TB_FREE;
			if (atomic_load_explicit(&c->slots[idx].state, memory_order_relaxed) == TB_FREE &&
			    atomic_compare_exchange_strong(&c->slots[idx].state, &want, TB_CLAIMED)) {
				tb_hint = idx;
				return (int)idx;
			}
		}
		int64_t now = tb_mono();
		if (give_up == 0) {
			give_up = now + TB_GIVE_UP_NS;
			atomic_fetch_add(&h->full_waits, 1);
		}
		if (now > give_up || !tb_server_alive(c)) {
			tb_fail(c, "the ring's %u slots stayed full for %lld s: the emulator server stopped answering",
				h->nslots, (long long)(TB_GIVE_UP_NS / 1000000000LL));
			return -1;
		}
		tb_ring_doorbell(h);
		sched_yield();
	}
}

static void tb_sq_push(struct tb_client *c, uint32_t slot)
{
	struct tb_header *h = c->h;
	uint64_t mask = h->nslots - 1;
	uint64_t pos = atomic_load_explicit(&h->sq_head, memory_order_relaxed);
	for (;;) {
		struct tb_sq_cell *cell = &c->sq[pos & mask];
		uint64_t seq = atomic_load_explicit(&cell->seq, memory_order_acquire);
		int64_t dif = (int64_t)(seq - pos);
		if (dif == 0) {
			if (atomic_compare_exchange_weak_explicit(&h->sq_head, &pos, pos + 1, memory_order_relaxed,
								  memory_order_relaxed)) {
				cell->slot = slot;
				atomic_store_explicit(&cell->seq, pos + 1, memory_order_release);
				break;
			}
		} else {
			/* never full: a cell per slot, a slot queued once while claimed */
			pos = atomic_load_explicit(&h->sq_head, memory_order_relaxed);
		}
	}
	tb_ring_doorbell(h);
}

/* tb_cached says whether device dev's page cache model holds, with their data there,
 * every page of size bytes at file offset off (a write: every page it covers only in
 * part and that holds some of the file's file_size bytes; it replaces the others
 * whole, and the kernel zero-fills a page past the file's end): the server has
 * published where the file's chunks lie and marked the pages it holds. Anything
 * unknown says no, and the request asks. */
static int tb_cached(const struct tb_client *c, uint32_t dev, uint32_t op, uint64_t file, int64_t off, int64_t size,
		     int64_t file_size)
{
	const struct tb_header *h = c->h;
	const struct tb_device *d = &h->dev[dev];
	if (d->res_off == 0 || h->map_off == 0 || size <= 0 || off < 0 || file == 0 || file == TB_MAP_GONE)
		return 0;
	const struct tb_map_entry *map = (const struct tb_map_entry *)((const char *)h + h->map_off);
	const _Atomic uint64_t *bits = (const _Atomic uint64_t *)((const char *)h + d->res_off);
	uint64_t mask = h->map_n - 1;
	int64_t chunk = h->map_chunk, page = d->page;
	for (int64_t at = off; at < off + size;) {
		int64_t fc = at / chunk;
		int64_t dchunk = -1;
		uint64_t hash = tb_map_hash(file, fc);
		for (uint32_t i = 0; i < TB_MAP_PROBES; i++) {
			const struct tb_map_entry *e = &map[(hash + i) & mask];
			uint64_t f = atomic_load_explicit(&e->file, memory_order_acquire);
			if (f == 0)
				break;
			if (f == file && e->chunk == fc && e->dev == dev) {
				dchunk = e->dchunk;
				break;
			}
		}
		if (dchunk < 0)
			return 0;
		int64_t end = (fc + 1) * chunk < off + size ? (fc + 1) * chunk : off + size;
		int64_t base = dchunk * chunk - fc * chunk; /* device offset = file offset + base */
		for (int64_t p = (at + base) / page; p <= (end - 1 + base) / page; p++) {
			if (p >= d->res_pages)
				return 0;
			/* a page the write covers whole needs nothing from the cache (a chunk
			 * is whole pages: Create refuses a page that does not divide it) */
			if (op == TB_WRITE && p * page >= off + base && (p + 1) * page <= off + size + base)
				continue;
			/* nor one wholly past the file's end: the kernel gives it zeros */
			if (op == TB_WRITE && p * page >= file_size + base)
				continue;
			if (!(atomic_load_explicit(&bits[p / 64], memory_order_acquire) & (1ULL << (p % 64))))
				return 0;
		}
		at = end;
	}
	return 1;
}

/* tb_take_budget takes n pages from device dev's write budget; 0 if it has not that
 * many (then nothing is taken). */
static int tb_take_budget(struct tb_client *c, uint32_t dev, int64_t n)
{
	_Atomic int64_t *b = &c->h->dev[dev].write_budget;
	if (atomic_fetch_sub(b, n) >= n)
		return 1;
	atomic_fetch_add(b, n);
	return 0;
}

/* tb_begin queues a request that arrived at t0 (call it before the real I/O, so the
 * server answers while the I/O runs). A buffered read of pages the device's page cache
 * model holds is not queued: it is a hit (q->slot TB_SLOT_HIT), which tb_end reports;
 * so is a buffered write that the model would only copy (tb_cached, tb_take_budget). */
static void tb_begin(struct tb_client *c, uint32_t dev, uint32_t op, uint32_t flags, uint64_t file, int64_t off,
		     int64_t size, int64_t file_size, int64_t t0, struct tb_req *q)
{
	q->slot = -1;
	q->dev = dev;
	q->op = op;
	q->flags = flags;
	q->t0 = t0;
	q->size = size;
	q->file = file;
	q->off = off;
	q->file_size = file_size;
	struct tb_header *h = c->h;
	if (!h || dev >= h->ndevices || atomic_load_explicit(&h->failed, memory_order_relaxed))
		return;
	if ((op == TB_READ || op == TB_WRITE) && !(flags & (TB_REQ_DIRECT | TB_REQ_UNCOUNTED | TB_REQ_NO_HIT)) &&
	    tb_cached(c, dev, op, file, off, size, file_size)) {
		int64_t page = h->dev[dev].page;
		if (op == TB_READ || tb_take_budget(c, dev, (off + size - 1) / page - off / page + 1)) {
			q->slot = TB_SLOT_HIT;
			return;
		}
	}
	int s = tb_claim(c);
	if (s < 0)
		return;
	struct tb_slot *sl = &c->slots[s];
	sl->dev = dev;
	sl->op = op;
	sl->flags = flags;
	sl->pid = getpid();
	sl->qd = (flags & TB_REQ_UNCOUNTED) ? 1 : atomic_fetch_add(&h->dev[dev].inflight, 1) + 1;
	sl->file = file;
	sl->off = off;
	sl->size = size;
	sl->file_size = file_size;
	sl->arrive = t0;
	sl->deadline = 0;
	atomic_store_explicit(&sl->waiting, 0, memory_order_relaxed);
	q->slot = s;
	tb_sq_push(c, (uint32_t)s);
}

/* tb_answer waits for the server's answer to slot s: a busy-wait of answer_spin (an
 * awake server answers within a microsecond, and the real I/O has run meanwhile),
 * then a sleep on the slot. A spinning waiter on a loaded host burns its share of the
 * CPU and is then descheduled for milliseconds; a sleeper is woken at once. */
static int64_t tb_answer(struct tb_client *c, int s)
{
	struct tb_slot *sl = &c->slots[s];
	if (atomic_load_explicit(&sl->state, memory_order_acquire) == TB_ANSWERED)
		return sl->deadline;
	/* On a contended host a spinner is descheduled before a normal-priority server
	 * gets a CPU to answer; a real-time server preempts whoever runs and answers
	 * within microseconds, so the short spin still pays there. */
	int spin = !atomic_load_explicit(&c->h->contended, memory_order_relaxed) ||
		   atomic_load_explicit(&c->h->rt_consumer, memory_order_relaxed) == 1;
	int64_t until = tb_mono() + (spin ? c->h->answer_spin : 0);
	do {
		for (int i = 0; i < 16; i++) {
			if (atomic_load_explicit(&sl->state, memory_order_acquire) == TB_ANSWERED)
				return sl->deadline;
			tb_pause();
		}
	} while (tb_mono() < until);
	int64_t give_up = tb_mono() + TB_GIVE_UP_NS;
	atomic_store(&sl->waiting, 1);
	for (;;) {
		if (atomic_load_explicit(&sl->state, memory_order_acquire) == TB_ANSWERED)
			return sl->deadline;
		struct timespec ts = {0, 100 * 1000 * 1000};
		tb_futex(&sl->state, FUTEX_WAIT, TB_CLAIMED, &ts);
		if (atomic_load_explicit(&sl->state, memory_order_acquire) == TB_ANSWERED)
			return sl->deadline;
		if (!tb_server_alive(c)) {
			tb_fail(c, "the emulator server (pid %d) is gone: I/O is no longer timed", (int)c->h->server_pid);
			return -1;
		}
		if (tb_mono() > give_up) {
			tb_fail(c, "no answer from the emulator server (pid %d) for %lld s", (int)c->h->server_pid,
				(long long)(TB_GIVE_UP_NS / 1000000000LL));
			return -1;
		}
	}
}

static __thread int tb_slack_set;

static void tb_sleep_until(int64_t t)
{
	if (!tb_slack_set) {
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
		tb_slack_set = 1;
	}
	struct timespec ts = {t / 1000000000LL, t % 1000000000LL};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
	}
}

/* tb_wait_until returns at deadline. A client that gets one of the ring's spinner
 * places busy-waits the last spin_window (a sleeping thread wakes 15-30 us late on a
 * virtual machine); the others, and everyone on a contended host (the server's flag:
 * a long spinner there is descheduled for milliseconds), sleep until the smoothed
 * lateness of a sleep before the deadline and spin only what is left. With
 * TB_NO_SPIN everyone sleeps to the deadline itself. */
static void tb_wait_until(struct tb_client *c, int64_t deadline)
{
	struct tb_header *h = c->h;
	int64_t now = tb_mono();
	if (now >= deadline)
		return;
	if (h->flags & TB_NO_SPIN) {
		tb_sleep_until(deadline);
		return;
	}
	if (!atomic_load_explicit(&h->contended, memory_order_relaxed)) {
		uint32_t n = atomic_fetch_add(&h->spinners, 1);
		if (n < h->max_spinners) {
			if (deadline - now > h->spin_window)
				tb_sleep_until(deadline - h->spin_window);
			/* the place is given back before the deadline, not after it: in the
			 * last microsecond it keeps no one from spinning (tb_complete) */
			while (deadline - tb_mono() > 1000)
				tb_pause();
			atomic_fetch_sub(&h->spinners, 1);
			while (tb_mono() < deadline)
				tb_pause();
			return;
		}
		atomic_fetch_sub(&h->spinners, 1);
	}
	int64_t lead = atomic_load_explicit(&h->lead, memory_order_relaxed);
	if (deadline - now > lead) {
		int64_t target = deadline - lead;
		tb_sleep_until(target);
		int64_t late = tb_mono() - target;
		/* smoothed (1/8) lateness of a sleep, capped */
		if (late > 100000)
			late = 100000;
		int64_t next = lead + (late - lead) / 8;
		atomic_store_explicit(&h->lead, next < 0 ? 0 : next, memory_order_relaxed);
	}
	while (tb_mono() < deadline)
		tb_pause();
}

static void tb_cq_push(struct tb_client *c, const struct tb_req *q, int64_t size, int64_t lat, int64_t late)
{
	struct tb_header *h = c->h;
	uint64_t mask = h->ncq - 1;
	int64_t give_up = 0;
	uint64_t pos = atomic_load_explicit(&h->cq_head, memory_order_relaxed);
	for (;;) {
		struct tb_cq_cell *cell = &c->cq[pos & mask];
		uint64_t seq = atomic_load_explicit(&cell->seq, memory_order_acquire);
		int64_t dif = (int64_t)(seq - pos);
		if (dif == 0) {
			if (atomic_compare_exchange_weak_explicit(&h->cq_head, &pos, pos + 1, memory_order_relaxed,
								  memory_order_relaxed)) {
				cell->dev = q->dev;
				cell->op = q->op;
				cell->flags = q->flags;
				cell->size = size;
				cell->lat = lat;
				cell->late = late;
				cell->arrive = q->t0;
				cell->file = q->file;
				cell->off = q->off;
				cell->file_size = q->file_size;
				atomic_store_explicit(&cell->seq, pos + 1, memory_order_release);
				return;
			}
		} else if (dif < 0) {
			/* full: the server has not drained completions for a while */
			int64_t now = tb_mono();
			if (give_up == 0)
				give_up = now + TB_GIVE_UP_NS;
			if (now > give_up || !tb_server_alive(c)) {
				tb_fail(c, "the completion queue stayed full: the emulator server stopped answering");
				return;
			}
			atomic_fetch_add(&h->doorbell, 1);
			tb_futex(&h->doorbell, FUTEX_WAKE, 1, NULL);
			sched_yield();
			pos = atomic_load_explicit(&h->cq_head, memory_order_relaxed);
		} else {
			pos = atomic_load_explicit(&h->cq_head, memory_order_relaxed);
		}
	}
}

/* TB_LATE_NOTE_NS: a wait that ends this much after its deadline or more (a sleep that
 * overslept, a thread descheduled) is reported again with its lateness; below it a
 * request counts as on time. */
#define TB_LATE_NOTE_NS 1000

/* tb_complete returns q, whose answer has been taken, at deadline. Its completion is
 * reported first and the wait is the last thing before the caller's return: every
 * atomic and store of the bookkeeping done after the deadline would make each request
 * return that much late (0.1-0.2 us a request on a 2-core VM, 4% of an NVMe commit of
 * two 5-us requests). So the completion goes out as on time (or as late as it already
 * is), and a wait that ends TB_LATE_NOTE_NS late or more is reported once more with its
 * lateness (TB_REQ_LATE), which the server puts in place of the on-time one. It returns
 * the time it returned at. */
static int64_t tb_complete(struct tb_client *c, struct tb_req *q, int64_t deadline)
{
	int64_t now = tb_mono();
	int64_t done = now > deadline ? now : deadline;
	if (!(q->flags & TB_REQ_UNCOUNTED))
		atomic_fetch_sub(&c->h->dev[q->dev].inflight, 1);
	tb_cq_push(c, q, q->size, done - q->t0, done - deadline);
	if (now >= deadline)
		return now;
	tb_wait_until(c, deadline);
	int64_t t1 = tb_mono();
	if (t1 - deadline >= TB_LATE_NOTE_NS && !(q->flags & TB_REQ_UNCOUNTED)) {
		struct tb_req late = *q;
		late.flags |= TB_REQ_LATE;
		tb_cq_push(c, &late, q->size, t1 - q->t0, t1 - deadline);
	}
	return t1;
}

/* tb_take_answer frees the slot of q, which the server has answered, and returns the
 * deadline it answered with. */
static int64_t tb_take_answer(struct tb_client *c, struct tb_req *q)
{
	struct tb_slot *sl = &c->slots[q->slot];
	int64_t deadline = sl->deadline;
	atomic_store_explicit(&sl->state, TB_FREE, memory_order_release);
	return deadline;
}

/* tb_end waits for the answer and the deadline, then reports the completion. */
static void tb_end(struct tb_client *c, struct tb_req *q)
{
	if (q->slot == TB_SLOT_HIT) {
		/* the server submits it to the model when it takes the record; a server
		 * asleep is not woken for it (it drains every few milliseconds) */
		struct tb_req hit = *q;
		hit.flags |= TB_REQ_HIT;
		tb_cq_push(c, &hit, q->size, tb_mono() - q->t0, 0);
		return;
	}
	if (q->slot < 0)
		return;
	struct tb_header *h = c->h;
	if (tb_answer(c, q->slot) < 0) {
		/* the server is gone: the slot may never be answered; leave it claimed */
		if (!(q->flags & TB_REQ_UNCOUNTED))
			atomic_fetch_sub(&h->dev[q->dev].inflight, 1);
		return;
	}
	int64_t deadline = tb_take_answer(c, q);
	if (!(q->flags & TB_REQ_UNCOUNTED) && tb_mono() > deadline)
		atomic_fetch_add(&h->slow_answers, 1);
	tb_complete(c, q, deadline);
}

static inline uint64_t tb_file_id(const struct stat *st)
{
	return ((uint64_t)st->st_dev << 32) ^ (uint64_t)st->st_ino;
}

/* tb_io_fn does the real call of a timed request. */
typedef ssize_t (*tb_io_fn)(void *arg);

/* tb_timed_begin is tb_timed's part before the real call: it stamps the arrival, reads
 * the file's size and identity and queues the request in q. q->slot < 0 when the
 * request goes untimed: a read past the end, a stale fd (*stale set), a failed ring. */
static void tb_timed_begin(struct tb_client *c, int dev, int fd, uint32_t op, uint32_t flags, int64_t off,
			   int64_t size, uint64_t expect, int *stale, struct tb_req *q)
{
	int64_t t0 = tb_mono();
	q->slot = -1;
	struct stat st;
	int64_t fsize = 0;
	uint64_t file = expect;
	/* a flush needs no size, and the caller knows the file: one system call less on a
	 * request whose model time can be nothing (a DRAM SSD's flush) */
	if (!(op == TB_FLUSH && expect != 0) && fstat(fd, &st) == 0) {
		fsize = st.st_size;
		file = tb_file_id(&st);
	}
	if (expect != 0 && file != expect) {
		if (stale)
			*stale = 1;
		return;
	}
	if (op == TB_READ) {
		if (size > fsize - off)
			size = fsize - off;
		if (size <= 0)
			return;
	} else if (op == TB_WRITE) {
		/* fsize stays the size before the write: the server grows the file */
	} else {
		off = size = 0;
	}
	tb_begin(c, (uint32_t)dev, op, flags, file, off, size, fsize, t0, q);
}

/* tb_timed times one request on fd, a file of device dev, around io: a read or write
 * of size bytes at file offset off, or a flush. As the FUSE path does, a read is cut
 * to what the file holds and one past the end reaches no device; the file's size and
 * identity come from fstat. If expect is not 0 and fd is now another file (closed and
 * reused behind the caller's back), *stale is set and io runs untimed. errno is io's. */
static ssize_t tb_timed(struct tb_client *c, int dev, int fd, uint32_t op, uint32_t flags, int64_t off, int64_t size,
			uint64_t expect, int *stale, tb_io_fn io, void *arg)
{
	struct tb_req q;
	tb_timed_begin(c, dev, fd, op, flags, off, size, expect, stale, &q);
	ssize_t n = io(arg);
	int saved = errno;
	tb_end(c, &q);
	errno = saved;
	return n;
}

static inline void tb_detach(struct tb_client *c)
{
	if (c->h)
		munmap(c->h, c->size);
	c->h = NULL;
}

#endif
