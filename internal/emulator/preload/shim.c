//go:build ignore

/*
 * tierbench's LD_PRELOAD shim: loaded into a managed PostgreSQL or MariaDB server (and
 * its setup programs), it times the server's I/O on the emulated devices' files
 * through the ring (ring.h, client.h). Built by package preload (Shim) with the
 * system's C compiler; not part of the Go build (the build tag above).
 *
 * TIERBENCH_RING names the ring. Every file the process opens is checked once, after
 * the real open: a regular file whose canonical path (from /proc/self/fd) is under a
 * device's directory is that device's, and its descriptor is remembered. Reads,
 * writes and flushes on remembered descriptors are timed; everything else goes
 * straight to libc, after one table lookup.
 *
 * What the shim cannot time it reports through the ring, which fails the run: an
 * mmap of a device's file, native AIO on one. io_uring and libaio's io_setup are
 * refused (the engines fall back to synchronous I/O). copy_file_range and sendfile from a device's file are
 * refused with EXDEV/EINVAL, as a FUSE mount does, so callers fall back to reads and
 * writes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/uio.h>

#include "client.h"

#ifndef O_TMPFILE
#define O_TMPFILE 020200000
#endif

static struct tb_client ring;
static int ring_ok;

struct fd_entry {
	uint64_t file;	   /* tb_file_id at open */
	int16_t dev;	   /* device + 1; 0: not a device's file */
	uint8_t direct;	   /* opened with O_DIRECT */
	uint8_t append;	   /* opened with O_APPEND */
	uint32_t pad;
};
static struct fd_entry *fds;
static int nfds;

/* the real functions */
static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_close)(int);
static int (*real_close_range)(unsigned, unsigned, int);
static int (*real_dup)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);
static int (*real_fcntl)(int, int, ...);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_readv)(int, const struct iovec *, int);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_preadv)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*real_preadv2)(int, const struct iovec *, int, off_t, int);
static ssize_t (*real_pwritev2)(int, const struct iovec *, int, off_t, int);
static ssize_t (*real_read_chk)(int, void *, size_t, size_t);
static ssize_t (*real_pread_chk)(int, void *, size_t, off_t, size_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static off_t (*real_lseek)(int, off_t, int);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static ssize_t (*real_copy_file_range)(int, off_t *, int, off_t *, size_t, unsigned);
static ssize_t (*real_sendfile)(int, int, off_t *, size_t);
static int (*real_io_submit)(void *, long, void **);
static long (*real_syscall)(long, ...);

#define REAL(name, sym)                                                                                                \
	do {                                                                                                           \
		if (!real_##name)                                                                                      \
			*(void **)&real_##name = dlsym(RTLD_NEXT, sym);                                               \
	} while (0)

static void note(const char *fmt, ...)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "tierbench preload shim (pid %d): ", (int)getpid());
	va_list ap;
	va_start(ap, fmt);
	if (n > 0 && n < (int)sizeof buf)
		n += vsnprintf(buf + n, sizeof buf - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof buf)
		n = sizeof buf - 1;
	buf[n++] = '\n';
	REAL(write, "write");
	if (real_write)
		real_write(2, buf, n);
}

static struct fd_entry *entry(int fd)
{
	if (!ring_ok || fd < 0 || fd >= nfds)
		return NULL;
	struct fd_entry *e = &fds[fd];
	return e->dev ? e : NULL;
}

static void forget(int fd)
{
	if (fds && fd >= 0 && fd < nfds)
		fds[fd].dev = 0;
}

/* track remembers fd if it is a regular file under a device's directory. */
static void track(int fd, int flags)
{
	if (!ring_ok || fd < 0 || fd >= nfds || (flags & O_PATH))
		return;
	fds[fd].dev = 0;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	char link[64], path[TB_DIR_MAX + 64];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n < 0) {
		tb_fail(&ring, "cannot resolve the path of a file it opened (readlink %s: %s): is /proc mounted?", link,
			strerror(errno));
		return;
	}
	path[n] = 0;
	int dev = tb_device_of(&ring, path);
	if (dev < 0)
		return;
	fds[fd].file = tb_file_id(&st);
	fds[fd].direct = (flags & O_DIRECT) != 0;
	fds[fd].append = (flags & O_APPEND) != 0;
	fds[fd].dev = (int16_t)(dev + 1);
}

/* O_DIRECT is for the model: a device's file is used through the host's page cache,
 * as a FUSE mount opens its backing file without it, so that the host's own disk
 * does not show through (a direct write to it takes 0.1-30 ms here). A file system
 * that refuses O_DIRECT (tmpfs) is retried without it for a device's file; any other
 * file keeps the refusal. */
