package sqlite

/*
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// The few SQLite functions used here, declared by their documented C signatures: the
// library itself is the one mattn/go-sqlite3 compiles in, whose header is not on the
// include path of this package.
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_mutex sqlite3_mutex;
extern int sqlite3_db_status(sqlite3*, int op, int *pCur, int *pHiwtr, int resetFlg);
extern sqlite3_mutex *sqlite3_db_mutex(sqlite3*);
extern int sqlite3_mutex_try(sqlite3_mutex*);
extern void sqlite3_mutex_leave(sqlite3_mutex*);
extern int sqlite3_set_clientdata(sqlite3*, const char*, void*, void(*)(void*));
extern int sqlite3_auto_extension(void(*)(void));
extern void *sqlite3_commit_hook(sqlite3*, int(*)(void*), void*);
extern void *sqlite3_rollback_hook(sqlite3*, void(*)(void*), void*);
extern const char *sqlite3_db_filename(sqlite3*, const char*);

// The layout of sqlite3_vfs up to version 3 (sqlite3.h); the methods this file does
// not call are kept as opaque pointers.
typedef struct tb_vfs tb_vfs;
struct tb_vfs {
	int iVersion, szOsFile, mxPathname;
	tb_vfs *pNext;
	const char *zName;
	void *pAppData;
	void *xOpen, *xDelete, *xAccess, *xFullPathname, *xDlOpen, *xDlError, *xDlSym, *xDlClose, *xRandomness;
	int (*xSleep)(tb_vfs*, int);
	void *xCurrentTime, *xGetLastError, *xCurrentTimeInt64, *xSetSystemCall, *xGetSystemCall, *xNextSystemCall;
};
extern tb_vfs *sqlite3_vfs_find(const char*);
extern int sqlite3_vfs_register(tb_vfs*, int makeDflt);

enum { TB_OK = 0, TB_CACHE_USED = 1, TB_CACHE_HIT = 7, TB_CACHE_MISS = 8, TB_CACHE_WRITE = 9, TB_CACHE_SPILL = 12 };

typedef struct {
	int64_t hits, misses, writes, spills, commits, rollbacks;
	int64_t cache_bytes, connections, unread;
} tb_counts;

// tb_conn is one open connection, or (db NULL) the final counts of the connections to
// one file that have closed.
typedef struct tb_conn {
	sqlite3 *db;
	char *file;
	tb_counts c;
	struct tb_conn *next;
} tb_conn;

static pthread_mutex_t tb_mu = PTHREAD_MUTEX_INITIALIZER;
static tb_conn *tb_conns;

// tb_take reads a connection's page cache counters and resets them, so that 32-bit
// counters never wrap; the caller holds the connection's mutex.
static void tb_take(tb_conn *e) {
	int cur, hi;
	if (sqlite3_db_status(e->db, TB_CACHE_HIT, &cur, &hi, 1) == TB_OK) e->c.hits += cur;
	if (sqlite3_db_status(e->db, TB_CACHE_MISS, &cur, &hi, 1) == TB_OK) e->c.misses += cur;
	if (sqlite3_db_status(e->db, TB_CACHE_WRITE, &cur, &hi, 1) == TB_OK) e->c.writes += cur;
	if (sqlite3_db_status(e->db, TB_CACHE_SPILL, &cur, &hi, 1) == TB_OK) e->c.spills += cur;
	if (sqlite3_db_status(e->db, TB_CACHE_USED, &cur, &hi, 0) == TB_OK) e->c.cache_bytes = cur;
}

static int tb_on_commit(void *p) {
	__atomic_add_fetch(&((tb_conn*)p)->c.commits, 1, __ATOMIC_RELAXED);
	return 0;
}

static void tb_on_rollback(void *p) {
	__atomic_add_fetch(&((tb_conn*)p)->c.rollbacks, 1, __ATOMIC_RELAXED);
}

// tb_closed runs inside sqlite3_close, which holds the connection's mutex and has not
// yet closed its pager: it takes the final counts and adds them to the file's closed
// total.
static void tb_closed(void *p) {
	tb_conn *e = p;
	pthread_mutex_lock(&tb_mu); // after the connection's mutex, as tb_read never waits for that
	tb_take(e);
	tb_conn **pp = &tb_conns, *closed = NULL;
	for (tb_conn *x = tb_conns; x; x = x->next) {
		if (x->db == NULL && strcmp(x->file, e->file) == 0) closed = x;
	}
	while (*pp != e) pp = &(*pp)->next;
	if (closed) {
		*pp = e->next;
		closed->c.hits += e->c.hits; closed->c.misses += e->c.misses;
		closed->c.writes += e->c.writes; closed->c.spills += e->c.spills;
		closed->c.commits += __atomic_load_n(&e->c.commits, __ATOMIC_RELAXED);
		closed->c.rollbacks += __atomic_load_n(&e->c.rollbacks, __ATOMIC_RELAXED);
		free(e->file);
		free(e);
	} else {
		e->db = NULL;
		e->c.cache_bytes = 0;
	}
	pthread_mutex_unlock(&tb_mu);
}

// tb_opened is an auto extension: SQLite calls it for every connection it opens.
static int tb_opened(sqlite3 *db, char **err, const void *api) {
	const char *f = sqlite3_db_filename(db, "main");
	tb_conn *e = calloc(1, sizeof *e);
	if (!e) return TB_OK;
	e->db = db;
	e->file = strdup(f ? f : "");
	if (!e->file || sqlite3_set_clientdata(db, "tierbench.stats", e, tb_closed) != TB_OK) {
		free(e->file);
		free(e);
		return TB_OK;
	}
	sqlite3_commit_hook(db, tb_on_commit, e);
	sqlite3_rollback_hook(db, tb_on_rollback, e);
	pthread_mutex_lock(&tb_mu);
	e->next = tb_conns;
	tb_conns = e;
	pthread_mutex_unlock(&tb_mu);
	return TB_OK;
}

// tb_read sums the counts of file's connections, open and closed. An open connection
// whose mutex another thread holds (a statement running) is not waited for: its counts
// so far are used and it is counted as unread.
static void tb_read(const char *file, tb_counts *out) {
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&tb_mu);
	for (tb_conn *e = tb_conns; e; e = e->next) {
		if (strcmp(e->file, file) != 0) continue;
		if (e->db) {
			out->connections++;
			sqlite3_mutex *m = sqlite3_db_mutex(e->db);
			if (m && sqlite3_mutex_try(m) == TB_OK) {
				tb_take(e);
				sqlite3_mutex_leave(m);
			} else {
				out->unread++;
			}
		}
		out->hits += e->c.hits; out->misses += e->c.misses;
		out->writes += e->c.writes; out->spills += e->c.spills;
		out->commits += __atomic_load_n(&e->c.commits, __ATOMIC_RELAXED);
		out->rollbacks += __atomic_load_n(&e->c.rollbacks, __ATOMIC_RELAXED);
		out->cache_bytes += e->c.cache_bytes;
	}
	pthread_mutex_unlock(&tb_mu);
}

// Busy waits: SQLite sleeps through its VFS's xSleep when a lock is taken (the busy
// handler that busy_timeout installs, and WAL read retries). A VFS that is the default
// one with a counting xSleep sees every such sleep of the process.
static tb_vfs tb_sleep_vfs;
static int (*tb_base_sleep)(tb_vfs*, int);
static int64_t tb_sleeps, tb_slept_ns, tb_sleeping;

static int64_t tb_now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int tb_sleep(tb_vfs *vfs, int us) {
	__atomic_add_fetch(&tb_sleeping, 1, __ATOMIC_RELAXED);
	int64_t t0 = tb_now_ns();
	int r = tb_base_sleep(vfs, us);
	__atomic_add_fetch(&tb_slept_ns, tb_now_ns() - t0, __ATOMIC_RELAXED);
	__atomic_add_fetch(&tb_sleeps, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&tb_sleeping, 1, __ATOMIC_RELAXED);
	return r;
}

static void tb_busy(int64_t *sleeps, int64_t *slept_ns, int64_t *sleeping) {
	*sleeps = __atomic_load_n(&tb_sleeps, __ATOMIC_RELAXED);
	*slept_ns = __atomic_load_n(&tb_slept_ns, __ATOMIC_RELAXED);
	*sleeping = __atomic_load_n(&tb_sleeping, __ATOMIC_RELAXED);
}

// tb_install registers the auto extension and the counting VFS: 0, or which failed
// (1 the extension, 2 the VFS).
static int tb_install(void) {
	if (sqlite3_auto_extension((void(*)(void))tb_opened) != TB_OK) return 1;
	tb_vfs *base = sqlite3_vfs_find(NULL);
	if (!base || base->iVersion < 1) return 2;
	tb_sleep_vfs = *base;
	if (tb_sleep_vfs.iVersion > 3) tb_sleep_vfs.iVersion = 3; // the fields copied
	tb_sleep_vfs.pNext = NULL;
	tb_sleep_vfs.zName = "tierbench-counting";
	tb_base_sleep = base->xSleep;
	tb_sleep_vfs.xSleep = tb_sleep;
	if (sqlite3_vfs_register(&tb_sleep_vfs, 1) != TB_OK) return 2;
	return 0;
}
*/
import "C"

