//go:build linux

package emulator

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"tierbench/internal/device"
)

// Self-calibration measures what the floor does not cover: random 8 KiB O_DIRECT reads
// at queue depth 1 through the mount on a scratch model, issued by another process (the
// client, as the database will be), compared with the scratch model's own latencies.
// The difference is mostly a CPU waking from idle while the program waits (tens of
// microseconds on a virtual machine), which the server's in-process floor probe never
// sees: Go's scheduler keeps its own CPUs awake. It matters only for fast devices.

const selfCalFile = ".tierbench-selfcal"

// selfCalRequest is the client's report: its latencies, request by request.
type selfCalRequest struct {
	Device string          `json:"device"`
	AppNs  []time.Duration `json:"app_ns"`
}

type selfCalReply struct {
	Error    string        `json:"error,omitempty"`
	Residual time.Duration `json:"residual_ns"`
}

// beginSelfCal serves the mount from scratch and makes the probe file.
func (d *timedDevice) beginSelfCal(backing string, scratch device.Model, limit time.Duration) error {
	path := filepath.Join(backing, selfCalFile)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return err
	}
	if err := os.Truncate(path, 64<<20); err != nil {
		return err
	}
	d.reset(scratch)
	d.mu.Lock()
	d.selfCal = &selfCalState{path: path, limit: limit}
	d.mu.Unlock()
	return nil
}

func (d *timedDevice) selfCalPending() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.selfCal != nil
}

// finishSelfCal takes the client's latencies, sets the compensation and puts the real
// model in place.
func finishSelfCal(ms []*mounted, line []byte) selfCalReply {
	var req selfCalRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return selfCalReply{Error: err.Error()}
	}
	for _, m := range ms {
		if m.cfg.Name != req.Device {
			continue
		}
		d := m.dev
		d.mu.Lock()
		sc := d.selfCal
		d.selfCal = nil
		d.mu.Unlock()
		if sc == nil {
			return selfCalReply{Error: "no self-calibration pending on " + req.Device}
		}
		os.Remove(sc.path)
		var residual []time.Duration
		for i, app := range req.AppNs {
			if i < len(sc.modelLat) {
				residual = append(residual, app-sc.modelLat[i])
			}
		}
		var r time.Duration
		if len(residual) > 0 {
			// the median: a request delayed by another process's burst says nothing
			// about the mount
			slices.Sort(residual)
			r = residual[len(residual)/2]
		}
		d.mu.Lock()
		d.compensation = min(max(d.compensation+r, 0), sc.limit)
		d.mu.Unlock()
		d.reset(d.real)
		return selfCalReply{Residual: r}
	}
	return selfCalReply{Error: "no device " + req.Device}
}

// selfCalibrate is the client's side: reads through the mount, then the report.
func (e *Emulator) selfCalibrate(name, mountPoint string) error {
	path := filepath.Join(mountPoint, selfCalFile)
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECT, 0)
	if err != nil {
		return err
	}
	buf := alignedBuffer(8 << 10)
	rng := rand.New(rand.NewPCG(1, 2))
	const warmup, n = 30, 300
	req := selfCalRequest{Device: name}
	deadline := time.Now().Add(300 * time.Millisecond)
	for i := 0; i < warmup+n && time.Now().Before(deadline); i++ {
		t := time.Now()
		if _, err := syscall.Pread(fd, buf, rng.Int64N(64<<20/8192)*8192); err != nil {
			syscall.Close(fd)
			return err
		}
		req.AppNs = append(req.AppNs, time.Since(t))
	}
	syscall.Close(fd)
	// the server recorded every request; drop the warm-up on both sides
	var reply selfCalReply
	if err := e.control("selfcal", req, &reply); err != nil {
		return err
	}
	if reply.Error != "" {
		return fmt.Errorf("self-calibration of %s: %s", name, reply.Error)
	}
	return nil
}
