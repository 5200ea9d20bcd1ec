/*
 * The shared-memory ring between tierbench's emulator server (Go: ring.go, which
 * mirrors this layout field by field; TestLayoutMatchesC checks every offset) and the
 * processes whose I/O it times: the LD_PRELOAD shim (shim.c) in PostgreSQL's and
 * MariaDB's processes, and the SQLite VFS in tierbench's own.
 *
 * A client claims a free slot, fills in one request (device, file, offset, size, op,
 * arrival time on CLOCK_MONOTONIC) and queues the slot's index on the submission
 * queue. The server submits it to the device model and answers in the slot with the
 * completion deadline. The client waits until then, frees the slot and queues a
 * completion record (its latency and how late it woke) for the counters and
 * histograms, which live in the server only.
 *
 * A read that a device's page cache model holds is not asked about: the server
 * publishes where each file's chunks lie on the device (the chunk map) and which of
 * the device's pages the model holds with their data there (a bitmap per device); a
 * client whose read finds every page set does the real read and returns, and queues a
 * hit record (TB_REQ_HIT) that the server submits to the model afterwards, for its
 * recency and counters. A buffered write goes the same way when each page it covers
 * only in part is set (the model would read the others first) and the device's write
 * budget has its pages (the model would throttle it otherwise). A page the model
 * evicted between the client's look and that record is counted as such by the server.
 *
 * Both queues are bounded multi-producer queues with a sequence number per cell
 * (producers in many processes, one consumer). Futex words are in shared memory and
 * used without FUTEX_PRIVATE_FLAG.
 */
#ifndef TB_RING_H
#define TB_RING_H

#include <stdint.h>
#include <stdatomic.h>

#define TB_MAGIC 0x31474e4952425454ULL /* "TTBRING1", little-endian */
#define TB_VERSION 2
#define TB_MAX_DEVICES 16
#define TB_DIR_MAX 1024
#define TB_MSG_MAX 512

/* header flags */
#define TB_NO_SPIN 1u /* never busy-wait for a deadline: sleep (Options.NoSpin) */

/* device flags */
#define TB_DEV_NO_BACKING_SYNC 1u /* fsync/fdatasync are the model's only (Options.NoBackingSync) */

/* slot states */
#define TB_FREE 0u
#define TB_CLAIMED 1u  /* filled in and queued; waiting for the answer */
#define TB_ANSWERED 2u /* deadline is set */

/* ops: device.Op */
#define TB_READ 0u
#define TB_WRITE 1u
#define TB_FLUSH 2u

/* request flags */
#define TB_REQ_DIRECT 1u    /* the file was opened with O_DIRECT */
#define TB_REQ_UNCOUNTED 2u /* the server's own floor probe: no model, no counters */
#define TB_REQ_LATE 4u      /* completion only: the lateness of one already reported on time */
#define TB_REQ_HIT 8u       /* completion only: a read served from the page cache without asking */
#define TB_REQ_NO_HIT 16u   /* client only: ask the server even when the pages are cached */

/* chunk map entries' file word: never a file (st_dev << 32 ^ st_ino is not all ones) */
#define TB_MAP_GONE UINT64_MAX
/* how many entries a lookup probes before it gives up (the server inserts no further) */
#define TB_MAP_PROBES 64

struct tb_device {
	char dir[TB_DIR_MAX]; /* canonical directory; files under it are this device's */
	uint32_t dir_len;
	uint32_t flags;
	_Atomic int32_t inflight; /* admitted and not yet completed, over every client */
	uint32_t pad0;
	uint64_t res_off;  /* the resident-page bitmap: byte offset from the mapping's start; 0: none */
	int64_t res_pages; /* pages the bitmap covers (device offsets from 0) */
	int64_t page;      /* the page cache model's page, bytes */
	/* pages that buffered writes may still dirty without the model throttling them
	 * (its dirty limit less its dirty pages, set by the server; a client takes its
	 * pages from it or asks) */
	_Atomic int64_t write_budget;
	char pad1[16];
}; /* 1088 bytes */

/* One chunk of one file on its device, published once (file last) and never changed
 * but for a device's reset (file set to TB_MAP_GONE). */
struct tb_map_entry {
	_Atomic uint64_t file; /* 0: empty */
	int64_t chunk;         /* file offset / map_chunk */
	int64_t dchunk;        /* device offset / map_chunk */
	uint32_t dev;
	uint32_t pad0;
}; /* 32 bytes */

