package blockio

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// pair returns a Conn and the server side of a fresh unix socket connection.
func pair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	raw, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Wrap(raw)
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	t.Cleanup(func() { c.Close(); peer.Close() })
	return c, peer
}

func TestRoundTrip(t *testing.T) {
	c, peer := pair(t)
	go func() { // an echo server
		buf := make([]byte, 64)
		for {
			n, err := peer.Read(buf)
			if err != nil {
				return
			}
			peer.Write(bytes.ToUpper(buf[:n]))
		}
	}()
	buf := make([]byte, 16)
	for i := range 100 {
		if _, err := c.Write([]byte("select")); err != nil {
			t.Fatal(err)
		}
		// The answer is read only after the peer had time to send it, or before.
		if i%2 == 0 {
			time.Sleep(time.Millisecond)
		}
		if _, err := io.ReadFull(c, buf[:6]); err != nil {
			t.Fatal(err)
		}
		if string(buf[:6]) != "SELECT" {
			t.Fatalf("round trip %d read %q, want SELECT", i, buf[:6])
		}
	}
	if c.LocalAddr().Network() != "unix" || c.RemoteAddr() == nil {
		t.Errorf("addresses: %v %v", c.LocalAddr(), c.RemoteAddr())
	}
}

// TestReaderYields: a reader that keeps waiting in poll(2) gives the scheduler a turn
// about every yieldEvery, never more often, and never much less often, so the runtime's
// monitor does not take it for a goroutine that runs on. The yields are timed by the
// reader's own clock reading (c.yielded), so "never more often" is exact; "never much
// less often" is counted in round trips, which a loaded host lengthens as much as it
// delays a yield: a yield comes at the first wait yieldEvery after the last, so within
// two round trips of it (three if the peer's answer was already there once).
func TestReaderYields(t *testing.T) {
	var c *Conn
	var yields []time.Time
	yield = func() { yields = append(yields, c.yielded) } // called by the reading goroutine only
	t.Cleanup(func() { yield = runtime.Gosched })
	var peer net.Conn
	c, peer = pair(t)
	go func() { // answers each request after 1 ms, so reads wait
		buf := make([]byte, 64)
		for {
			n, err := peer.Read(buf)
			if err != nil {
				return
			}
			time.Sleep(time.Millisecond)
			peer.Write(buf[:n])
		}
	}()
	buf := make([]byte, 8)
	// marks cut the whole run into round trips, so any delay lengthens one of them
	marks := []time.Time{time.Now()}
	for time.Since(marks[0]) < 8*yieldEvery || len(yields) < 3 {
		if time.Since(marks[0]) > time.Minute {
			t.Fatalf("%d yields in a minute of waiting reads", len(yields))
		}
		if _, err := c.Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf[:4]); err != nil {
			t.Fatal(err)
		}
		marks = append(marks, time.Now())
	}
	var longest time.Duration
	for i := 1; i < len(marks); i++ {
		longest = max(longest, marks[i].Sub(marks[i-1]))
	}
	start, end := marks[0], marks[len(marks)-1]
	if first := yields[0].Sub(start); first > 2*longest {
		t.Errorf("first yield %v after the start, want it in the first waits (round trips took at most %v)", first, longest)
	}
	for i := 1; i < len(yields); i++ {
		gap := yields[i].Sub(yields[i-1])
		if gap < yieldEvery || gap > yieldEvery+3*longest {
			t.Errorf("yield %d came %v after the one before, want %v to %v (three of the longest round trip)", i, gap, yieldEvery, yieldEvery+3*longest)
		}
	}
	if last := end.Sub(yields[len(yields)-1]); last > yieldEvery+3*longest {
		t.Errorf("no yield in the last %v of waiting reads, want one every %v", last, yieldEvery)
	}
}

func TestPeerCloseIsEOF(t *testing.T) {
	c, peer := pair(t)
	peer.Write([]byte("last"))
	peer.Close()
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "last" {
		t.Fatalf("ReadAll = %q, %v; want \"last\" and end of file", got, err)
	}
}

