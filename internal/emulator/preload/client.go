//go:build linux && cgo

package preload

/*
#cgo CFLAGS: -O2 -std=gnu11
#include <stdlib.h>
#include "client.h"

struct tb_rw { int fd; void *buf; size_t n; off_t off; };

static ssize_t tb_go_pread(void *a) { struct tb_rw *r = a; return pread(r->fd, r->buf, r->n, r->off); }
static ssize_t tb_go_pwrite(void *a) { struct tb_rw *r = a; return pwrite(r->fd, r->buf, r->n, r->off); }
static ssize_t tb_go_fdatasync(void *a) { struct tb_rw *r = a; return fdatasync(r->fd); }
static ssize_t tb_go_nothing(void *a) { return 0; }

static int tb_go_attach(struct tb_client *c, const char *path, char *err, size_t errlen) {
	return tb_attach(c, path, open, err, errlen);
}

static ssize_t tb_go_io(struct tb_client *c, int dev, int op, int flags, int fd, void *buf, size_t n, off_t off) {
	struct tb_rw r = {fd, buf, n, off};
	tb_io_fn fn = op == TB_READ ? tb_go_pread : op == TB_WRITE ? tb_go_pwrite : tb_go_fdatasync;
	if (op == TB_FLUSH && (c->h->dev[dev].flags & TB_DEV_NO_BACKING_SYNC))
		fn = tb_go_nothing;
	return tb_timed(c, dev, fd, op, flags, off, n, 0, NULL, fn, &r);
}

static void tb_go_forget(struct tb_client *c) { atomic_fetch_sub(&c->h->attached, 1); }

static const char *tb_go_failed(struct tb_client *c) {
	return atomic_load(&c->h->failed) ? c->h->msg : NULL;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

// Client is this process's side of a ring: the same C code the shim and the SQLite
// VFS run, called from Go (the server's floor probe, calibration). A Client is safe
// for concurrent use; each call blocks its OS thread until the model's deadline.
type Client struct {
	c *C.struct_tb_client
}

// Attach maps the ring at path.
func Attach(path string) (*Client, error) {
	c := (*C.struct_tb_client)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_tb_client{}))))
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var errbuf [256]C.char
	if C.tb_go_attach(c, cpath, &errbuf[0], C.size_t(len(errbuf))) != 0 {
		C.free(unsafe.Pointer(c))
		return nil, fmt.Errorf("preload ring: %s", C.GoString(&errbuf[0]))
	}
	return &Client{c: c}, nil
}

// Forget takes this client out of the ring's count of attached processes: the
// emulator's own probes are not the database's.
func (c *Client) Forget() { C.tb_go_forget(c.c) }

// Detach unmaps the ring. No call may be in flight.
func (c *Client) Detach() {
	if c.c == nil {
		return
	}
	C.tb_detach(c.c)
	C.free(unsafe.Pointer(c.c))
	c.c = nil
}

// IOFlags qualify a request.
type IOFlags struct {
	Direct bool // the file was opened with O_DIRECT
	// Uncounted: the server's own probe; answered at once, not counted.
	Uncounted bool
}

func (f IOFlags) bits() C.int {
	var b C.int
	if f.Direct {
		b |= reqDirect
	}
	if f.Uncounted {
		b |= reqUncounted
	}
	return b
}

// Pread reads len(buf) bytes at off from fd, a file of device dev, in the device's time.
func (c *Client) Pread(dev, fd int, buf []byte, off int64, fl IOFlags) (int, error) {
	return c.io(dev, C.TB_READ, fd, buf, off, fl)
}

// Pwrite writes buf at off to fd, a file of device dev, in the device's time.
func (c *Client) Pwrite(dev, fd int, buf []byte, off int64, fl IOFlags) (int, error) {
	return c.io(dev, C.TB_WRITE, fd, buf, off, fl)
}

// Fdatasync flushes fd, a file of device dev, in the device's time.
func (c *Client) Fdatasync(dev, fd int, fl IOFlags) error {
	_, err := c.io(dev, C.TB_FLUSH, fd, nil, 0, fl)
	return err
}

func (c *Client) io(dev int, op C.int, fd int, buf []byte, off int64, fl IOFlags) (int, error) {
	var p unsafe.Pointer
	if len(buf) > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	n, err := C.tb_go_io(c.c, C.int(dev), op, fl.bits(), C.int(fd), p, C.size_t(len(buf)), C.off_t(off))
	if n < 0 {
		if errors.Is(err, syscall.Errno(0)) || err == nil {
			err = syscall.EIO
		}
		return 0, err
	}
	return int(n), nil
}

// Failed is the ring's first failure, "" if none.
func (c *Client) Failed() string {
	if m := C.tb_go_failed(c.c); m != nil {
		return C.GoString(m)
	}
	return ""
}

// cLayout is the C compiler's view of ring.h, for TestLayoutMatchesC.
func cLayout() map[string]uintptr {
	var h C.struct_tb_header
	var s C.struct_tb_slot
	var q C.struct_tb_cq_cell
	var d C.struct_tb_device
	var m C.struct_tb_map_entry
	return map[string]uintptr{
		"header": unsafe.Sizeof(h), "slot": unsafe.Sizeof(s), "cq": unsafe.Sizeof(q), "device": unsafe.Sizeof(d),
		"sqHead": unsafe.Offsetof(h.sq_head), "cqTail": unsafe.Offsetof(h.cq_tail), "sleeping": unsafe.Offsetof(h.sleeping),
		"lead": unsafe.Offsetof(h.lead), "unseen": unsafe.Offsetof(h.unseen), "msg": unsafe.Offsetof(h.msg),
		"dev": unsafe.Offsetof(h.dev), "totalSize": unsafe.Offsetof(h.total_size),
		"slotFile": unsafe.Offsetof(s.file), "slotDeadline": unsafe.Offsetof(s.deadline), "slotQD": unsafe.Offsetof(s.qd),
		"cqLate": unsafe.Offsetof(q.late), "devInflight": unsafe.Offsetof(d.inflight),
		"contended": unsafe.Offsetof(h.contended), "rtConsumer": unsafe.Offsetof(h.rt_consumer),
		"mapOff": unsafe.Offsetof(h.map_off), "mapChunk": unsafe.Offsetof(h.map_chunk), "map": unsafe.Sizeof(m),
		"mapDchunk": unsafe.Offsetof(m.dchunk), "mapDev": unsafe.Offsetof(m.dev), "devResOff": unsafe.Offsetof(d.res_off),
		"devPage": unsafe.Offsetof(d.page), "devBudget": unsafe.Offsetof(d.write_budget), "cqArrive": unsafe.Offsetof(q.arrive), "cqFileSize": unsafe.Offsetof(q.file_size),
	}
}
