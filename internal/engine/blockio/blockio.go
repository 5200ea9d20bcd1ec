// Package blockio turns a dialed socket into a connection whose reads and writes block
// in the kernel instead of going through Go's network poller.
//
// A virtual user that sends a statement and waits for its answer does, through the
// poller, a write, a read that fails with EAGAIN, a park, an epoll_wait in whichever
// thread looks for work, a wake-up and the read again; with a blocking socket it does a
// write and a read. On a machine where client and server share a few cores, that
// difference is CPU the server does not get (docs/oltp.md, "Harness overhead"). The
// price is one OS thread per connection while it waits, so engines use it only for runs
// with few sessions (engine.Config.ThreadSessions), and while such connections are open
// the process keeps one more GOMAXPROCS than there are of them: a goroutine that
// returns from poll(2) then finds a free P at once instead of waiting for one that the
// runtime took back from a thread asleep in the kernel.
package blockio

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Conn is a net.Conn over a socket that waits for data in poll(2) rather than in the
// network poller. Deadlines end the connection (see SetDeadline). It deliberately does
// not implement syscall.Conn: go-sql-driver probes
// a pooled connection with a raw read of its own that would block on this descriptor.
type Conn struct {
	f             *os.File // owns the descriptor: it is closed after the last reader leaves
	raw           syscall.RawConn
	local, remote net.Addr
	shut          sync.Once
	// The reader's and the writer's arguments and results, so that the functions
	// handed to raw are bound once (os serialises readers, and writers, of a file).
	rb, wb     []byte
	rn, wn     int
	rerr, werr error
	readFn     func(uintptr) bool
	writeFn    func(uintptr) bool
	rfds, wfds [1]unix.PollFd
	yielded    time.Time // when the reader last gave the scheduler a turn (see yieldEvery)
	// Deadlines: a timer each, which shuts the socket down when it fires.
	dl             sync.Mutex
	rtimer, wtimer *time.Timer
	expired        atomic.Bool
}

// Dial connects like net.Dialer.DialContext and returns a Conn: a dial function for
// drivers (go-sql-driver's Config.DialFunc, pgx's ConnConfig.DialFunc).
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return Wrap(c)
}

// Wrap replaces c, a *net.TCPConn or *net.UnixConn, by a Conn on the same socket; c is
// closed either way when Wrap returns an error.
func Wrap(c net.Conn) (*Conn, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("blockio: %T is not a socket", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("blockio: %w", err)
	}
	fd := -1
	var dupErr error
	if err := raw.Control(func(s uintptr) {
		fd, dupErr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		dupErr = err
	}
	local, remote := c.LocalAddr(), c.RemoteAddr()
	// The poller forgets its copy of the descriptor; the socket stays open through fd.
	c.Close()
	if dupErr != nil {
		return nil, fmt.Errorf("blockio: dup: %w", dupErr)
	}
	// O_NONBLOCK belongs to the open socket, which only fd refers to now. Cleared, os
	// keeps the file away from the poller; every call below says MSG_DONTWAIT itself.
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("blockio: %w", err)
	}
	f := os.NewFile(uintptr(fd), "blockio")
	b := &Conn{f: f, local: local, remote: remote}
	if b.raw, err = f.SyscallConn(); err != nil {
		f.Close()
		return nil, fmt.Errorf("blockio: %w", err)
	}
	b.readFn, b.writeFn = b.read, b.write
	track(+1)
	b.rfds[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	b.wfds[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLOUT}
	return b, nil
}

func (c *Conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if c.expired.Load() {
		return 0, c.opError("read", os.ErrDeadlineExceeded)
	}
	c.rb = b
	if err := c.raw.Read(c.readFn); err != nil {
		return 0, err
	}
	n, err := c.rn, c.rerr
	c.rb, c.rerr = nil, nil
	if (err != nil || n == 0) && c.expired.Load() {
		err = os.ErrDeadlineExceeded
	}
	if err != nil {
		return 0, c.opError("read", err)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// opError is err as the net package reports a failed call on this connection.
func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.local.Network(), Source: c.local, Addr: c.remote, Err: err}
}

// read receives without waiting and, when nothing is there, waits in poll(2) for
// POLLIN only. A thread blocked in read(2) instead is also woken each time the peer
// consumes what it sent (the socket's write-space wake-up), and sleeps again: two
// context switches a round trip instead of one.
func (c *Conn) read(fd uintptr) bool {
	for {
		n, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&c.rb[0])), uintptr(len(c.rb)), unix.MSG_DONTWAIT, 0, 0)
		switch e {
		case 0:
			c.rn, c.rerr = int(n), nil
			return true
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if now := time.Now(); now.Sub(c.yielded) >= yieldEvery {
				c.yielded = now
				yield()
			}
			if err := c.wait(c.rfds[:]); err != nil {
				c.rn, c.rerr = 0, err
				return true
			}
			continue
		}
		c.rn, c.rerr = 0, e
		return true
	}
}

