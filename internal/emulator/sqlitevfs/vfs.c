/*
 * A SQLite VFS that wraps the process's default VFS (unix) and times the reads,
 * writes and syncs of files under a preload ring's device directories through the
 * ring's client code (../preload/client.h), as the LD_PRELOAD shim does for a
 * server. Locking, shared memory and everything else are the wrapped VFS's own.
 *
 * The declarations below are SQLite's public VFS interface (sqlite.org/c3ref/vfs.html,
 * io_methods.html), written out here because mattn/go-sqlite3's header is not on
 * cgo's include path; the functions come from the amalgamation it links.
 */
#include <pthread.h>
#include <stdlib.h>

#include "client.h"

typedef long long sqlite3_int64;
typedef struct sqlite3_file sqlite3_file;
typedef struct sqlite3_io_methods sqlite3_io_methods;
typedef struct sqlite3_vfs sqlite3_vfs;

struct sqlite3_file {
	const sqlite3_io_methods *pMethods;
};

struct sqlite3_io_methods {
	int iVersion;
	int (*xClose)(sqlite3_file *);
	int (*xRead)(sqlite3_file *, void *, int, sqlite3_int64);
	int (*xWrite)(sqlite3_file *, const void *, int, sqlite3_int64);
	int (*xTruncate)(sqlite3_file *, sqlite3_int64);
	int (*xSync)(sqlite3_file *, int);
	int (*xFileSize)(sqlite3_file *, sqlite3_int64 *);
	int (*xLock)(sqlite3_file *, int);
	int (*xUnlock)(sqlite3_file *, int);
	int (*xCheckReservedLock)(sqlite3_file *, int *);
	int (*xFileControl)(sqlite3_file *, int, void *);
	int (*xSectorSize)(sqlite3_file *);
	int (*xDeviceCharacteristics)(sqlite3_file *);
	int (*xShmMap)(sqlite3_file *, int, int, int, void volatile **);
	int (*xShmLock)(sqlite3_file *, int, int, int);
	void (*xShmBarrier)(sqlite3_file *);
	int (*xShmUnmap)(sqlite3_file *, int);
	int (*xFetch)(sqlite3_file *, sqlite3_int64, int, void **);
	int (*xUnfetch)(sqlite3_file *, sqlite3_int64, void *);
};

struct sqlite3_vfs {
	int iVersion;
	int szOsFile;
	int mxPathname;
	sqlite3_vfs *pNext;
	const char *zName;
	void *pAppData;
	int (*xOpen)(sqlite3_vfs *, const char *, sqlite3_file *, int, int *);
	void *rest[13]; /* xDelete .. xNextSystemCall: the wrapped VFS's, copied */
};

extern int sqlite3_initialize(void);
extern sqlite3_vfs *sqlite3_vfs_find(const char *);
extern int sqlite3_vfs_register(sqlite3_vfs *, int);

#define SQLITE_OK 0
#define SQLITE_IOERR 10
#define SQLITE_NOMEM 7
#define SQLITE_OPEN_DELETEONCLOSE 0x00000008

#define MAX_RINGS 8

/* An attached ring. refs counts its open files; a detached ring is unmapped when the
 * last one closes. */
struct attachment {
	struct tb_client c;
	int active;
	int refs;
};

static struct attachment rings[MAX_RINGS];
static pthread_mutex_t rings_mu = PTHREAD_MUTEX_INITIALIZER;
static sqlite3_vfs *inner;
static sqlite3_vfs outer;
static uint64_t temp_seq;

struct tb_file {
	sqlite3_file base;
	struct attachment *ring; /* NULL: not a device's file */
	int dev;
	uint64_t file;
	char temp_name[4096 + 2]; /* a temp file's name, which the wrapped VFS keeps */
	sqlite3_file *real;
};

#define REAL(f) (((struct tb_file *)(f))->real)

static int x_close(sqlite3_file *f)
{
	struct tb_file *p = (struct tb_file *)f;
	int rc = REAL(f)->pMethods->xClose(REAL(f));
	if (p->ring) {
		pthread_mutex_lock(&rings_mu);
		if (--p->ring->refs == 0 && !p->ring->active)
			tb_detach(&p->ring->c);
		pthread_mutex_unlock(&rings_mu);
		p->ring = NULL;
	}
	return rc;
}

/* timed runs one read, write or sync of p through the ring. */
static int timed(struct tb_file *p, uint32_t op, int64_t off, int64_t size, int (*io)(struct tb_file *, void *), void *arg)
{
	int64_t t0 = tb_mono();
	sqlite3_int64 fsize = 0;
	REAL(p)->pMethods->xFileSize(REAL(p), &fsize);
	if (op == TB_READ) {
		if (size > fsize - off)
			size = fsize - off;
		if (size <= 0)
			return io(p, arg);
	}
	struct tb_req q;
	tb_begin(&p->ring->c, (uint32_t)p->dev, op, 0, p->file, off, size, fsize, t0, &q);
	int rc = io(p, arg);
	tb_end(&p->ring->c, &q);
	return rc;
}

