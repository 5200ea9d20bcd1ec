//go:build linux

package preload

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"tierbench/internal/rundir"
)

// RingVersion is ring.h's TB_VERSION: what a ring's server and its clients speak.
const RingVersion = 2

// The layout of ring.h, field by field (TestLayoutMatchesC compares every offset with
// the C compiler's).

const (
	ringMagic   = 0x31474e4952425454
	ringVersion = RingVersion
	// MaxDevices is how many devices one ring serves.
	MaxDevices = 16
	dirMax     = 1024
	msgMax     = 512

	flagNoSpin           = 1
	devNoBackingSync     = 1
	slotFree             = 0
	slotClaimed          = 1
	slotAnswered         = 2
	reqDirect            = 1
	reqUncounted         = 2
	reqLate              = 4
	reqHit               = 8
	mapGone              = ^uint64(0)
	mapProbes            = 64
	defaultMapEntries    = 1 << 17
	defaultSlots         = 1024
	defaultCompletions   = 16384
	defaultInitialLead   = 20 * time.Microsecond
	futexWait, futexWake = 0, 1
)

type header struct {
	magic       uint64
	version     uint32
	headerSize  uint32
	nslots      uint32
	ncq         uint32
	ndevices    uint32
	serverPID   int32
	flags       uint32
	maxSpinners uint32
	spinWindow  int64
	slotsOff    uint64
	sqOff       uint64
	cqOff       uint64
	totalSize   uint64
	answerSpin  int64
	mapOff      uint64
	mapN        uint32
	_           uint32
	mapChunk    int64
	_           [16]byte

	sqHead atomic.Uint64
	_      [56]byte
	sqTail atomic.Uint64
	_      [56]byte
	cqHead atomic.Uint64
	_      [56]byte
	cqTail atomic.Uint64
	_      [56]byte

	sleeping    atomic.Uint32
	doorbell    atomic.Uint32
	spinners    atomic.Uint32
	attached    atomic.Uint32
	lead        atomic.Int64
	fullWaits   atomic.Uint64
	slowAnswers atomic.Uint64
	failed      atomic.Uint32
	msgLock     atomic.Uint32
	unseen      atomic.Uint64
	contended   atomic.Uint32
	rtConsumer  atomic.Uint32
	msg         [msgMax]byte
	unseenMsg   [msgMax]byte
	dev         [MaxDevices]deviceEntry
}

type deviceEntry struct {
	dir         [dirMax]byte
	dirLen      uint32
	flags       uint32
	inflight    atomic.Int32
	_           uint32
	resOff      uint64
	resPages    int64
	page        int64
	writeBudget atomic.Int64
	_           [16]byte
}

type mapEntry struct {
	file   atomic.Uint64
	chunk  int64
	dchunk int64
	dev    uint32
	_      uint32
}

// mapHash is ring.h's tb_map_hash.
func mapHash(file uint64, chunk int64) uint64 {
	x := file*0x9e3779b97f4a7c15 ^ uint64(chunk)*0xc2b2ae3d27d4eb4f
	return x ^ x>>29
}

// Slot is one request as the client filled it in.
type Slot struct {
	state    atomic.Uint32
	waiting  atomic.Uint32
	Dev      uint32
	Op       uint32
	Flags    uint32
	PID      int32
	QD       int32 // the device's requests in flight, this one included
	_        uint32
	File     uint64
	Off      int64
	Size     int64
	FileSize int64
	Arrive   int64 // CLOCK_MONOTONIC ns
	deadline int64
	_        [48]byte
}

// Direct says the file was opened with O_DIRECT.
func (s *Slot) Direct() bool { return s.Flags&reqDirect != 0 }

// Uncounted says the request is the server's own floor probe: no model, no counters.
func (s *Slot) Uncounted() bool { return s.Flags&reqUncounted != 0 }

type sqCell struct {
	seq  atomic.Uint64
	slot uint32
	_    uint32
}

type cqCell struct {
	seq   atomic.Uint64
	dev   uint32
	op    uint32
	flags uint32
	_     uint32
	size  int64
	lat   int64
	late  int64
	// a hit record's read
	arrive   int64
	file     uint64
	off      int64
	fileSize int64
}

