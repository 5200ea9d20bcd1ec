package emulator

import (
	"sync"
	"time"

	"tierbench/internal/device"
	"tierbench/internal/emulator/preload"
)

// timedDevice puts a model on the wall clock. Virtual time 0 is the moment the device
// was mounted; a request arriving at wall time w is submitted at virtual w (never
// earlier than the previous submission: models want non-decreasing times) and the FUSE
// handler replies when the model says it completes. The model is behind a mutex; the
// sleeping is not.
type timedDevice struct {
	name, spec string
	start      time.Time
	// startMono is start on CLOCK_MONOTONIC in ns: the preload ring's clients stamp
	// requests with that clock.
	startMono int64
	// compensation is subtracted from every completion: the kernel's and go-fuse's own
	// round trip (the floor), which a request spends outside the model, plus
	// compPerMiB[op] for each MiB a read or write carries (the copies in and out of the
	// kernel). Without it every request would take model latency + floor.
	compensation time.Duration
	compPerMiB   [2]time.Duration
	// noBackingSync skips the real fdatasync of the backing file on a flush.
	noBackingSync bool
	noSpin        bool    // sleep even when alone (Options.NoSpin)
	viaRing       bool    // served over the preload ring
	floorUs       float64 // measured at mount
	tooFast       bool

	mu       sync.Mutex
	model    device.Model
	layout   *layout
	last     time.Duration
	bypass   bool // floor measurement: no model, no counting
	trace    *TraceWriter
	inflight int64
	// due holds the deadlines (CLOCK_MONOTONIC ns) of the requests the preload ring
	// admitted, until they pass: a ring client counts itself out of the ring's
	// in-flight count before it sleeps to its deadline (preload/client.h, tb_complete),
	// so only the deadlines say which requests are still in the device.
	due      []int64
	maxQD    int64
	qdArea   time.Duration // integral of queue depth over virtual time (QD x ns)
	qdAt     time.Duration // when qdArea was last advanced
	counts   opCounts
	lat      [3]Histogram  // by device.Op
	late     Histogram     // preload: how long after its deadline each request returned
	modelLat time.Duration // sum of the model's latencies
	selfCal  *selfCalState // pending self-calibration (selfcal.go)
	real     device.Model  // the model to serve once self-calibration is done
	// res publishes the page cache model to the preload ring's clients (residency.go);
	// nil on a mount, and on a device whose model is not a page cache on top.
	res *residency
}

// selfCalState is a pending self-calibration (selfcal.go).
type selfCalState struct {
	path     string
	limit    time.Duration   // the compensation may not exceed the device's own latency
	modelLat []time.Duration // per request, in arrival order
}

type opCounts struct {
	reads, writes, flushes int64
	readBytes, writeBytes  int64
}

func newTimedDevice(name, spec string, m device.Model) *timedDevice {
	return &timedDevice{name: name, spec: spec, model: m, layout: newLayout(), start: time.Now(), startMono: monoNow()}
}

// now is the virtual time of the wall clock.
func (d *timedDevice) now() time.Duration { return time.Since(d.start) }

// openFile lays out a file the first time it is opened.
func (d *timedDevice) openFile(file uint64, size int64) {
	d.mu.Lock()
	if d.bypass {
		d.mu.Unlock()
		return
	}
	d.layout.open(file, size)
	d.mu.Unlock()
}

// do submits r (r.Offset a file offset in a file of fileSize bytes) to the model, runs
// the real I/O, then waits for the model's completion time. It returns io's error.
func (d *timedDevice) do(r device.Request, fileSize int64, io func() error) error {
	arrive := time.Now()
	d.mu.Lock()
	if d.bypass {
		d.mu.Unlock()
		return io()
	}
	at := max(arrive.Sub(d.start), d.last)
	done := d.submitLocked(at, r, fileSize)
	d.advanceQD(at)
	d.inflight++
	d.maxQD = max(d.maxQD, d.inflight)
	// alone on the device: its own precise sleep (and spin); else the shared waker
	alone := d.inflight == 1
	comp := d.compensation
	if int(r.Op) < len(d.compPerMiB) {
		comp += time.Duration(float64(d.compPerMiB[r.Op]) * float64(r.Size) / (1 << 20))
	}
	deadline := d.start.Add(done - comp)
	d.mu.Unlock()

	err := io()
	if alone {
		sleepUntil(deadline, !d.noSpin)
	} else {
		waitUntil(deadline)
	}

	lat := time.Since(arrive)
	d.mu.Lock()
	d.advanceQD(time.Since(d.start))
	d.inflight--
	d.countLocked(r.Op, r.Size, lat)
	d.mu.Unlock()
	return err
}