static int open_direct_retry(int fd, int dirfd, const char *path, int flags, mode_t mode)
{
	if (fd >= 0 || errno != EINVAL || !(flags & O_DIRECT) || !ring_ok)
		return fd;
	int again = real_openat(dirfd, path, flags & ~O_DIRECT, mode);
	if (again < 0) {
		errno = EINVAL;
		return -1;
	}
	track(again, flags);
	if (!entry(again)) {
		real_close(again);
		errno = EINVAL;
		return -1;
	}
	return again;
}

static int do_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	REAL(openat, "openat");
	REAL(close, "close");
	int fd = real_openat(dirfd, path, flags, mode);
	if (fd < 0)
		return open_direct_retry(fd, dirfd, path, flags, mode);
	track(fd, flags);
	if ((flags & O_DIRECT) && entry(fd)) {
		REAL(fcntl, "fcntl");
		int fl = real_fcntl(fd, F_GETFL);
		if (fl >= 0)
			real_fcntl(fd, F_SETFL, fl & ~O_DIRECT);
	}
	return fd;
}

static mode_t mode_arg(int flags, va_list ap)
{
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		return (mode_t)va_arg(ap, int);
	return 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(AT_FDCWD, path, flags, mode);
}
int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(dirfd, path, flags, mode);
}
int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

int __open_2(const char *path, int flags) { return do_openat(AT_FDCWD, path, flags, 0); }
int __open64_2(const char *path, int flags) __attribute__((alias("__open_2")));
int __openat_2(int dirfd, const char *path, int flags) { return do_openat(dirfd, path, flags, 0); }
int __openat64_2(int dirfd, const char *path, int flags) __attribute__((alias("__openat_2")));

int creat(const char *path, mode_t mode) { return do_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
int creat64(const char *path, mode_t mode) __attribute__((alias("creat")));

int close(int fd)
{
	REAL(close, "close");
	forget(fd);
	return real_close(fd);
}

int close_range(unsigned first, unsigned last, int flags)
{
	REAL(close_range, "close_range");
	if (!(flags & 4 /* CLOSE_RANGE_CLOEXEC */) && fds)
		for (unsigned fd = first; fd <= last && fd < (unsigned)nfds; fd++)
			fds[fd].dev = 0;
	if (!real_close_range) {
		errno = ENOSYS;
		return -1;
	}
	return real_close_range(first, last, flags);
}

static void copy_entry(int from, int to)
{
	if (to < 0 || to >= nfds || !fds)
		return;
	struct fd_entry *e = entry(from);
	if (e)
		fds[to] = *e;
	else
		fds[to].dev = 0;
}

int dup(int fd)
{
	REAL(dup, "dup");
	int r = real_dup(fd);
	if (r >= 0)
		copy_entry(fd, r);
	return r;
}

int dup2(int fd, int to)
{
	REAL(dup2, "dup2");
	int r = real_dup2(fd, to);
	if (r >= 0 && r != fd)
		copy_entry(fd, r);
	return r;
}

int dup3(int fd, int to, int flags)
{
	REAL(dup3, "dup3");
	int r = real_dup3(fd, to, flags);
	if (r >= 0)
		copy_entry(fd, r);
	return r;
}

int fcntl(int fd, int cmd, ...)
{
	REAL(fcntl, "fcntl");
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	struct fd_entry *e = entry(fd);
	if (e && cmd == F_SETFL) { /* O_DIRECT is the model's, not the backing file's */
		e->direct = ((long)arg & O_DIRECT) != 0;
		arg = (void *)((long)arg & ~(long)O_DIRECT);
	}
	int r = real_fcntl(fd, cmd, arg);
	if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		copy_entry(fd, r);
	if (r >= 0 && cmd == F_GETFL && e && e->direct)
		r |= O_DIRECT;
	return r;
}
int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));

/* One call's arguments, for the io functions tb_timed runs. */
struct call {
	int fd;
	void *buf;
	size_t n;
	off_t off;
	const struct iovec *iov;
	int iovcnt;
	int flags;
	size_t buflen;
};

