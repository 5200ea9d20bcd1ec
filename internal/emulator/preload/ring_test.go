//go:build linux && cgo

package preload

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"tierbench/internal/rundir"
)

// TestLayoutMatchesC compares the Go mirror of ring.h with what the C compiler made
// of it: a field out of place would have the server and its clients read each
// other's requests wrongly.
func TestLayoutMatchesC(t *testing.T) {
	var h header
	var s Slot
	var q cqCell
	var d deviceEntry
	var m mapEntry
	goLayout := map[string]uintptr{
		"header": unsafe.Sizeof(h), "slot": unsafe.Sizeof(s), "cq": unsafe.Sizeof(q), "device": unsafe.Sizeof(d),
		"sqHead": unsafe.Offsetof(h.sqHead), "cqTail": unsafe.Offsetof(h.cqTail), "sleeping": unsafe.Offsetof(h.sleeping),
		"lead": unsafe.Offsetof(h.lead), "unseen": unsafe.Offsetof(h.unseen), "msg": unsafe.Offsetof(h.msg),
		"dev": unsafe.Offsetof(h.dev), "totalSize": unsafe.Offsetof(h.totalSize),
		"slotFile": unsafe.Offsetof(s.File), "slotDeadline": unsafe.Offsetof(s.deadline), "slotQD": unsafe.Offsetof(s.QD),
		"cqLate": unsafe.Offsetof(q.late), "devInflight": unsafe.Offsetof(d.inflight),
		"contended": unsafe.Offsetof(h.contended), "rtConsumer": unsafe.Offsetof(h.rtConsumer),
		"mapOff": unsafe.Offsetof(h.mapOff), "mapChunk": unsafe.Offsetof(h.mapChunk), "map": unsafe.Sizeof(m),
		"mapDchunk": unsafe.Offsetof(m.dchunk), "mapDev": unsafe.Offsetof(m.dev), "devResOff": unsafe.Offsetof(d.resOff),
		"devPage": unsafe.Offsetof(d.page), "devBudget": unsafe.Offsetof(d.writeBudget), "cqArrive": unsafe.Offsetof(q.arrive), "cqFileSize": unsafe.Offsetof(q.fileSize),
	}
	c := cLayout()
	for k, v := range c {
		if goLayout[k] != v {
			t.Errorf("%s: Go %d, C %d", k, goLayout[k], v)
		}
	}
	if len(goLayout) != len(c) {
		t.Errorf("compared %d fields in Go, %d in C", len(goLayout), len(c))
	}
}

// testRing makes a ring of one device in a temporary directory, with slots slots
// (0: the default), and a file on that device; both go away with the test.
func testRing(t *testing.T, slots int) (r *Ring, dataFile *os.File) {
	t.Helper()
	dir := t.TempDir()
	r, err := Create(dir, Config{Devices: []Device{{Dir: dir}}, Slots: slots})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	f, err := os.Create(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return r, f
}

// attach attaches a client to r for the test's duration.
func attach(t *testing.T, r *Ring) *Client {
	t.Helper()
	c, err := Attach(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Detach)
	return c
}

// submitted is a request as the server saw it.
type submitted struct {
	op     uint32
	size   int64
	direct bool
	qd     int32
}

// served is what serve saw until it stopped: the requests, their completions, and
// the corrections of those whose caller's wait ended late (as the server keeps them
// apart: a correction is no completion of its own).
type served struct {
	reqs        []submitted
	comps       []Completion
	corrections []Completion
}

// serve answers every request with arrive+delay until stop, and records what it saw.
func serve(r *Ring, delay time.Duration, stop <-chan struct{}) <-chan served {
	out := make(chan served, 1)
	go func() {
		var got served
		for {
			busy := false
			for {
				s, ok := r.NextSubmission()
				if !ok {
					break
				}
				busy = true
				got.reqs = append(got.reqs, submitted{s.Op, s.Size, s.Direct(), s.QD})
				r.Answer(s, s.Arrive+int64(delay))
			}
			for {
				c, ok := r.NextCompletion()
				if !ok {
					break
				}
				busy = true
				if c.Correction {
					got.corrections = append(got.corrections, c)
				} else {
					got.comps = append(got.comps, c)
				}
			}
			select {
			case <-stop:
				if !busy {
					out <- got
					return
				}
			default:
			}
			if !busy {
				r.Sleep(time.Millisecond)
			}
		}
	}()
	return out
}

// TestRoundTrip sends reads, writes and flushes through the C client to a Go
// consumer and checks what arrives, what comes back and that every call waited for
// its deadline.
func TestRoundTrip(t *testing.T) {
	r, f := testRing(t, 0)
	if st, err := os.Stat(r.Path()); err != nil || st.Mode().Perm() != 0o666 {
		t.Fatalf("ring file %v, %v: want mode 0666 (servers run as other users)", st, err)
	}
	stop := make(chan struct{})
	done := serve(r, 200*time.Microsecond, stop)
	c := attach(t, r)
	fd := int(f.Fd())
	buf := make([]byte, 8192)
	const writers, each = 4, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				start := time.Now()
				if _, err := c.Pwrite(0, fd, buf, int64(w*each+i)*8192, IOFlags{}); err != nil {
					t.Error(err)
					return
				}
				if d := time.Since(start); d < 200*time.Microsecond {
					t.Errorf("a write returned after %v, before its 200us deadline", d)
				}
			}
		}()
	}
	wg.Wait()
	if _, err := c.Pread(0, fd, buf, 0, IOFlags{Direct: true}); err != nil {
		t.Fatal(err)
	}
	// a read past the end reaches no device
	if n, err := c.Pread(0, fd, buf, 1<<30, IOFlags{}); n != 0 || err != nil {
		t.Fatalf("read past the end: %d, %v", n, err)
	}
	if err := c.Fdatasync(0, fd, IOFlags{}); err != nil {
		t.Fatal(err)
	}
	close(stop)
	seen := <-done
	var reads, writes, flushes int
	for _, cp := range seen.comps {
		switch cp.Op {
		case 0:
			reads++
			if cp.Size != 8192 {
				t.Errorf("read of %d bytes, want 8192", cp.Size)
			}
		case 1:
			writes++
		case 2:
			flushes++
		}
		if cp.Latency < 200*time.Microsecond || cp.Late < 0 {
			t.Errorf("completion %+v: latency below the deadline or early", cp)
		}
	}
	if reads != 1 || writes != writers*each || flushes != 1 {
		t.Errorf("completions: %d reads, %d writes, %d flushes; want 1, %d, 1", reads, writes, flushes, writers*each)
	}
	maxQD := int32(0)
	for _, q := range seen.reqs {
		maxQD = max(maxQD, q.qd)
	}
	if maxQD < 1 || maxQD > writers {
		t.Errorf("max queue depth %d, want 1..%d", maxQD, writers)
	}
	if h := r.Health(); h.Attached != 1 || h.Failed != "" || r.Inflight(0) != 0 {
		t.Errorf("health %+v, inflight %d: want one attached client, no failure, nothing in flight", h, r.Inflight(0))
	}
}