// Completion is what a client reports when a request returned to its caller.
type Completion struct {
	Dev, Op uint32
	// Uncounted: the server's own probe.
	Uncounted bool
	// Correction: the lateness of a completion already reported on time, whose
	// caller's wait ended late (client.h's TB_LATE_NOTE_NS): Latency and Late replace
	// its, which were Latency-Late and 0; the request is not counted again.
	Correction bool
	Size       int64         // bytes the call moved
	Latency    time.Duration // arrival to return, as the caller saw it
	Late       time.Duration // return minus the model's deadline: the emulation's error
	// Hit: a read the client served from pages the server had published as cached
	// (SetResident), or a write it made into them (SetWriteBudget), without asking:
	// the server has not seen it yet and submits it now, as HitRead describes. Late
	// is 0 then: the server knows the deadline, the client did not.
	Hit     bool
	HitRead HitRead
}

// HitRead is the request of a hit record (a read or a write), as a slot would have
// carried it.
type HitRead struct {
	File     uint64
	Off      int64
	FileSize int64
	Arrive   int64 // CLOCK_MONOTONIC ns
}

// Device is one device of a ring: files under Dir are its files.
type Device struct {
	Dir           string
	NoBackingSync bool
	// Pages, when above 0, gives the device a bitmap of that many pages of Page
	// bytes (device offsets from 0) in which the server marks the pages its page
	// cache model holds (SetResident): a client's read of marked pages does not ask.
	Pages, Page int64
}

// Config shapes a ring.
type Config struct {
	Devices []Device
	// NoSpin: clients never busy-wait for a deadline (emulator.Options.NoSpin).
	NoSpin bool
	Tuning Tuning
	// Slots bounds the requests in flight over every client (0: 1024).
	Slots int
	// Chunk is the bytes of a file that one entry of the chunk map places on its
	// device (Publish); needed when a device has Pages.
	Chunk int64
	// MapEntries sizes the chunk map (a power of two; 0: 131072, 128 GiB of files in
	// 1 MiB chunks).
	MapEntries int
}

// Tuning are the ring's ways of waiting; the zero Tuning means DefaultTuning.
type Tuning struct {
	// ConsumerSpin: the server busy-polls this long after its last request before it
	// sleeps on the doorbell.
	ConsumerSpin time.Duration
	// AnswerSpin: a client busy-waits this long for its answer before it sleeps.
	AnswerSpin time.Duration
	// SpinWindow: a client that may spin sleeps until this long before its deadline
	// and busy-waits the rest (a sleeping thread wakes 15-30 us late on a VM).
	SpinWindow time.Duration
	// MaxSpinners is how many clients may busy-wait for deadlines at once: a
	// spinning waiter is a CPU the database does not get.
	MaxSpinners int
	// IgnoreLoad keeps spinning on a host with more runnable threads than CPUs (the
	// server otherwise stops everyone's busy-waiting there).
	IgnoreLoad bool
	// RTConsumer runs the server's consumer thread at a real-time priority
	// (SCHED_FIFO) while the host is contended, where the host allows it, so that a
	// request is answered at once there. Off by default: measured on the device twin's
	// validation it made the emulated runs slower, not faster (docs/devices.md,
	// "Two paths to the models").
	RTConsumer bool
	// NoFastHits makes every request ask the server, also a read of pages the page
	// cache model holds and a write it would only copy (the emulator publishes its
	// pages otherwise, and the client serves such a request itself:
	// emulator/residency.go). For before-and-after measurements.
	NoFastHits bool
}

// DefaultTuning is what scripts/preload-floor measured best on the 2-core VM
// (docs/devices.md, "Two paths to the models").
func DefaultTuning() Tuning {
	return Tuning{ConsumerSpin: 200 * time.Microsecond, AnswerSpin: 20 * time.Microsecond,
		SpinWindow: 300 * time.Microsecond, MaxSpinners: max(runtime.NumCPU()-1, 1)}
}

// TuneEnv names the environment variable that overrides the tuning for measurements:
// "consumer_spin=200us,answer_spin=20us,spin_window=300us,max_spinners=1,ignore_load=1,
// consumer_rt=1,fast_hits=0".
const TuneEnv = "TIERBENCH_PRELOAD_TUNE"

// switches are TuneEnv's on/off keys, each taking 1, 0, true or false.
var switches = map[string]func(*Tuning, bool){
	"ignore_load": func(t *Tuning, on bool) { t.IgnoreLoad = on },
	"consumer_rt": func(t *Tuning, on bool) { t.RTConsumer = on },
	"fast_hits":   func(t *Tuning, on bool) { t.NoFastHits = !on },
}