// TestCloseWakesReader: a reader waiting for an answer that never comes returns when
// another goroutine closes the connection (as a driver does on cancellation).
func TestCloseWakesReader(t *testing.T) {
	c, _ := pair(t)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 8))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Read after Close returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read still blocked 5 s after Close")
	}
	if _, err := c.Write([]byte("x")); err == nil {
		t.Error("Write after Close succeeded")
	}
}

// TestLargeWrite: a write bigger than the socket buffers waits for the peer to read.
func TestLargeWrite(t *testing.T) {
	c, peer := pair(t)
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
	got := make(chan []byte, 1)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 4096)
		for b.Len() < len(want) {
			n, err := peer.Read(buf)
			if err != nil {
				break
			}
			b.Write(buf[:n])
			if b.Len()%(1<<20) < 4096 {
				time.Sleep(time.Millisecond) // a slow reader fills the sender's buffer
			}
		}
		got <- b.Bytes()
	}()
	n, err := c.Write(want)
	if err != nil || n != len(want) {
		t.Fatalf("Write = %d, %v; want %d", n, err, len(want))
	}
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("peer read %d bytes, not the %d written", len(b), len(want))
	}
}

// TestDeadlines: a deadline that passes fails the waiting read with a timeout, and the
// calls after it; a cleared deadline does not fire; a deadline in the past fails at once.
func TestDeadlines(t *testing.T) {
	c, peer := pair(t)
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	c.SetReadDeadline(time.Time{}) // cleared: must not fire
	c.SetDeadline(time.Now().Add(200 * time.Millisecond))
	c.SetDeadline(time.Time{})
	go func() { time.Sleep(400 * time.Millisecond); peer.Write([]byte("late")) }()
	buf := make([]byte, 8)
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "late" {
		t.Fatalf("Read with cleared deadlines = %q, %v; want \"late\"", buf[:n], err)
	}

	start := time.Now()
	c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	_, err := c.Read(buf)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past its deadline: %v, want a timeout", err)
	}
	if took := time.Since(start); took < 90*time.Millisecond || took > 5*time.Second {
		t.Errorf("the read timed out after %s, want about 100ms", took)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Write after the deadline fired: %v, want os.ErrDeadlineExceeded", err)
	}

	c2, _ := pair(t)
	c2.SetWriteDeadline(time.Now().Add(-time.Second))
	if _, err := c2.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Write after a deadline in the past: %v", err)
	}
}

func TestNotASocket(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	if _, err := Wrap(a); err == nil {
		t.Fatal("Wrap of a net.Pipe succeeded")
	}
}

// TestGOMAXPROCSAndDescriptors: GOMAXPROCS stays above the number of open Conns and
// returns to its value when they are closed; closing releases the descriptors.
func TestGOMAXPROCSAndDescriptors(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	c0, p0 := pair(t) // the runtime's own descriptors (epoll) exist before counting
	c0.Close()
	p0.Close()
	fds := openFDs(t)
	var conns []*Conn
	for range before + 2 {
		c, _ := pair(t)
		conns = append(conns, c)
	}
	if got, want := runtime.GOMAXPROCS(0), len(conns)+1; got != want {
		t.Errorf("GOMAXPROCS with %d Conns open = %d, want %d", len(conns), got, want)
	}
	if Open() != len(conns) {
		t.Errorf("Open() = %d, want %d", Open(), len(conns))
	}
	for _, c := range conns {
		c.Close()
		c.Close() // twice: counted once
	}
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS after closing = %d, want %d again", got, before)
	}
	if Open() != 0 {
		t.Errorf("Open() after closing = %d", Open())
	}
	// The peers are still open (closed by Cleanup): only the Conns' descriptors count.
	if n := openFDs(t); n > fds+len(conns) {
		t.Errorf("%d descriptors open after closing, %d before opening %d Conns (and their peers)", n, fds, len(conns))
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}