// TestServerGone: a client whose server stops answering gives up, does its I/O
// untimed and records why, instead of hanging the database.
func TestServerGone(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the client to give up")
	}
	r, f := testRing(t, 0)
	// a server pid that is gone: the client notices at its first futex timeout
	r.h.serverPID = deadPID(t)
	c := attach(t, r)
	start := time.Now()
	if _, err := c.Pwrite(0, int(f.Fd()), make([]byte, 512), 0, IOFlags{}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("gave up after %v", d)
	}
	if h := r.Health(); h.Failed == "" {
		t.Error("no failure recorded")
	} else {
		t.Log(h.Failed)
	}
	// the next request is not timed at all
	if _, err := c.Pwrite(0, int(f.Fd()), make([]byte, 512), 0, IOFlags{}); err != nil {
		t.Fatal(err)
	}
}

func deadPID(t *testing.T) int32 {
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := p.Wait()
	return int32(st.Pid())
}

// TestRingFull: more requests waiting for an answer than the ring has slots (a server
// that answers late) wait for a slot rather than fail, and the ring counts the waits.
func TestRingFull(t *testing.T) {
	r, f := testRing(t, 2)
	stop := make(chan struct{})
	later := make(chan (<-chan served), 1)
	time.AfterFunc(100*time.Millisecond, func() { // the server is busy for 100 ms
		later <- serve(r, time.Millisecond, stop)
	})
	c := attach(t, r)
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Pwrite(0, int(f.Fd()), make([]byte, 512), int64(i)*512, IOFlags{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	close(stop)
	if got := <-<-later; len(got.comps) != 6 {
		t.Errorf("%d completions, want 6", len(got.comps))
	}
	if h := r.Health(); h.FullWaits == 0 || h.Failed != "" {
		t.Errorf("health %+v: want waits for a slot and no failure", h)
	}
}

// TestCreateRefusesBadDirectories: a device directory a client could not match
// (relative, or longer than the ring holds) is refused by name.
func TestCreateRefusesBadDirectories(t *testing.T) {
	for _, d := range []string{"relative/dir", "/" + strings.Repeat("x", 1100)} {
		_, err := Create(t.TempDir(), Config{Devices: []Device{{Dir: d}}})
		if err == nil || !strings.Contains(err.Error(), "must be absolute and shorter than 1024 bytes") {
			t.Errorf("%.40s: %v", d, err)
		}
	}
}

// TestCompletionBeforeDeadline: a request's completion reaches the server while its
// caller still waits for the deadline, so that none of the client's bookkeeping runs
// between the deadline and the caller's return (each request would return that much
// late: 0.1-0.2 us on this host, 4% of an NVMe commit). The deadline is 2 s away, so a
// loaded host has all that time to let the client push it.
func TestCompletionBeforeDeadline(t *testing.T) {
	r, f := testRing(t, 0)
	c := attach(t, r)
	const delay = 2 * time.Second
	returned := make(chan time.Time, 1)
	// start is before the call, so that its deadline (its arrival plus delay) is not
	// before start plus delay: taken after the goroutine, it came after the arrival on
	// a loaded host.
	start := time.Now()
	go func() {
		if _, err := c.Pwrite(0, int(f.Fd()), make([]byte, 512), 0, IOFlags{}); err != nil {
			t.Error(err)
		}
		returned <- time.Now()
	}()
	answered := false
	for {
		if !answered {
			if s, ok := r.NextSubmission(); ok {
				r.Answer(s, s.Arrive+int64(delay))
				answered = true
			}
		}
		if cp, ok := r.NextCompletion(); ok {
			select {
			case at := <-returned:
				t.Fatalf("the completion (%+v) came after the call returned (%v after it began)", cp, at.Sub(start))
			default:
			}
			if cp.Correction || cp.Late != 0 || cp.Latency < delay {
				t.Errorf("completion %+v: want on time, with the deadline's latency", cp)
			}
			break
		}
		select {
		case at := <-returned:
			t.Fatalf("the call returned (%v after it began) before its completion was queued", at.Sub(start))
		default:
		}
		time.Sleep(time.Millisecond)
	}
	if d := time.Since(start); d >= delay {
		t.Logf("the host took %v to queue the completion", d) // not a failure: the order is what matters
	}
	at := <-returned
	if d := at.Sub(start); d < delay {
		t.Errorf("the call returned after %v, before its deadline", d)
	}
}

// TestDeadRingsRemoved: a ring whose creator was killed (it never removed its
// directory) goes when the next ring is made; a live process's ring, and a directory
// without a lock (an older version's ring), stay.
func TestDeadRingsRemoved(t *testing.T) {
	parent := t.TempDir()
	dev := []Device{{Dir: parent}}
	live, err := Create(parent, Config{Devices: dev})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	old := filepath.Join(parent, ringPrefix+"12345")
	if err := os.Mkdir(old, 0o711); err != nil {
		t.Fatal(err)
	}
	// The creator: a process that holds a ring's lock (as Create does) and is killed.
	dead := filepath.Join(parent, ringPrefix+"67890")
	if err := os.Mkdir(dead, 0o711); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(dead, rundir.LockFile)
	if err := os.WriteFile(lockPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// One process holds it, as a ring's creator does: the shell locks its fd 9 with
	// flock(1) (util-linux) and becomes sleep, keeping the fd.
	holder := exec.Command("sh", "-c", `exec 9>>"$1" && flock -x 9 && exec sleep 60`, "sh", lockPath)
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Kill(); holder.Wait() }()
	probe, err := os.Open(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if syscall.Flock(int(probe.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			break // held
		}
		syscall.Flock(int(probe.Fd()), syscall.LOCK_UN)
		if time.Now().After(deadline) {
			t.Fatal("flock(1) never took the lock")
		}
	}
	next, err := Create(parent, Config{Devices: dev}) // the holder lives: nothing goes
	if err != nil {
		t.Fatal(err)
	}
	next.Close()
	if _, err := os.Stat(dead); err != nil {
		t.Fatalf("a live holder's ring was removed: %v", err)
	}
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	next, err = Create(parent, Config{Devices: dev})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the killed creator's ring is still there (%v)", err)
	}
	for _, d := range []string{filepath.Dir(live.Path()), old} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
}

func TestTuningFromEnv(t *testing.T) {
	if DefaultTuning().RTConsumer {
		t.Error("the default tuning asks for a real-time consumer, which measured slower")
	}
	t.Setenv(TuneEnv, "consumer_rt=1, answer_spin=5us,max_spinners=0,fast_hits=0,ignore_load=true")
	got, err := TuningFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultTuning()
	want.RTConsumer, want.AnswerSpin, want.MaxSpinners = true, 5*time.Microsecond, 0
	want.NoFastHits, want.IgnoreLoad = true, true
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, bad := range []string{"answer_spin=5", "max_spinners=-1", "consumer_fifo=1", "consumer_rt=yes", "ignore_load=on", "fast_hits="} {
		t.Setenv(TuneEnv, bad)
		if _, err := TuningFromEnv(); err == nil || !strings.Contains(err.Error(), TuneEnv) {
			t.Errorf("%s: err %v, want one naming %s", bad, err, TuneEnv)
		}
	}
}

func TestRealtimeConsumerFlag(t *testing.T) {
	r, _ := testRing(t, 0)
	if r.h.rtConsumer.Load() != 0 {
		t.Fatal("a new ring says its consumer is real-time")
	}
	r.SetRealtimeConsumer(true)
	if r.h.rtConsumer.Load() != 1 {
		t.Error("SetRealtimeConsumer(true) not in the header the clients read")
	}
	if !r.Health().RealtimeConsumer {
		t.Error("Health does not report the real-time consumer")
	}
	r.SetRealtimeConsumer(false)
	if r.h.rtConsumer.Load() != 2 {
		t.Errorf("after SetRealtimeConsumer(false) the word is %d, want 2 (was real-time, no longer)", r.h.rtConsumer.Load())
	}
	if !r.Health().RealtimeConsumer {
		t.Error("Health forgot that the consumer ran real-time")
	}
}