// TuningFromEnv is DefaultTuning with TuneEnv's overrides.
func TuningFromEnv() (Tuning, error) {
	t := DefaultTuning()
	v := os.Getenv(TuneEnv)
	if v == "" {
		return t, nil
	}
	for _, kv := range strings.Split(v, ",") {
		k, val, _ := strings.Cut(strings.TrimSpace(kv), "=")
		if on, ok := switches[k]; ok {
			if val != "0" && val != "1" && val != "true" && val != "false" {
				return t, fmt.Errorf("%s: %s=%q: give 1 or 0", TuneEnv, k, val)
			}
			on(&t, val == "1" || val == "true")
			continue
		}
		if k == "max_spinners" {
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return t, fmt.Errorf("%s: max_spinners=%q: give a count", TuneEnv, val)
			}
			t.MaxSpinners = n
			continue
		}
		d, err := time.ParseDuration(val)
		if err != nil || d < 0 {
			return t, fmt.Errorf("%s: %s=%q: give a duration such as 20us", TuneEnv, k, val)
		}
		switch k {
		case "consumer_spin":
			t.ConsumerSpin = d
		case "answer_spin":
			t.AnswerSpin = d
		case "spin_window":
			t.SpinWindow = d
		default:
			return t, fmt.Errorf("%s: unknown key %q (consumer_spin, answer_spin, spin_window, max_spinners, ignore_load, consumer_rt, fast_hits)", TuneEnv, k)
		}
	}
	return t, nil
}

// Ring is the server's side of a ring: one consumer.
type Ring struct {
	path  string
	dir   string
	lock  *rundir.Lock // held for the ring's life: a ring whose lock is free has no owner
	mem   []byte
	h     *header
	slots []Slot
	sq    []sqCell
	cq    []cqCell
	cmap  []mapEntry
	res   [MaxDevices][]atomic.Uint64 // resident-page bitmaps
	// pub serialises the chunk map's writers (devices publish under their own locks).
	pub sync.Mutex
	// unpublished counts the chunks the map had no room for.
	unpublished atomic.Int64
}

func roundUp(n, to uintptr) uintptr { return (n + to - 1) / to * to }