static ssize_t io_read(void *a) { struct call *c = a; return real_read(c->fd, c->buf, c->n); }
static ssize_t io_write(void *a) { struct call *c = a; return real_write(c->fd, c->buf, c->n); }
static ssize_t io_pread(void *a) { struct call *c = a; return real_pread(c->fd, c->buf, c->n, c->off); }
static ssize_t io_pwrite(void *a) { struct call *c = a; return real_pwrite(c->fd, c->buf, c->n, c->off); }
static ssize_t io_readv(void *a) { struct call *c = a; return real_readv(c->fd, c->iov, c->iovcnt); }
static ssize_t io_writev(void *a) { struct call *c = a; return real_writev(c->fd, c->iov, c->iovcnt); }
static ssize_t io_preadv(void *a) { struct call *c = a; return real_preadv(c->fd, c->iov, c->iovcnt, c->off); }
static ssize_t io_pwritev(void *a) { struct call *c = a; return real_pwritev(c->fd, c->iov, c->iovcnt, c->off); }
static ssize_t io_preadv2(void *a) { struct call *c = a; return real_preadv2(c->fd, c->iov, c->iovcnt, c->off, c->flags); }
static ssize_t io_pwritev2(void *a) { struct call *c = a; return real_pwritev2(c->fd, c->iov, c->iovcnt, c->off, c->flags); }
static ssize_t io_read_chk(void *a) { struct call *c = a; return real_read_chk(c->fd, c->buf, c->n, c->buflen); }
static ssize_t io_pread_chk(void *a) { struct call *c = a; return real_pread_chk(c->fd, c->buf, c->n, c->off, c->buflen); }
static ssize_t io_fsync(void *a) { struct call *c = a; return real_fsync(c->fd); }
static ssize_t io_fdatasync(void *a) { struct call *c = a; return real_fdatasync(c->fd); }
static ssize_t io_nothing(void *a) { (void)a; return 0; }

/* timed runs io as a timed request of e's device; a descriptor found reused for
 * another file is forgotten and io runs untimed. */
static ssize_t timed(struct fd_entry *e, struct call *c, uint32_t op, int64_t off, int64_t size, tb_io_fn io)
{
	int stale = 0;
	ssize_t n = tb_timed(&ring, e->dev - 1, c->fd, op, e->direct ? TB_REQ_DIRECT : 0, off, size, e->file, &stale, io, c);
	if (stale)
		e->dev = 0;
	return n;
}

/* current returns where read/write on fd happens: the file offset, or for an
 * O_APPEND write the end of the file. */
static off_t current(int fd, struct fd_entry *e, int writing)
{
	REAL(lseek, "lseek");
	if (writing && e->append) {
		struct stat st;
		return fstat(fd, &st) == 0 ? st.st_size : 0;
	}
	off_t o = real_lseek(fd, 0, SEEK_CUR);
	return o < 0 ? 0 : o;
}

static int64_t iov_size(const struct iovec *iov, int n)
{
	int64_t s = 0;
	for (int i = 0; i < n; i++)
		s += (int64_t)iov[i].iov_len;
	return s;
}

ssize_t read(int fd, void *buf, size_t n)
{
	REAL(read, "read");
	struct fd_entry *e = entry(fd);
	if (!e)
		return real_read(fd, buf, n);
	struct call c = {.fd = fd, .buf = buf, .n = n};
	return timed(e, &c, TB_READ, current(fd, e, 0), (int64_t)n, io_read);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	REAL(write, "write");
	struct fd_entry *e = entry(fd);
	if (!e)
		return real_write(fd, buf, n);
	struct call c = {.fd = fd, .buf = (void *)buf, .n = n};
	return timed(e, &c, TB_WRITE, current(fd, e, 1), (int64_t)n, io_write);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	REAL(pread, "pread");
	struct fd_entry *e = entry(fd);
	if (!e)
		return real_pread(fd, buf, n, off);
	struct call c = {.fd = fd, .buf = buf, .n = n, .off = off};
	return timed(e, &c, TB_READ, off, (int64_t)n, io_pread);
}
ssize_t pread64(int fd, void *buf, size_t n, off_t off) __attribute__((alias("pread")));

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	REAL(pwrite, "pwrite");
	struct fd_entry *e = entry(fd);
	if (!e)
		return real_pwrite(fd, buf, n, off);
	struct call c = {.fd = fd, .buf = (void *)buf, .n = n, .off = off};
	return timed(e, &c, TB_WRITE, off, (int64_t)n, io_pwrite);
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) __attribute__((alias("pwrite")));

ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	REAL(readv, "readv");
	struct fd_entry *e = entry(fd);
	if (!e)
		return real_readv(fd, iov, cnt);
	struct call c = {.fd = fd, .iov = iov, .iovcnt = cnt};
	return timed(e, &c, TB_READ, current(fd, e, 0), iov_size(iov, cnt), io_readv);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	REAL(writev, "writev");
	struct fd_entry *e = entry(fd);
	if (!e)
		return real_writev(fd, iov, cnt);
	struct call c = {.fd = fd, .iov = iov, .iovcnt = cnt};
	return timed(e, &c, TB_WRITE, current(fd, e, 1), iov_size(iov, cnt), io_writev);
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	REAL(preadv, "preadv");
	struct fd_entry *e = entry(fd);
	if (!e)
		return real_preadv(fd, iov, cnt, off);
	struct call c = {.fd = fd, .iov = iov, .iovcnt = cnt, .off = off};
	return timed(e, &c, TB_READ, off, iov_size(iov, cnt), io_preadv);
}
ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off_t off) __attribute__((alias("preadv")));

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	REAL(pwritev, "pwritev");
	struct fd_entry *e = entry(fd);
	if (!e)
		return real_pwritev(fd, iov, cnt, off);
	struct call c = {.fd = fd, .iov = iov, .iovcnt = cnt, .off = off};
	return timed(e, &c, TB_WRITE, off, iov_size(iov, cnt), io_pwritev);
}
ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off) __attribute__((alias("pwritev")));