struct rw {
	void *buf;
	int n;
	sqlite3_int64 off;
	int flags;
};

static int io_read(struct tb_file *p, void *a)
{
	struct rw *r = a;
	return REAL(p)->pMethods->xRead(REAL(p), r->buf, r->n, r->off);
}
static int io_write(struct tb_file *p, void *a)
{
	struct rw *r = a;
	return REAL(p)->pMethods->xWrite(REAL(p), r->buf, r->n, r->off);
}
static int io_sync(struct tb_file *p, void *a)
{
	struct rw *r = a;
	if (p->ring->c.h->dev[p->dev].flags & TB_DEV_NO_BACKING_SYNC)
		return SQLITE_OK;
	return REAL(p)->pMethods->xSync(REAL(p), r->flags);
}

static int x_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	struct tb_file *p = (struct tb_file *)f;
	struct rw r = {buf, n, off, 0};
	if (!p->ring)
		return io_read(p, &r);
	return timed(p, TB_READ, off, n, io_read, &r);
}

static int x_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	struct tb_file *p = (struct tb_file *)f;
	struct rw r = {(void *)buf, n, off, 0};
	if (!p->ring)
		return io_write(p, &r);
	return timed(p, TB_WRITE, off, n, io_write, &r);
}

static int x_sync(sqlite3_file *f, int flags)
{
	struct tb_file *p = (struct tb_file *)f;
	struct rw r = {NULL, 0, 0, flags};
	if (!p->ring)
		return REAL(f)->pMethods->xSync(REAL(f), flags);
	return timed(p, TB_FLUSH, 0, 0, io_sync, &r);
}

static int x_truncate(sqlite3_file *f, sqlite3_int64 n) { return REAL(f)->pMethods->xTruncate(REAL(f), n); }
static int x_file_size(sqlite3_file *f, sqlite3_int64 *n) { return REAL(f)->pMethods->xFileSize(REAL(f), n); }
static int x_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int x_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int x_check_reserved(sqlite3_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int x_file_control(sqlite3_file *f, int op, void *a) { return REAL(f)->pMethods->xFileControl(REAL(f), op, a); }
static int x_sector_size(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int x_device_chars(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int x_shm_map(sqlite3_file *f, int pg, int sz, int ext, void volatile **pp)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, ext, pp);
}
static int x_shm_lock(sqlite3_file *f, int off, int n, int fl) { return REAL(f)->pMethods->xShmLock(REAL(f), off, n, fl); }
static void x_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int x_shm_unmap(sqlite3_file *f, int del) { return REAL(f)->pMethods->xShmUnmap(REAL(f), del); }

/* A device's file is never read through a memory map, which no model would see:
 * SQLite then reads it with xRead (placement sets mmap_size=0 as well). */
static int x_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **pp)
{
	struct tb_file *p = (struct tb_file *)f;
	if (p->ring) {
		*pp = NULL;
		return SQLITE_OK;
	}
	return REAL(f)->pMethods->xFetch(REAL(f), off, n, pp);
}
static int x_unfetch(sqlite3_file *f, sqlite3_int64 off, void *ptr)
{
	struct tb_file *p = (struct tb_file *)f;
	if (p->ring)
		return SQLITE_OK;
	return REAL(f)->pMethods->xUnfetch(REAL(f), off, ptr);
}

#define METHODS(v)                                                                                                     \
	{v,                                                                                                            \
	 x_close,                                                                                                      \
	 x_read,                                                                                                       \
	 x_write,                                                                                                      \
	 x_truncate,                                                                                                   \
	 x_sync,                                                                                                       \
	 x_file_size,                                                                                                  \
	 x_lock,                                                                                                       \
	 x_unlock,                                                                                                     \
	 x_check_reserved,                                                                                             \
	 x_file_control,                                                                                               \
	 x_sector_size,                                                                                                \
	 x_device_chars,                                                                                               \
	 x_shm_map,                                                                                                    \
	 x_shm_lock,                                                                                                   \
	 x_shm_barrier,                                                                                                \
	 x_shm_unmap,                                                                                                  \
	 x_fetch,                                                                                                      \
	 x_unfetch}
static const sqlite3_io_methods methods[3] = {METHODS(1), METHODS(2), METHODS(3)};