// Create makes a ring in a new private directory under parent (/dev/shm when "").
// Clients open it read-write, so the file is 0666 inside a 0711 directory with a
// random name: a user who cannot read a server's environment cannot find it.
func Create(parent string, cfg Config) (*Ring, error) {
	if len(cfg.Devices) == 0 || len(cfg.Devices) > MaxDevices {
		return nil, fmt.Errorf("preload ring: %d devices (1 to %d)", len(cfg.Devices), MaxDevices)
	}
	nslots := cfg.Slots
	if nslots == 0 {
		nslots = defaultSlots
	}
	if nslots&(nslots-1) != 0 {
		return nil, fmt.Errorf("preload ring: %d slots is not a power of two", nslots)
	}
	for _, d := range cfg.Devices {
		if !filepath.IsAbs(d.Dir) || len(d.Dir) >= dirMax {
			return nil, fmt.Errorf("preload ring: device directory %q must be absolute and shorter than %d bytes", d.Dir, dirMax)
		}
	}
	if parent == "" {
		parent = "/dev/shm"
		if st, err := os.Stat(parent); err != nil || !st.IsDir() {
			parent = os.TempDir()
		}
	}
	removeDeadRings(parent)
	dir, err := os.MkdirTemp(parent, ringPrefix)
	if err != nil {
		return nil, fmt.Errorf("preload ring: %w", err)
	}
	os.Chmod(dir, 0o711)
	lock, err := rundir.Acquire(dir, "tierbench (pid "+strconv.Itoa(os.Getpid())+"): a preload ring")
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("preload ring: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			lock.Release()
		}
	}()
	path := filepath.Join(dir, "ring")
	hdrSize := roundUp(unsafe.Sizeof(header{}), 4096)
	slotsOff := hdrSize
	sqOff := slotsOff + uintptr(nslots)*unsafe.Sizeof(Slot{})
	cqOff := roundUp(sqOff+uintptr(nslots)*unsafe.Sizeof(sqCell{}), 64)
	end := roundUp(cqOff+defaultCompletions*unsafe.Sizeof(cqCell{}), 4096)
	var mapOff uintptr
	mapN := cfg.MapEntries
	if mapN == 0 {
		mapN = defaultMapEntries
	}
	resOff := make([]uintptr, len(cfg.Devices))
	for i, d := range cfg.Devices {
		if d.Pages <= 0 {
			continue
		}
		if d.Page <= 0 || cfg.Chunk <= 0 || cfg.Chunk%d.Page != 0 {
			return nil, fmt.Errorf("preload ring: device %s has %d pages of %d bytes in chunks of %d: give all three, chunks of whole pages", d.Dir, d.Pages, d.Page, cfg.Chunk)
		}
		if mapOff == 0 {
			if mapN&(mapN-1) != 0 {
				return nil, fmt.Errorf("preload ring: %d chunk map entries is not a power of two", mapN)
			}
			mapOff = end
			end = roundUp(end+uintptr(mapN)*unsafe.Sizeof(mapEntry{}), 4096)
		}
		resOff[i] = end
		end = roundUp(end+uintptr((d.Pages+63)/64*8), 4096)
	}
	total := end
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("preload ring: %w", err)
	}
	defer f.Close()
	f.Chmod(0o666) // past the umask: servers run as their own users
	if err := f.Truncate(int64(total)); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("preload ring: %w", err)
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, int(total), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("preload ring: mmap: %w", err)
	}
	ok = true
	r := &Ring{path: path, dir: dir, lock: lock, mem: mem, h: (*header)(unsafe.Pointer(&mem[0]))}
	r.slots = unsafe.Slice((*Slot)(unsafe.Pointer(&mem[slotsOff])), nslots)
	r.sq = unsafe.Slice((*sqCell)(unsafe.Pointer(&mem[sqOff])), nslots)
	r.cq = unsafe.Slice((*cqCell)(unsafe.Pointer(&mem[cqOff])), defaultCompletions)
	if mapOff != 0 {
		r.cmap = unsafe.Slice((*mapEntry)(unsafe.Pointer(&mem[mapOff])), mapN)
	}
	for i, d := range cfg.Devices {
		if resOff[i] != 0 {
			r.res[i] = unsafe.Slice((*atomic.Uint64)(unsafe.Pointer(&mem[resOff[i]])), (d.Pages+63)/64)
		}
	}
	for i := range r.sq {
		r.sq[i].seq.Store(uint64(i))
	}
	for i := range r.cq {
		r.cq[i].seq.Store(uint64(i))
	}
	h := r.h
	h.version, h.headerSize = ringVersion, uint32(unsafe.Sizeof(header{}))
	h.nslots, h.ncq, h.ndevices = uint32(nslots), defaultCompletions, uint32(len(cfg.Devices))
	h.serverPID = int32(os.Getpid())
	if cfg.NoSpin {
		h.flags |= flagNoSpin
	}
	def := DefaultTuning()
	tu := cfg.Tuning
	if tu == (Tuning{}) {
		tu = def
	}
	h.maxSpinners = uint32(tu.MaxSpinners)
	h.spinWindow = int64(tu.SpinWindow)
	h.answerSpin = int64(tu.AnswerSpin)
	h.lead.Store(int64(defaultInitialLead))
	h.slotsOff, h.sqOff, h.cqOff, h.totalSize = uint64(slotsOff), uint64(sqOff), uint64(cqOff), uint64(total)
	if mapOff != 0 {
		h.mapOff, h.mapN, h.mapChunk = uint64(mapOff), uint32(mapN), cfg.Chunk
	}
	for i, d := range cfg.Devices {
		e := &h.dev[i]
		copy(e.dir[:], d.Dir)
		e.dirLen = uint32(len(d.Dir))
		if resOff[i] != 0 {
			e.resOff, e.resPages, e.page = uint64(resOff[i]), d.Pages, d.Page
		}
		if d.NoBackingSync {
			e.flags |= devNoBackingSync
		}
	}
	// the magic last: a client that maps a half-made ring refuses it
	atomic.StoreUint64(&h.magic, ringMagic)
	return r, nil
}

// Path is the ring's file, for clients (the TIERBENCH_RING variable).
func (r *Ring) Path() string { return r.path }

// Close unmaps the ring and removes its file. Clients still attached keep their
// mapping (the file is gone, the memory stays until they unmap it).
func (r *Ring) Close() error {
	if r.mem == nil {
		return nil
	}
	err := syscall.Munmap(r.mem)
	r.mem, r.h = nil, nil
	return errors.Join(err, os.RemoveAll(r.dir), r.lock.Release())
}

// ringPrefix begins a ring directory's name.
const ringPrefix = "tierbench-ring-"

