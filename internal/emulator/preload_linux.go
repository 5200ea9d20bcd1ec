//go:build linux

package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"tierbench/internal/device"
	"tierbench/internal/emulator/preload"
)

// startPreload serves cfg's devices over one preload ring: no mounts; the database
// uses each device's backing directory, and its processes time their own I/O there.
func startPreload(cfg serveConfig) ([]*mounted, error) {
	reg, err := device.Load(cfg.Profiles...)
	if err != nil {
		return nil, err
	}
	tune, err := preload.TuningFromEnv()
	if err != nil {
		return nil, err
	}
	var ms []*mounted
	var devs []*timedDevice
	var rdevs []preload.Device
	for i, d := range cfg.Devices {
		model, err := buildModel(reg, d.Spec)
		if err != nil {
			return nil, fmt.Errorf("device %s: %w", d.Name, err)
		}
		if err := os.MkdirAll(d.BackingDir, 0o755); err != nil {
			return nil, fmt.Errorf("device %s: %w", d.Name, err)
		}
		// The clients compare the canonical path of every file they open with this.
		dir, err := filepath.EvalSymlinks(d.BackingDir)
		if err != nil {
			return nil, preloadUnavailable(fmt.Errorf("device %s: resolve %s: %w", d.Name, d.BackingDir, err))
		}
		for _, o := range rdevs {
			if strings.HasPrefix(dir+"/", o.Dir+"/") || strings.HasPrefix(o.Dir+"/", dir+"/") {
				return nil, preloadUnavailable(fmt.Errorf("device %s: its directory %s and another device's %s contain each other: the files could not be told apart",
					d.Name, dir, o.Dir))
			}
		}
		td := newTimedDevice(d.Name, d.Spec, model)
		td.noSpin = cfg.NoSpin
		td.noBackingSync = cfg.NoBackingSync
		td.viaRing = true
		devs = append(devs, td)
		rd := preload.Device{Dir: dir, NoBackingSync: cfg.NoBackingSync}
		if pc, ok := model.(*device.PageCache); ok && !tune.NoFastHits && chunkSize%pc.PageBytes() == 0 {
			rd.Page = pc.PageBytes()
			rd.Pages = residentBytes / rd.Page
		}
		rdevs = append(rdevs, rd)
		ms = append(ms, &mounted{cfg: d, dev: td, ringIdx: i})
	}
	ring, err := preload.Create("", preload.Config{Devices: rdevs, NoSpin: cfg.NoSpin, Tuning: tune, Chunk: chunkSize})
	if err != nil {
		return nil, preloadUnavailable(err)
	}
	for i, rd := range rdevs {
		if rd.Pages > 0 {
			devs[i].res = newResidency(ring, i, nil) // watching from the reset below
		}
	}
	rs := startRingServer(ring, devs, tune)
	for _, m := range ms {
		m.ring = rs
	}
	fail := func(err error) ([]*mounted, error) {
		rs.close()
		ring.Close()
		return nil, err
	}
	for _, m := range ms {
		m.dev.reset(m.dev.model)
		if m.cfg.Trace != "" {
			tw, err := CreateTrace(m.cfg.Trace, TraceHeader{Device: m.cfg.Name, Spec: m.cfg.Spec, Recorded: time.Now().UTC()})
			if err != nil {
				return fail(err)
			}
			m.dev.mu.Lock()
			m.dev.trace = tw
			m.dev.mu.Unlock()
		}
	}
	return ms, nil
}

// preloadFloor is Start's side of the floor on the preload path: 4 KiB reads at queue
// depth 1 from this process (another process than the server, as the database's are)
// through the ring's client code, answered at once with no model: a real fstat and
// pread and a round trip through the ring. The smallest of three medians per device;
// the server takes it (the "floor" command) and refuses a device too fast for it.
func (e *Emulator) preloadFloor() error {
	c, err := preload.Attach(e.ring)
	if err != nil {
		return preloadUnavailable(err)
	}
	c.Forget()
	defer c.Detach()
	for i, d := range e.devices {
		path := filepath.Join(d.MountPoint, fmt.Sprintf(".tierbench-floor-%d", os.Getpid()))
		if err := os.WriteFile(path, make([]byte, 1<<20), 0o600); err != nil {
			return err
		}
		fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
		if err != nil {
			os.Remove(path)
			return err
		}
		buf := make([]byte, 4<<10)
		var floor time.Duration
		for range 3 {
			var h Histogram
			for j := range 230 {
				t := time.Now()
				if _, err := c.Pread(i, fd, buf, int64(j%16)*4096, preload.IOFlags{Uncounted: true}); err != nil {
					syscall.Close(fd)
					os.Remove(path)
					return err
				}
				if j >= 30 {
					h.Record(time.Since(t))
				}
			}
			if f := h.Quantile(0.5); floor == 0 || f < floor {
				floor = f
			}
		}
		syscall.Close(fd)
		os.Remove(path)
		if msg := c.Failed(); msg != "" {
			return fmt.Errorf("preload ring: %s", msg)
		}
		var reply serverMessage
		if err := e.control("floor", floorRequest{Device: d.Name, Floor: floor}, &reply); err != nil {
			return err
		}
		if reply.Error != "" {
			return reply.remoteError()
		}
	}
	st, err := e.Stats()
	if err != nil {
		return err
	}
	e.devices = st
	return nil
}

type floorRequest struct {
	Device string        `json:"device"`
	Floor  time.Duration `json:"floor_ns"`
}

// setFloor is the server's side: the floor of a preload device, its too-fast check,
// and a fresh start of its model's clock.
func setFloor(ms []*mounted, reg *device.Registry, cfg serveConfig, line []byte) serverMessage {
	var req floorRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return failure(err)
	}
	for _, m := range ms {
		if m.cfg.Name != req.Device || m.ring == nil {
			continue
		}
		m.dev.mu.Lock()
		m.dev.floorUs = us(req.Floor)
		m.dev.mu.Unlock()
		if err := checkFastEnough(reg, cfg, m.cfg, m.dev, req.Floor); err != nil {
			return failure(fmt.Errorf("device %s: %w", m.cfg.Name, err))
		}
		m.dev.reset(m.dev.model)
		return serverMessage{}
	}
	return failure(errors.New("no preload device " + req.Device))
}

// checkFastEnough refuses a device whose random 8 KiB read takes less than the path's
// floor (unless allowed), as calibrateMount does for a mount. The factor is 1, not a
// mount's tooFastFactor: nothing is subtracted on this path, whose own time is spent
// inside the model's, so a device slower than the floor's median is served right at
// the median.
func checkFastEnough(reg *device.Registry, cfg serveConfig, d Device, td *timedDevice, floor time.Duration) error {
	if d.Spec == NullSpec {
		return nil
	}
	fig, err := reg.Characterize(d.Spec)
	if err != nil {
		return nil // a model without a capacity: nothing to compare with
	}
	if fig.RandRead8KQD1 >= floor {
		return nil
	}
	td.tooFast = true
	if cfg.AllowTooFast {
		return nil
	}
	return &TooFastError{Device: d.Name, Spec: d.Spec, Path: PathPreload, Read8K: fig.RandRead8KQD1, Floor: floor}
}