struct tb_slot {
	_Atomic uint32_t state;
	_Atomic uint32_t waiting; /* the client sleeps in FUTEX_WAIT on state */
	uint32_t dev;
	uint32_t op;
	uint32_t flags;
	int32_t pid;
	int32_t qd; /* the device's requests in flight, this one included */
	uint32_t pad0;
	uint64_t file;      /* st_dev << 32 ^ st_ino */
	int64_t off;        /* file offset */
	int64_t size;       /* bytes */
	int64_t file_size;  /* the file's size before the request (a write past it grows the file) */
	int64_t arrive;     /* CLOCK_MONOTONIC ns */
	int64_t deadline;   /* the answer, CLOCK_MONOTONIC ns */
	char pad1[48];
}; /* 128 bytes */

struct tb_sq_cell {
	_Atomic uint64_t seq;
	uint32_t slot;
	uint32_t pad0;
}; /* 16 bytes */

struct tb_cq_cell {
	_Atomic uint64_t seq;
	uint32_t dev;
	uint32_t op;
	uint32_t flags;
	uint32_t pad0;
	int64_t size; /* bytes the call moved (reads and writes) */
	int64_t lat;  /* arrival to return, ns */
	int64_t late; /* return minus deadline, ns (negative: early) */
	/* TB_REQ_HIT only: the read itself, as a slot carries it */
	int64_t arrive;
	uint64_t file;
	int64_t off;
	int64_t file_size;
}; /* 80 bytes */

struct tb_header {
	uint64_t magic;
	uint32_t version;
	uint32_t header_size;   /* sizeof(struct tb_header) */
	uint32_t nslots;        /* power of two; also the submission queue's cells */
	uint32_t ncq;           /* power of two: completion queue cells */
	uint32_t ndevices;
	int32_t server_pid;
	uint32_t flags;
	uint32_t max_spinners;  /* clients that may busy-wait at once */
	int64_t spin_window;    /* ns: a spinning client sleeps until this much before */
	uint64_t slots_off;     /* byte offsets from the start of the mapping */
	uint64_t sq_off;
	uint64_t cq_off;
	uint64_t total_size;
	int64_t answer_spin;    /* ns a client busy-waits for its answer before it sleeps */
	uint64_t map_off;       /* the chunk map: byte offset; 0: no device has a page cache to publish */
	uint32_t map_n;         /* entries, a power of two */
	uint32_t pad_m;
	int64_t map_chunk;      /* bytes a chunk of the layout covers */
	char pad0[16];

	_Atomic uint64_t sq_head; /* producers */
	char pad1[56];
	_Atomic uint64_t sq_tail; /* consumer */
	char pad2[56];
	_Atomic uint64_t cq_head; /* producers */
	char pad3[56];
	_Atomic uint64_t cq_tail; /* consumer */
	char pad4[56];
	_Atomic uint32_t sleeping; /* the consumer is (about to be) in FUTEX_WAIT on doorbell */
	_Atomic uint32_t doorbell;
	_Atomic uint32_t spinners;
	_Atomic uint32_t attached; /* processes that attached, ever */
	_Atomic int64_t lead;      /* ns: how late a sleeping client wakes, smoothed */
	_Atomic uint64_t full_waits; /* claims that found no free slot and waited */
	_Atomic uint64_t slow_answers; /* answers that came after their deadline */
	_Atomic uint32_t failed;   /* set once, with msg */
	_Atomic uint32_t msg_lock;
	_Atomic uint64_t unseen;   /* calls on a device's file the ring cannot time (mmap, AIO...) */
	_Atomic uint32_t contended; /* the server sees more runnable threads than CPUs: nobody spins */
	_Atomic uint32_t rt_consumer; /* 1: the consumer runs at a real-time priority, it answers at once; 2: it did, no longer */
	char msg[TB_MSG_MAX];
	char unseen_msg[TB_MSG_MAX];
	struct tb_device dev[TB_MAX_DEVICES];
};

_Static_assert(sizeof(struct tb_device) == 1088, "tb_device size");
_Static_assert(sizeof(struct tb_slot) == 128, "tb_slot size");
_Static_assert(sizeof(struct tb_sq_cell) == 16, "tb_sq_cell size");
_Static_assert(sizeof(struct tb_cq_cell) == 80, "tb_cq_cell size");
_Static_assert(sizeof(struct tb_map_entry) == 32, "tb_map_entry size");

/* tb_map_hash places a file's chunk in the chunk map (ring.go computes the same). */
static inline uint64_t tb_map_hash(uint64_t file, int64_t chunk)
{
	uint64_t x = file * 0x9e3779b97f4a7c15ULL ^ (uint64_t)chunk * 0xc2b2ae3d27d4eb4fULL;
	return x ^ (x >> 29);
}

#endif
