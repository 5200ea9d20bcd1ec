//go:build linux

package emulator

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"tierbench/internal/device"
	"tierbench/internal/emulator/preload"
)

// ringServer serves devices over a preload ring (package preload): the database's
// processes (through the LD_PRELOAD shim) and tierbench's own SQLite (through the VFS)
// stamp each request with its arrival time, do the real I/O themselves and wait for
// the deadline the ring's one consumer answers with. The consumer is this goroutine,
// on a locked thread, in front of the same timedDevice as a FUSE mount.
type ringServer struct {
	ring *preload.Ring
	tune preload.Tuning
	devs []*timedDevice
	stop chan struct{}
	done chan struct{}
	once sync.Once
	// mu lets drain take the queues from the consumer: the ring has one consumer.
	mu sync.Mutex
	// rt: the consumer's thread runs at a real-time priority now; rtRefused: the host
	// refused it once, and it is not asked again (Tuning.RTConsumer).
	rt, rtRefused bool
}

// realtime puts the consumer at a real-time priority while the host is contended and
// back among the normal threads when it is not (Tuning.RTConsumer). Contended, a
// normal-priority consumer waits for a CPU before it answers, and the clients sleep
// for their answers; at a real-time priority it runs as soon as the doorbell wakes it.
// Not contended, it busy-polls for ConsumerSpin after each request, which at a
// real-time priority would keep a database thread that wakes off its CPU until the
// load is seen (5-15 ms): there it stays a normal thread, and a CPU is free anyway.
func (s *ringServer) realtime(contended bool) {
	if !s.tune.RTConsumer || s.rtRefused || contended == s.rt {
		return
	}
	if contended {
		if realtimeThread() != nil {
			s.rtRefused = true
			return
		}
		s.rt = true
		s.ring.SetRealtimeConsumer(true)
		return
	}
	// the clients stop spinning for answers before the consumer gives up its priority
	s.ring.SetRealtimeConsumer(false)
	normalThread()
	s.rt = false
}

// realtimeThread puts the calling thread in SCHED_FIFO at the lowest real-time
// priority: it then runs as soon as it wakes, ahead of every normal thread, and
// yields to none of them until it sleeps again. It needs CAP_SYS_NICE or an
// RLIMIT_RTPRIO above 0; without them it returns the kernel's refusal.
var realtimeThread = func() error {
	return unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: 1}, 0)
}

// normalThread puts the calling thread back in SCHED_OTHER at nice 0.
var normalThread = func() error {
	return unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}, 0)
}

// drainEvery bounds how stale the counters get while the ring is idle: completions
// do not ring the doorbell.
const drainEvery = 20 * time.Millisecond

// startRingServer starts the consumer. It busy-polls for tune.ConsumerSpin after its last request,
// then sleeps on the doorbell. A request is answered while its client does the real
// I/O, so a sleeping consumer's wake-up costs nothing on a device slower than that;
// within a burst the consumer stays awake and answers in under a microsecond.
func startRingServer(r *preload.Ring, devs []*timedDevice, tune preload.Tuning) *ringServer {
	s := &ringServer{ring: r, devs: devs, tune: tune, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *ringServer) run() {
	// The thread stays locked until the goroutine ends, and Go then ends the thread:
	// a real-time priority set on it never passes to other goroutines.
	runtime.LockOSThread()
	defer close(s.done)
	var load hostLoad
	last := time.Now()
	for {
		if s.poll() > 0 {
			last = time.Now()
			continue
		}
		select {
		case <-s.stop:
			s.poll()
			return
		default:
		}
		now := time.Now()
		if !s.tune.IgnoreLoad && load.update(now, s.ring.Spinners()) {
			s.realtime(load.contended)
			s.ring.SetContended(load.contended)
		}
		if !load.contended && now.Sub(last) < s.tune.ConsumerSpin {
			continue
		}
		s.ring.Sleep(s.settle())
		last = time.Now()
	}
}

// hostLoad says whether other threads leave no CPU idle, from the running count of
// /proc/loadavg sampled every few milliseconds, less the ring's own spinners, and
// smoothed (a burst of compilers should not flip it back and forth). Busy-waiting
// then costs more than it saves: the spinner is descheduled for milliseconds.
type hostLoad struct {
	next      time.Time
	score     float64
	contended bool
	buf       [128]byte
}

func (l *hostLoad) update(now time.Time, spinners int) bool {
	if now.Before(l.next) {
		return false
	}
	l.next = now.Add(5 * time.Millisecond)
	running, ok := l.running()
	if !ok {
		return false
	}
	busy := 0.0
	// This thread and the clients spinning for their deadlines are among the running;
	// the others leave no CPU idle when they are as many as the CPUs (a database
	// using both CPUs of two).
	if running-1-spinners >= runtime.NumCPU() {
		busy = 1
	}
	l.score = l.score*0.75 + busy*0.25
	l.contended = l.score > 0.5
	return true
}

// running reads the fourth field of /proc/loadavg, "RUNNING/TOTAL".
func (l *hostLoad) running() (int, bool) {
	fd, err := syscall.Open("/proc/loadavg", syscall.O_RDONLY, 0)
	if err != nil {
		return 0, false
	}
	n, _ := syscall.Read(fd, l.buf[:])
	syscall.Close(fd)
	fields := strings.Fields(string(l.buf[:max(n, 0)]))
	if len(fields) < 4 {
		return 0, false
	}
	r, _, _ := strings.Cut(fields[3], "/")
	v, err := strconv.Atoi(r)
	return v, err == nil
}

// drain counts the completions queued now, so that counters read next include every
// request that has returned (completions do not wake a sleeping consumer).
func (s *ringServer) drain() {
	s.poll()
}

// settle marks the cached pages whose data is there by now on every device, and
// returns how long the consumer may sleep: drainEvery, or until the next page is there
// if that is sooner (so that clients find it marked without a request to wake it).
func (s *ringServer) settle() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	sleep := drainEvery
	for _, d := range s.devs {
		if next := d.settle(); next > 0 {
			sleep = min(sleep, max(next, 50*time.Microsecond))
		}
	}
	return sleep
}