// removeDeadRings removes the rings under parent whose creator died without removing
// its own (killed with SIGKILL, they stayed in /dev/shm): a ring's creator holds its
// lock for the ring's life, so a ring whose lock can be taken has no owner. A
// directory without a lock file (a ring of an older version, or one being created) is
// left alone.
func removeDeadRings(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), ringPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if _, err := os.Stat(filepath.Join(dir, rundir.LockFile)); err != nil {
			continue
		}
		lock, err := rundir.Acquire(dir, "tierbench (pid "+strconv.Itoa(os.Getpid())+"): removing a dead process's preload ring")
		if err != nil {
			continue
		}
		os.RemoveAll(dir)
		lock.Release()
	}
}

// NextSubmission takes the next queued request, if any.
func (r *Ring) NextSubmission() (*Slot, bool) {
	h := r.h
	pos := h.sqTail.Load()
	c := &r.sq[pos&uint64(len(r.sq)-1)]
	if c.seq.Load() != pos+1 {
		return nil, false
	}
	s := &r.slots[c.slot&uint32(len(r.slots)-1)]
	h.sqTail.Store(pos + 1)
	c.seq.Store(pos + uint64(len(r.sq)))
	return s, true
}

// Answer gives a request its deadline (CLOCK_MONOTONIC ns) and wakes its client if it
// sleeps.
func (r *Ring) Answer(s *Slot, deadline int64) {
	s.deadline = deadline
	s.state.Store(slotAnswered)
	if s.waiting.Load() != 0 {
		futex(&s.state, futexWake, 1, nil)
	}
}

// NextCompletion takes the next completion record, if any.
func (r *Ring) NextCompletion() (Completion, bool) {
	h := r.h
	pos := h.cqTail.Load()
	c := &r.cq[pos&uint64(len(r.cq)-1)]
	if c.seq.Load() != pos+1 {
		return Completion{}, false
	}
	out := Completion{Dev: c.dev, Op: c.op, Uncounted: c.flags&reqUncounted != 0, Correction: c.flags&reqLate != 0, Size: c.size,
		Latency: time.Duration(c.lat), Late: time.Duration(c.late), Hit: c.flags&reqHit != 0}
	if out.Hit {
		out.HitRead = HitRead{File: c.file, Off: c.off, FileSize: c.fileSize, Arrive: c.arrive}
	}
	h.cqTail.Store(pos + 1)
	c.seq.Store(pos + uint64(len(r.cq)))
	return out, true
}

// Idle says whether both queues are empty.
func (r *Ring) Idle() bool {
	h := r.h
	sp, cp := h.sqTail.Load(), h.cqTail.Load()
	return r.sq[sp&uint64(len(r.sq)-1)].seq.Load() != sp+1 && r.cq[cp&uint64(len(r.cq)-1)].seq.Load() != cp+1
}

// Sleep parks the consumer until a client rings the doorbell or timeout passes.
func (r *Ring) Sleep(timeout time.Duration) {
	h := r.h
	bell := h.doorbell.Load()
	h.sleeping.Store(1)
	if r.Idle() {
		ts := syscall.NsecToTimespec(int64(timeout))
		futex(&h.doorbell, futexWait, bell, &ts)
	}
	h.sleeping.Store(0)
}

// SetContended tells clients whether the host has more runnable threads than CPUs:
// then nobody busy-waits, since a spinning thread on a loaded host uses up its share
// of the CPU and is descheduled for milliseconds, where a sleeper is woken at once.
func (r *Ring) SetContended(on bool) {
	v := uint32(0)
	if on {
		v = 1
	}
	if r.h.contended.Load() != v {
		r.h.contended.Store(v)
	}
}

// SetRealtimeConsumer tells clients that the consumer runs at a real-time priority:
// it answers within microseconds even on a contended host, so a client there still
// busy-waits answer_spin for its answer before it sleeps.
//
// The header's word is 1 while the consumer is real-time and 2 once it has been and
// no longer is (a host no longer contended), so that Health still says it ran so.
func (r *Ring) SetRealtimeConsumer(on bool) {
	switch {
	case on:
		r.h.rtConsumer.Store(1)
	case r.h.rtConsumer.Load() != 0:
		r.h.rtConsumer.Store(2)
	}
}

// Spinners is how many clients busy-wait for their deadlines now.
func (r *Ring) Spinners() int { return int(r.h.spinners.Load()) }

// Contended is what SetContended last said.
func (r *Ring) Contended() bool { return r.h.contended.Load() != 0 }