import (
	"context"
	"database/sql/driver"
	"fmt"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"tierbench/internal/engine"
)

// installErr says why statistics are not counted (nil when they are). Every
// connection of the process is counted from the start: a connection opened before the
// monitor starts would otherwise be missed.
var installErr = func() error {
	switch C.tb_install() {
	case 1:
		return fmt.Errorf("sqlite: statistics: the connection counter could not be registered")
	case 2:
		return fmt.Errorf("sqlite: statistics: the counting VFS could not be registered")
	}
	return nil
}()

var sqliteStats = []engine.StatInfo{
	{Name: engine.StatCommits, Kind: engine.Counter, Unit: "transactions", Help: "write transactions committed (sqlite3_commit_hook) on the database file's connections"},
	{Name: engine.StatRollbacks, Kind: engine.Counter, Unit: "transactions", Help: "transactions rolled back (sqlite3_rollback_hook)"},
	{Name: engine.StatBufferHits, Kind: engine.Counter, Unit: "pages", Help: "page cache hits (sqlite3_db_status SQLITE_DBSTATUS_CACHE_HIT), summed over the connections"},
	{Name: engine.StatBufferMisses, Kind: engine.Counter, Unit: "pages", Help: "page cache misses (SQLITE_DBSTATUS_CACHE_MISS): pages read from the file"},
	{Name: engine.StatLockWaitSeconds, Kind: engine.Counter, Unit: "seconds", Help: "time spent sleeping for a lock (busy_timeout's handler, WAL read retries), every SQLite database of the process"},
	{Name: engine.StatLockWaits, Kind: engine.Gauge, Unit: "sessions", Help: "connections sleeping for a lock now, every SQLite database of the process"},
	{Name: "sqlite.busy_sleeps", Kind: engine.Counter, Unit: "sleeps", Help: "sleeps for a lock, every SQLite database of the process"},
	{Name: "sqlite.cache_writes", Kind: engine.Counter, Unit: "pages", Help: "dirty pages written from the page cache (SQLITE_DBSTATUS_CACHE_WRITE)"},
	{Name: "sqlite.cache_spills", Kind: engine.Counter, Unit: "pages", Help: "dirty pages written in the middle of a transaction because the cache was full (SQLITE_DBSTATUS_CACHE_SPILL)"},
	{Name: "sqlite.cache_bytes", Kind: engine.Gauge, Unit: "bytes", Help: "memory of the connections' page caches (SQLITE_DBSTATUS_CACHE_USED), as of their last reading"},
	{Name: "sqlite.connections", Kind: engine.Gauge, Unit: "connections", Help: "open connections to the database file"},
	{Name: "sqlite.connections_unread", Kind: engine.Gauge, Unit: "connections", Help: "connections busy with a statement at the reading, whose page cache counts are those of their previous reading (a reading never waits for a statement)"},
}