// poll counts every completion and answers every queued request. Completions go
// first: a hit record is a read that arrived before the requests queued now, and the
// model takes its requests in the order they came.
func (s *ringServer) poll() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.completions()
	for {
		sl, ok := s.ring.NextSubmission()
		if !ok {
			break
		}
		// a client queues its hit records before it makes its next request: those
		// queued now go to the model first (a write before the fsync that follows it)
		n += 1 + s.completions()
		if int(sl.Dev) >= len(s.devs) || sl.Uncounted() {
			s.ring.Answer(sl, sl.Arrive)
			continue
		}
		r := device.Request{Op: device.Op(sl.Op), Offset: sl.Off, Size: sl.Size, File: sl.File, Direct: sl.Direct()}
		s.ring.Answer(sl, s.devs[sl.Dev].admit(sl.Arrive, r, sl.FileSize, int64(sl.QD)))
	}
	if n > 0 {
		// what was taken may have brought pages in or dirtied some: the busy-polling
		// loop does this only when there was something
		for _, d := range s.devs {
			d.settle()
		}
	}
	return n
}

// completions counts the completions queued now and submits the hit records among
// them to the models.
func (s *ringServer) completions() int {
	n := 0
	for {
		c, ok := s.ring.NextCompletion()
		if !ok {
			return n
		}
		n++
		if int(c.Dev) >= len(s.devs) || c.Uncounted {
			continue
		}
		switch d := s.devs[c.Dev]; {
		case c.Hit:
			d.fastHit(c)
		case c.Correction:
			d.lateAfterAll(device.Op(c.Op), c.Latency, c.Late)
		default:
			d.complete(device.Op(c.Op), c.Size, c.Latency, c.Late)
		}
	}
}

// settle marks the device's cached pages whose data is there by now and sets its
// write budget (residency.settle); it returns how long until the next pending page is
// there (0: none).
func (d *timedDevice) settle() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.res == nil || d.bypass {
		return 0
	}
	return d.res.settle(time.Duration(monoNow() - d.startMono))
}

// fastHit takes a hit record: a buffered read of pages the model held, or a buffered
// write it would only copy (residency.go), that a client made without asking; it
// arrived at c.HitRead.Arrive and returned to its caller c.Latency later. The model
// gets it now, at its arrival (or at the last submission, if that is later), for the
// cache's recency, dirty pages and counters; its deadline there gives the lateness.
// A record the model would have made wait longer than the copy (a page evicted since
// the client looked, a write throttled after all) is counted in FastHitMisses: the
// client was served at a copy's cost all the same.
func (d *timedDevice) fastHit(c preload.Completion) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bypass || d.res == nil || d.res.pc == nil {
		return
	}
	r := device.Request{Op: device.Op(c.Op), Offset: c.HitRead.Off, Size: c.Size, File: c.HitRead.File}
	at := max(time.Duration(c.HitRead.Arrive-d.startMono), d.last)
	done := d.submitLocked(at, r, c.HitRead.FileSize)
	d.res.hits++
	if done-at > d.res.pc.CopyTime(c.Size) {
		d.res.misses++
	}
	d.countLocked(r.Op, c.Size, c.Latency)
	d.qdArea += c.Latency
	d.late.Record(time.Duration(c.HitRead.Arrive) + c.Latency - time.Duration(d.startMono) - done)
}

// lateAfterAll corrects a completion of op that was reported on time, with latency
// lat-late, and whose caller returned late after all: lat after it arrived, late after
// its deadline. Its latency and lateness replace the on-time ones; it is not counted
// again.
func (d *timedDevice) lateAfterAll(op device.Op, lat, late time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bypass {
		return
	}
	if int(op) < len(d.lat) {
		d.lat[op].Replace(lat-late, lat)
	}
	d.qdArea += late
	d.late.Replace(0, late)
}

// close stops the consumer after it has counted what is queued.
func (s *ringServer) close() {
	s.once.Do(func() {
		close(s.stop)
		s.ring.Wake()
		<-s.done
	})
}

// admit submits r, which arrived at arrive (CLOCK_MONOTONIC ns), to the model and
// returns its deadline on the same clock. The client measured the arrival, so the
// time it took to reach the server is inside the model's latency rather than added
// to it: there is nothing to compensate for.
func (d *timedDevice) admit(arrive int64, r device.Request, fileSize, qd int64) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bypass {
		return arrive
	}
	at := max(time.Duration(arrive-d.startMono), d.last)
	done := d.submitLocked(at, r, fileSize)
	deadline := d.startMono + int64(done)
	// qd is the ring's count at submission, which leaves out the requests sleeping to
	// their deadlines: those still ahead at r's arrival are in the device with it.
	ahead := d.dueAfterLocked(arrive)
	d.due = append(d.due, deadline)
	d.maxQD = max(d.maxQD, qd, ahead+1)
	return deadline
}

// complete counts a request that returned to its caller lat after it arrived and
// late after its deadline. Completions arrive in any order, so the time-weighted
// queue depth is kept by Little's law: the sum of the requests' times in flight.
func (d *timedDevice) complete(op device.Op, size int64, lat, late time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bypass {
		return
	}
	d.countLocked(op, size, lat)
	d.qdArea += lat
	d.late.Record(late)
}