// Wake ends a Sleep (to stop the consumer).
func (r *Ring) Wake() {
	r.h.doorbell.Add(1)
	futex(&r.h.doorbell, futexWake, 1, nil)
}

// Health reads the ring's shared counters.
func (r *Ring) Health() Health {
	h := r.h
	out := Health{Attached: int64(h.attached.Load()), FullWaits: int64(h.fullWaits.Load()),
		SlowAnswers: int64(h.slowAnswers.Load()), Unseen: int64(h.unseen.Load()),
		RealtimeConsumer: h.rtConsumer.Load() != 0}
	if h.failed.Load() != 0 {
		out.Failed = cString(h.msg[:])
	}
	if out.Unseen > 0 {
		out.UnseenFirst = cString(h.unseenMsg[:])
	}
	return out
}

// Publish tells clients that chunk chunk of file (file offset chunk*Chunk) lies at
// device chunk dchunk of device dev. An entry is written once, its file word last,
// and never changes but for Unpublish. It returns false when the map has no room
// near the chunk's place (the chunk's reads then always ask).
func (r *Ring) Publish(dev int, file uint64, chunk, dchunk int64) bool {
	if len(r.cmap) == 0 || file == 0 || file == mapGone {
		return false
	}
	r.pub.Lock()
	defer r.pub.Unlock()
	mask := uint64(len(r.cmap) - 1)
	h := mapHash(file, chunk)
	for i := range uint64(mapProbes) {
		e := &r.cmap[(h+i)&mask]
		switch f := e.file.Load(); {
		case f == file && e.chunk == chunk:
			return e.dchunk == dchunk && e.dev == uint32(dev)
		case f == 0:
			e.chunk, e.dchunk, e.dev = chunk, dchunk, uint32(dev)
			e.file.Store(file)
			return true
		}
	}
	r.unpublished.Add(1)
	return false
}

// Unpublish withdraws device dev's chunks from the map and its pages from its
// bitmap (the device starts afresh). The pages go first: a client that read a
// withdrawn entry finds none of its pages and asks.
func (r *Ring) Unpublish(dev int) {
	for i := range r.res[dev] {
		r.res[dev][i].Store(0)
	}
	r.pub.Lock()
	defer r.pub.Unlock()
	for i := range r.cmap {
		e := &r.cmap[i]
		if f := e.file.Load(); f != 0 && f != mapGone && e.dev == uint32(dev) {
			e.file.Store(mapGone)
		}
	}
}

// SetResident marks page p of device dev as held by its page cache model with its
// data there (on) or not. Pages beyond the bitmap are ignored: their reads ask.
func (r *Ring) SetResident(dev int, p int64, on bool) {
	b := r.res[dev]
	if p < 0 || p/64 >= int64(len(b)) {
		return
	}
	bit := uint64(1) << (p % 64)
	if on {
		b[p/64].Or(bit)
	} else {
		b[p/64].And(^bit)
	}
}

// Resident says whether page p of device dev is marked.
func (r *Ring) Resident(dev int, p int64) bool {
	b := r.res[dev]
	if p < 0 || p/64 >= int64(len(b)) {
		return false
	}
	return b[p/64].Load()&(1<<(p%64)) != 0
}

// SetWriteBudget says how many pages buffered writes to device dev may dirty without
// asking: its page cache model's dirty limit less its dirty pages (0: every write
// asks). Clients take their pages from it; the server sets it afresh as the model's
// dirty pages change.
func (r *Ring) SetWriteBudget(dev int, pages int64) { r.h.dev[dev].writeBudget.Store(max(pages, 0)) }

// WriteBudget is what is left of device dev's write budget.
func (r *Ring) WriteBudget(dev int) int64 { return r.h.dev[dev].writeBudget.Load() }

// Unpublished is how many chunks the map had no room for.
func (r *Ring) Unpublished() int64 { return r.unpublished.Load() }

// Inflight is device dev's requests admitted and not yet completed.
func (r *Ring) Inflight(dev int) int { return int(r.h.dev[dev].inflight.Load()) }

// SetNoBackingSync changes whether device dev's flushes also sync the backing file.
func (r *Ring) SetNoBackingSync(dev int, on bool) {
	if on {
		r.h.dev[dev].flags |= devNoBackingSync
	} else {
		r.h.dev[dev].flags &^= devNoBackingSync
	}
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func futex(addr *atomic.Uint32, op, val uint32, ts *syscall.Timespec) {
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), uintptr(op), uintptr(val),
		uintptr(unsafe.Pointer(ts)), 0, 0)
}