/* device_of finds the attached ring and device whose directory holds path. */
static struct attachment *device_of(const char *path, int *dev)
{
	char dir[4096], canon[4096];
	const char *slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) >= sizeof dir)
		return NULL;
	memcpy(dir, path, slash - path);
	dir[slash - path] = 0;
	if (!realpath(dir[0] ? dir : "/", canon))
		return NULL;
	size_t n = strlen(canon);
	if (n + strlen(slash) >= sizeof canon)
		return NULL;
	strcat(canon, slash);
	for (int i = 0; i < MAX_RINGS; i++) {
		if (!rings[i].active)
			continue;
		int d = tb_device_of(&rings[i].c, canon);
		if (d >= 0) {
			*dev = d;
			return &rings[i];
		}
	}
	return NULL;
}

static int x_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	(void)vfs;
	struct tb_file *p = (struct tb_file *)f;
	memset(p, 0, sizeof *p);
	p->real = (sqlite3_file *)(p + 1);
	const char *path = name;
	int dev = -1;
	struct attachment *a = NULL;
	pthread_mutex_lock(&rings_mu);
	if (name) {
		a = device_of(name, &dev);
	} else if (flags & SQLITE_OPEN_DELETEONCLOSE) {
		/* A temp file: the wrapped VFS would pick its name unseen; when the temp
		 * directory (SQLITE_TMPDIR) is a device's, name it there, deleted on open
		 * as the wrapped VFS deletes its own. The name ends in two NULs, as
		 * SQLite's own names do. */
		const char *tmp = getenv("SQLITE_TMPDIR");
		if (tmp && *tmp) {
			snprintf(p->temp_name, sizeof p->temp_name - 1, "%s/etilqs_tierbench_%d_%llu", tmp, (int)getpid(),
				 (unsigned long long)++temp_seq);
			a = device_of(p->temp_name, &dev);
			if (a) {
				path = p->temp_name;
				p->temp_name[strlen(p->temp_name) + 1] = 0;
			}
		}
	}
	if (a)
		a->refs++;
	pthread_mutex_unlock(&rings_mu);
	int rc = inner->xOpen(inner, path, p->real, flags, out);
	if (rc != SQLITE_OK || !p->real->pMethods) {
		if (a) {
			pthread_mutex_lock(&rings_mu);
			if (--a->refs == 0 && !a->active)
				tb_detach(&a->c);
			pthread_mutex_unlock(&rings_mu);
		}
		p->base.pMethods = NULL;
		return rc;
	}
	if (a) {
		struct stat st;
		p->ring = a;
		p->dev = dev;
		if (path == name && stat(path, &st) == 0)
			p->file = tb_file_id(&st);
		else /* deleted on open: an identity of its own for the layout */
			p->file = (1ULL << 63) | ((uint64_t)getpid() << 24) | temp_seq;
	}
	int v = p->real->pMethods->iVersion;
	p->base.pMethods = &methods[(v < 1 ? 1 : v > 3 ? 3 : v) - 1];
	return SQLITE_OK;
}

/* tb_vfs_register makes the wrapper SQLite's default VFS, once. */
int tb_vfs_register(void)
{
	static int done;
	if (done)
		return SQLITE_OK;
	int rc = sqlite3_initialize();
	if (rc != SQLITE_OK)
		return rc;
	inner = sqlite3_vfs_find(NULL);
	if (!inner)
		return SQLITE_IOERR;
	memcpy(&outer, inner, sizeof outer);
	outer.zName = "tierbench";
	outer.pNext = NULL;
	outer.szOsFile = (int)((sizeof(struct tb_file) + 15) / 16 * 16) + inner->szOsFile;
	outer.xOpen = x_open;
	rc = sqlite3_vfs_register(&outer, 1);
	if (rc == SQLITE_OK)
		done = 1;
	return rc;
}

/* tb_vfs_attach maps the ring at path for files opened from now on; its slot, or -1
 * with a reason in err. */
int tb_vfs_attach(const char *path, char *err, size_t errlen)
{
	pthread_mutex_lock(&rings_mu);
	int slot = -1;
	for (int i = 0; i < MAX_RINGS; i++)
		if (!rings[i].active && rings[i].refs == 0) {
			slot = i;
			break;
		}
	if (slot < 0) {
		snprintf(err, errlen, "%d preload rings are attached already", MAX_RINGS);
		pthread_mutex_unlock(&rings_mu);
		return -1;
	}
	if (tb_attach(&rings[slot].c, path, open, err, errlen) != 0) {
		pthread_mutex_unlock(&rings_mu);
		return -1;
	}
	rings[slot].active = 1;
	pthread_mutex_unlock(&rings_mu);
	return slot;
}

/* tb_vfs_detach stops matching new files against slot's ring; its files still open
 * keep it mapped until they close. */
void tb_vfs_detach(int slot)
{
	pthread_mutex_lock(&rings_mu);
	if (slot >= 0 && slot < MAX_RINGS && rings[slot].active) {
		rings[slot].active = 0;
		if (rings[slot].refs == 0)
			tb_detach(&rings[slot].c);
	}
	pthread_mutex_unlock(&rings_mu);
}