// submitLocked hands r (a file offset in a file of fileSize bytes before the request)
// to the model at virtual time at, which is no earlier than the last submission, and
// returns its completion. A write past the file's end grows the file, and its bytes
// there are the request's Unwritten (a page cache reads nothing for them). d.mu is
// held.
func (d *timedDevice) submitLocked(at time.Duration, r device.Request, fileSize int64) time.Duration {
	d.last = at
	if r.Op == device.OpWrite && r.Offset+r.Size > fileSize {
		r.Unwritten = r.Offset + r.Size - max(fileSize, r.Offset)
		fileSize = r.Offset + r.Size
	}
	if r.Op != device.OpFlush {
		r.Offset = d.layout.device(r.File, r.Offset, fileSize)
	}
	done := d.model.Submit(at, r)
	d.modelLat += done - at
	if d.selfCal != nil {
		d.selfCal.modelLat = append(d.selfCal.modelLat, done-at)
	}
	if d.trace != nil && d.selfCal == nil {
		d.trace.Add(at, r)
	}
	return done
}

// countLocked counts a completed request of size bytes that took lat. d.mu is held.
func (d *timedDevice) countLocked(op device.Op, size int64, lat time.Duration) {
	switch op {
	case device.OpRead:
		d.counts.reads++
		d.counts.readBytes += size
	case device.OpWrite:
		d.counts.writes++
		d.counts.writeBytes += size
	case device.OpFlush:
		d.counts.flushes++
	}
	if int(op) < len(d.lat) {
		d.lat[op].Record(lat)
	}
}

// reset starts the device afresh on model m: virtual time 0 now, no counters, an
// empty layout. The server calls it after its own probes, before anyone else uses the
// mount.
func (d *timedDevice) reset(m device.Model) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.model = m
	d.layout = newLayout()
	if d.res != nil {
		pc, _ := m.(*device.PageCache)
		d.res.restart(pc)
		if pc != nil {
			d.layout.mapped = d.res.mapped
		}
	}
	d.start, d.startMono = time.Now(), monoNow()
	d.late = Histogram{}
	d.last, d.qdArea, d.qdAt, d.modelLat = 0, 0, 0, 0
	d.maxQD = 0
	d.counts = opCounts{}
	d.lat = [3]Histogram{}
}

func (d *timedDevice) advanceQD(now time.Duration) {
	if now > d.qdAt {
		d.qdArea += time.Duration(d.inflight) * (now - d.qdAt)
		d.qdAt = now
	}
}