// sqliteStatsReader reads the counts of one database file (engine.StatsReader).
type sqliteStatsReader struct {
	file *C.char
}

// NewStatsReader is engine.StatsSampler: the counts of this engine's database file,
// named as SQLite names it.
func (e *sqliteEngine) NewStatsReader(ctx context.Context) (engine.StatsReader, error) {
	if installErr != nil {
		return nil, installErr
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: statistics: %w", err)
	}
	defer conn.Close()
	var file string
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(*sqlite3.SQLiteConn)
		if !ok {
			return driver.ErrBadConn
		}
		file = c.GetFilename("main")
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: statistics: %w", err)
	}
	// The reader lives as long as the process may read it; one small string.
	return &sqliteStatsReader{file: C.CString(file)}, nil
}

func (r *sqliteStatsReader) Catalogue() []engine.StatInfo { return sqliteStats }

func (r *sqliteStatsReader) ReadStats(context.Context) (engine.Stats, error) {
	var c C.tb_counts
	C.tb_read(r.file, &c)
	var sleeps, sleptNs, sleeping C.int64_t
	C.tb_busy(&sleeps, &sleptNs, &sleeping)
	st := engine.NewStats()
	st.Counters[engine.StatCommits] = float64(c.commits)
	st.Counters[engine.StatRollbacks] = float64(c.rollbacks)
	st.Counters[engine.StatBufferHits] = float64(c.hits)
	st.Counters[engine.StatBufferMisses] = float64(c.misses)
	st.Counters["sqlite.cache_writes"] = float64(c.writes)
	st.Counters["sqlite.cache_spills"] = float64(c.spills)
	st.Counters["sqlite.busy_sleeps"] = float64(sleeps)
	st.Counters[engine.StatLockWaitSeconds] = time.Duration(sleptNs).Seconds()
	st.Gauges[engine.StatLockWaits] = float64(sleeping)
	st.Gauges["sqlite.cache_bytes"] = float64(c.cache_bytes)
	st.Gauges["sqlite.connections"] = float64(c.connections)
	st.Gauges["sqlite.connections_unread"] = float64(c.unread)
	return st, nil
}