func (c *Conn) Write(b []byte) (int, error) {
	if c.expired.Load() {
		return 0, c.opError("write", os.ErrDeadlineExceeded)
	}
	c.wb = b
	if err := c.raw.Write(c.writeFn); err != nil {
		return 0, err
	}
	n, err := c.wn, c.werr
	c.wb, c.werr = nil, nil
	if err != nil && c.expired.Load() {
		err = os.ErrDeadlineExceeded
	}
	if err != nil {
		return n, c.opError("write", err)
	}
	return n, nil
}

func (c *Conn) write(fd uintptr) bool {
	c.wn = 0
	for c.wn < len(c.wb) {
		p := c.wb[c.wn:]
		n, _, e := unix.RawSyscall6(unix.SYS_SENDTO, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, 0, 0)
		switch e {
		case 0:
			c.wn += int(n)
		case unix.EINTR:
		case unix.EAGAIN:
			if err := c.wait(c.wfds[:]); err != nil {
				c.werr = err
				return true
			}
		default:
			c.werr = e
			return true
		}
	}
	c.werr = nil
	return true
}

// wait blocks in poll(2), through the runtime's syscall path so that other goroutines
// keep running.
func (c *Conn) wait(fds []unix.PollFd) error {
	for {
		_, err := unix.Poll(fds, -1)
		if err != unix.EINTR {
			return err
		}
	}
}

// Close shuts the socket down first, which wakes a reader waiting in poll(2) (it then
// reads end of file); the descriptor itself closes when that reader has left.
func (c *Conn) Close() error {
	c.shut.Do(func() {
		_ = c.raw.Control(func(fd uintptr) { _ = unix.Shutdown(int(fd), unix.SHUT_RDWR) })
		c.dl.Lock()
		for _, t := range []*time.Timer{c.rtimer, c.wtimer} {
			if t != nil {
				t.Stop()
			}
		}
		c.dl.Unlock()
		track(-1)
	})
	return c.f.Close()
}

func (c *Conn) LocalAddr() net.Addr  { return c.local }
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline, SetReadDeadline and SetWriteDeadline arm a timer that shuts the socket
// down when t passes: the waiting call, and every later one, fails with
// os.ErrDeadlineExceeded. A net.Conn from the net package fails only the calls of
// that moment and stays usable; drivers close a connection after a timeout anyway
// (pgx on a cancelled statement the server ignored, go-sql-driver after readTimeout).
// The zero time disarms the timer, unless it has fired.
func (c *Conn) SetDeadline(t time.Time) error {
	c.setDeadline(&c.rtimer, t)
	c.setDeadline(&c.wtimer, t)
	return nil
}

func (c *Conn) SetReadDeadline(t time.Time) error  { c.setDeadline(&c.rtimer, t); return nil }
func (c *Conn) SetWriteDeadline(t time.Time) error { c.setDeadline(&c.wtimer, t); return nil }

func (c *Conn) setDeadline(timer **time.Timer, t time.Time) {
	c.dl.Lock()
	defer c.dl.Unlock()
	if *timer != nil {
		(*timer).Stop()
	}
	if t.IsZero() {
		return
	}
	d := time.Until(t)
	if d <= 0 {
		c.expire()
		return
	}
	if *timer == nil {
		*timer = time.AfterFunc(d, c.expire)
	} else {
		(*timer).Reset(d)
	}
}

func (c *Conn) expire() {
	c.expired.Store(true)
	_ = c.raw.Control(func(fd uintptr) { _ = unix.Shutdown(int(fd), unix.SHUT_RDWR) })
}

// A goroutine that only ever waits in poll(2) never goes back to the scheduler, so to
// the runtime's monitor (sysmon) it looks like one that has run for too long: every
// 10 ms it takes the goroutine's P away or preempts it with a signal, and each time it
// does so it drops back to its shortest sleep (20 µs). With four such goroutines
// (point selects on MariaDB) sysmon woke about 3,900 times a second, 0.14 times a
// transaction, on CPUs the server needs. A reader that waits therefore yields
// (runtime.Gosched) at most once every yieldEvery, well inside the monitor's 10 ms:
// its nanosleeps fell to about 140 a second and its preemption signals from 160 to 7.
const yieldEvery = 5 * time.Millisecond

// yield is runtime.Gosched; tests count the calls.
var yield = runtime.Gosched

var procs struct {
	sync.Mutex
	open int // Conns not yet closed
	base int // GOMAXPROCS before the first Conn raised it; 0 while not raised
}

// Open is the number of Conns not yet closed.
func Open() int {
	procs.Lock()
	defer procs.Unlock()
	return procs.open
}

// track counts a Conn opened (+1) or closed (-1) and sets GOMAXPROCS to the larger of
// its own value and open+1, back to its own value when no Conn is left.
func track(delta int) {
	procs.Lock()
	defer procs.Unlock()
	procs.open += delta
	if procs.base == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	want := max(procs.base, procs.open+1)
	if runtime.GOMAXPROCS(0) != want {
		runtime.GOMAXPROCS(want)
	}
	if procs.open == 0 {
		procs.base = 0
	}
}