// DeviceStats are one emulated device's counters. Requests are counted when they
// complete; QueueDepth counts those in flight at the moment of the snapshot.
type DeviceStats struct {
	Name       string `json:"name"`
	Spec       string `json:"spec"`
	MountPoint string `json:"mount_point,omitempty"`
	// Elapsed is the time since the mount; Busy the model's busy time (the union of the
	// intervals in which the device served at least one request).
	Elapsed     time.Duration `json:"elapsed_ns"`
	Reads       int64         `json:"reads"`
	Writes      int64         `json:"writes"`
	Flushes     int64         `json:"flushes"`
	ReadBytes   int64         `json:"read_bytes"`
	WriteBytes  int64         `json:"write_bytes"`
	Busy        time.Duration `json:"busy_ns"`
	Utilisation float64       `json:"utilisation"`
	QueueDepth  int64         `json:"queue_depth"`
	MaxQueue    int64         `json:"max_queue_depth"`
	MeanQueue   float64       `json:"mean_queue_depth"`
	// Latency is every request's time in the emulator, arrival to reply; ReadLatency,
	// WriteLatency and FlushLatency split it by operation.
	Latency      Histogram `json:"latency"`
	ReadLatency  Histogram `json:"read_latency"`
	WriteLatency Histogram `json:"write_latency"`
	FlushLatency Histogram `json:"flush_latency"`
	// Model is the model's own counters (cache hits, writebacks); Members the same for
	// every model inside a composite, depth first.
	Model   device.Stats  `json:"model"`
	Members []MemberStats `json:"members,omitempty"`
	// EnergyJ is what the model says the device used over Elapsed.
	EnergyJ float64 `json:"energy_j"`
	// FloorUs is the mount's measured round trip with no model (0: not measured) and
	// Compensation what is subtracted from each completion for it.
	FloorUs      float64       `json:"floor_us,omitempty"`
	Compensation time.Duration `json:"compensation_ns,omitempty"`
	// CompensationPerMiB is added for each MiB of a read ([0]) or write ([1]).
	CompensationPerMiB [2]time.Duration `json:"compensation_per_mib_ns"`
	// TooFast says the model's random 8 KiB read is faster than this host's mount can
	// answer: its latencies are the floor's, not the device's; use trace replay.
	TooFast bool `json:"too_fast,omitempty"`
	// Path is how the database's I/O reaches the model: PathFUSE (a mount) or
	// PathPreload (the shared-memory ring of the LD_PRELOAD shim and the SQLite VFS).
	Path string `json:"path,omitempty"`
	// TimingError (preload) is how long after the model's completion each request
	// returned to its caller: the emulation's own error, request by request.
	TimingError *Histogram `json:"timing_error,omitempty"`
	// Ring (preload) is what the ring's clients reported: processes attached, answers
	// that came late, a failure, calls on the device's files the ring could not time.
	Ring *preload.Health `json:"ring,omitempty"`
	// FastHits (preload) counts the requests a client served itself at a copy's cost
	// (residency.go): buffered reads of pages the page cache model held, buffered
	// writes it would only copy; the model gets them afterwards. Of those,
	// FastHitMisses are the ones the model would have made wait longer (a page
	// evicted between the client's look and the model's turn, a write throttled).
	FastHits      int64 `json:"fast_hits,omitempty"`
	FastHitMisses int64 `json:"fast_hit_misses,omitempty"`
	// SelfCalPending: the mount waits for Start's self-calibration (selfcal.go).
	SelfCalPending bool   `json:"self_calibration_pending,omitempty"`
	Trace          string `json:"trace,omitempty"`
}

// MemberStats are the counters of one model inside a composite.
type MemberStats struct {
	Depth int          `json:"depth"`
	Name  string       `json:"name"`
	Stats device.Stats `json:"stats"`
}

// dueAfterLocked drops the ring's deadlines at or before now and returns how many are
// left: the admitted requests still in the device. d.mu is held.
func (d *timedDevice) dueAfterLocked(now int64) int64 {
	left := d.due[:0]
	for _, at := range d.due {
		if at > now {
			left = append(left, at)
		}
	}
	clear(d.due[len(left):])
	d.due = left
	return int64(len(left))
}

func (d *timedDevice) stats() DeviceStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	d.advanceQD(now)
	s := DeviceStats{
		Name: d.name, Spec: d.spec, Elapsed: now,
		Reads: d.counts.reads, Writes: d.counts.writes, Flushes: d.counts.flushes,
		ReadBytes: d.counts.readBytes, WriteBytes: d.counts.writeBytes,
		QueueDepth: d.inflight + d.dueAfterLocked(monoNow()), MaxQueue: d.maxQD,
		ReadLatency: d.lat[device.OpRead], WriteLatency: d.lat[device.OpWrite],
		FlushLatency:       d.lat[device.OpFlush],
		Model:              d.model.Stats(),
		EnergyJ:            device.Energy(d.model, now),
		Compensation:       d.compensation,
		CompensationPerMiB: d.compPerMiB,
	}
	s.Busy = s.Model.Busy
	if d.viaRing {
		late := d.late
		s.TimingError = &late
	}
	if d.res != nil {
		s.FastHits, s.FastHitMisses = d.res.hits, d.res.misses
	}
	if now > 0 {
		s.Utilisation = min(float64(s.Busy)/float64(now), 1)
		s.MeanQueue = float64(d.qdArea) / float64(now)
	}
	for i := range d.lat {
		s.Latency.Merge(&d.lat[i])
	}
	device.Walk(d.model, func(depth int, m device.Model) {
		if depth > 0 {
			s.Members = append(s.Members, MemberStats{Depth: depth, Name: m.Name(), Stats: m.Stats()})
		}
	})
	return s
}