ssize_t preadv2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	REAL(preadv2, "preadv2");
	struct fd_entry *e = entry(fd);
	if (!e)
		return real_preadv2(fd, iov, cnt, off, flags);
	struct call c = {.fd = fd, .iov = iov, .iovcnt = cnt, .off = off, .flags = flags};
	return timed(e, &c, TB_READ, off == -1 ? current(fd, e, 0) : off, iov_size(iov, cnt), io_preadv2);
}
ssize_t preadv64v2(int fd, const struct iovec *iov, int cnt, off_t off, int flags) __attribute__((alias("preadv2")));

ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
	REAL(pwritev2, "pwritev2");
	struct fd_entry *e = entry(fd);
	if (!e)
		return real_pwritev2(fd, iov, cnt, off, flags);
	struct call c = {.fd = fd, .iov = iov, .iovcnt = cnt, .off = off, .flags = flags};
	return timed(e, &c, TB_WRITE, off == -1 ? current(fd, e, 1) : off, iov_size(iov, cnt), io_pwritev2);
}
ssize_t pwritev64v2(int fd, const struct iovec *iov, int cnt, off_t off, int flags) __attribute__((alias("pwritev2")));

/* _FORTIFY_SOURCE builds (Debian's servers) call these for reads into buffers of
 * known size. */
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	REAL(read_chk, "__read_chk");
	struct fd_entry *e = entry(fd);
	if (!e)
		return real_read_chk(fd, buf, n, buflen);
	struct call c = {.fd = fd, .buf = buf, .n = n, .buflen = buflen};
	return timed(e, &c, TB_READ, current(fd, e, 0), (int64_t)n, io_read_chk);
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	REAL(pread_chk, "__pread_chk");
	struct fd_entry *e = entry(fd);
	if (!e)
		return real_pread_chk(fd, buf, n, off, buflen);
	struct call c = {.fd = fd, .buf = buf, .n = n, .off = off, .buflen = buflen};
	return timed(e, &c, TB_READ, off, (int64_t)n, io_pread_chk);
}
ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t off, size_t buflen) __attribute__((alias("__pread_chk")));

static int flush(int fd, tb_io_fn io)
{
	struct fd_entry *e = entry(fd);
	struct call c = {.fd = fd};
	if (!e)
		return (int)io(&c);
	if (ring.h->dev[e->dev - 1].flags & TB_DEV_NO_BACKING_SYNC)
		io = io_nothing;
	return (int)timed(e, &c, TB_FLUSH, 0, 0, io);
}

int fsync(int fd)
{
	REAL(fsync, "fsync");
	return flush(fd, io_fsync);
}

int fdatasync(int fd)
{
	REAL(fdatasync, "fdatasync");
	return flush(fd, io_fdatasync);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	REAL(mmap, "mmap");
	void *m = real_mmap(addr, len, prot, flags, fd, off);
	/* a mapping that failed moves no data (MariaDB tries MAP_SYNC on its redo log
	 * first, for persistent memory, and falls back to writes) */
	if (m != MAP_FAILED && !(flags & MAP_ANONYMOUS) && entry(fd) && (prot & (PROT_READ | PROT_WRITE))) {
		char link[64], what[TB_MSG_MAX - 64] = "mmap of a device's file ";
		size_t n = strlen(what);
		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		ssize_t l = readlink(link, what + n, sizeof what - n - 1);
		what[l > 0 ? n + (size_t)l : n] = 0;
		tb_unseen(&ring, what);
	}
	return m;
}
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) __attribute__((alias("mmap")));

ssize_t copy_file_range(int in, off_t *off_in, int out, off_t *off_out, size_t len, unsigned flags)
{
	REAL(copy_file_range, "copy_file_range");
	if (entry(in) || entry(out)) {
		errno = EXDEV; /* callers fall back to reads and writes, which are timed */
		return -1;
	}
	return real_copy_file_range(in, off_in, out, off_out, len, flags);
}

ssize_t sendfile(int out, int in, off_t *off, size_t count)
{
	REAL(sendfile, "sendfile");
	if (entry(in) || entry(out)) {
		errno = EINVAL; /* callers fall back to reads and writes, which are timed */
		return -1;
	}
	return real_sendfile(out, in, off, count);
}
ssize_t sendfile64(int out, int in, off_t *off, size_t count) __attribute__((alias("sendfile")));

/* libaio: the request's descriptor is its aio_fildes (struct iocb, offset 20). */
int io_submit(void *ctx, long nr, void **iocbs)
{
	REAL(io_submit, "io_submit");
	for (long i = 0; i < nr && iocbs; i++) {
		int fd = *(uint32_t *)((char *)iocbs[i] + 20);
		if (entry(fd)) {
			tb_unseen(&ring, "native AIO (io_submit) on a device's file: set innodb_use_native_aio=0");
			break;
		}
	}
	if (!real_io_submit)
		return -ENOSYS;
	return real_io_submit(ctx, nr, iocbs);
}

static int refuse_async(const char *what)
{
	static int told;
	if (ring_ok && !told) {
		told = 1;
		note("refused %s: the emulator times synchronous I/O; the server falls back to it", what);
	}
	return -ENOSYS;
}

/* libaio's io_setup returns -errno: InnoDB then uses its simulated AIO (pread and
 * pwrite in its I/O threads). MariaDB's bootstrap runs without the server's
 * innodb_use_native_aio=0, so this is what keeps its I/O in view. */
int io_setup(unsigned nr, void **ctx)
{
	(void)nr, (void)ctx;
	return refuse_async("native AIO (io_setup)");
}

int io_uring_queue_init(unsigned entries, void *ring_, unsigned flags)
{
	(void)entries, (void)ring_, (void)flags;
	return refuse_async("io_uring");
}

int io_uring_queue_init_params(unsigned entries, void *ring_, void *p)
{
	(void)entries, (void)ring_, (void)p;
	return refuse_async("io_uring");
}

long syscall(long number, ...)
{
	REAL(syscall, "syscall");
	va_list ap;
	va_start(ap, number);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
#ifdef SYS_io_uring_setup
	if (number == SYS_io_uring_setup && ring_ok) {
		errno = -refuse_async("io_uring");
		return -1;
	}
#endif
	return real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* adopt tracks the descriptors a process inherited open across exec. */
static void adopt(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return;
	struct dirent *de;
	int self = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		int fd = atoi(de->d_name);
		if (de->d_name[0] == '.' || fd == self)
			continue;
		int fl = real_fcntl(fd, F_GETFL, 0);
		if (fl >= 0)
			track(fd, fl);
	}
	closedir(d);
}

__attribute__((constructor)) static void shim_init(void)
{
	const char *path = getenv("TIERBENCH_RING");
	if (!path || !*path)
		return;
	REAL(open, "open");
	REAL(openat, "openat");
	REAL(close, "close");
	REAL(fcntl, "fcntl");
	REAL(read, "read");
	REAL(write, "write");
	REAL(pread, "pread");
	REAL(pwrite, "pwrite");
	REAL(lseek, "lseek");
	REAL(fsync, "fsync");
	REAL(fdatasync, "fdatasync");
	struct rlimit rl;
	nfds = 65536;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY && rl.rlim_max > (rlim_t)nfds)
		nfds = rl.rlim_max > (1 << 20) ? (1 << 20) : (int)rl.rlim_max;
	void *m = mmap(NULL, (size_t)nfds * sizeof(struct fd_entry), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (m == MAP_FAILED) {
		note("cannot map its descriptor table: %s; I/O is not timed", strerror(errno));
		return;
	}
	fds = m;
	char err[256];
	if (tb_attach(&ring, path, real_open, err, sizeof err) != 0) {
		note("%s; I/O is not timed", err);
		return;
	}
	ring_ok = 1;
	adopt();
}
