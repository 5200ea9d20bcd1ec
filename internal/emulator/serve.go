//go:build linux

package emulator

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"tierbench/internal/device"
)

// serveConfig is what Start hands the server process (as a JSON file).
type serveConfig struct {
	Path          string   `json:"path,omitempty"` // PathFUSE or PathPreload
	Devices       []Device `json:"devices"`
	Profiles      []string `json:"profiles,omitempty"`
	StateDir      string   `json:"state_dir"`
	NoFloor       bool     `json:"no_floor,omitempty"`
	NoCompensate  bool     `json:"no_compensate,omitempty"`
	NoBackingSync bool     `json:"no_backing_sync,omitempty"`
	AllowTooFast  bool     `json:"allow_too_fast,omitempty"`
	NoSpin        bool     `json:"no_spin,omitempty"`
}

// serverMessage is one line the server writes on its stdout: first Ready (or Error),
// and when it has unmounted, Final.
type serverMessage struct {
	Ready *readyInfo `json:"ready,omitempty"`
	Error string     `json:"error,omitempty"`
	// TooFast and NoFUSE carry what Error wraps, for Start to return as data.
	TooFast   *TooFastError `json:"too_fast,omitempty"`
	NoFUSE    bool          `json:"no_fuse,omitempty"`
	NoPreload bool          `json:"no_preload,omitempty"`
	Final     []DeviceStats `json:"final,omitempty"`
}

// failure is the message of a server that could not mount: the error's text and the
// data it carries.
func failure(err error) serverMessage {
	msg := serverMessage{Error: err.Error(), NoFUSE: errors.Is(err, ErrNoFUSE), NoPreload: errors.Is(err, ErrNoPreload)}
	errors.As(err, &msg.TooFast)
	return msg
}

type readyInfo struct {
	PID    int    `json:"pid"`
	Socket string `json:"socket"`
	// Ring is the preload ring's file (PathPreload).
	Ring    string        `json:"ring,omitempty"`
	Devices []DeviceStats `json:"devices"`
}

// mounted is one device being served: a FUSE mount (server) or a device of the
// preload ring (ring, at index ringIdx).
type mounted struct {
	cfg     Device
	dev     *timedDevice
	server  *fuse.Server
	ring    *ringServer
	ringIdx int
}

// Serve is the server process (`tierbench device serve`): it mounts the devices of the
// config file, answers stats on a unix socket, and unmounts when ctx ends or stdin
// closes (the parent died or called Stop). It reports on stdout as Start expects.
func Serve(ctx context.Context, configPath string, stdin io.Reader, stdout io.Writer) error {
	out := json.NewEncoder(stdout)
	fail := func(err error) error {
		out.Encode(failure(err))
		return err
	}
	raw, err := os.ReadFile(configPath)
	if err != nil {
		return fail(fmt.Errorf("emulator config: %w", err))
	}
	// read once: removing it now leaves nothing behind whoever dies first
	os.Remove(configPath)
	var cfg serveConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return fail(fmt.Errorf("emulator config %s: %w", configPath, err))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if stdin != nil {
		go func() {
			io.Copy(io.Discard, stdin)
			cancel()
		}()
	}

	var ms []*mounted
	defer func() {
		// on every way out: unmount, close traces, report the final counters
		final := unmountAll(ms)
		out.Encode(serverMessage{Final: final})
	}()
	ms, err = mountAll(cfg)
	if err != nil {
		return fail(err)
	}
	sock := filepath.Join(cfg.StateDir, fmt.Sprintf("%d.sock", os.Getpid()))
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return fail(fmt.Errorf("emulator control socket: %w", err))
	}
	defer os.Remove(sock)
	defer ln.Close()
	go serveControl(ln, ms, cfg)

	ready := &readyInfo{PID: os.Getpid(), Socket: sock}
	if len(ms) > 0 && ms[0].ring != nil {
		ready.Ring = ms[0].ring.ring.Path()
	}
	for _, m := range ms {
		ready.Devices = append(ready.Devices, m.stats())
	}
	if err := out.Encode(serverMessage{Ready: ready}); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

func (m *mounted) stats() DeviceStats {
	s := m.dev.stats()
	s.MountPoint = m.cfg.MountPoint
	s.Trace = m.cfg.Trace
	s.FloorUs = m.dev.floorUs
	s.TooFast = m.dev.tooFast
	s.SelfCalPending = m.dev.selfCalPending()
	s.Path = PathFUSE
	if m.ring != nil {
		s.Path = PathPreload
		s.MountPoint = m.cfg.BackingDir
		// The device's count is of the requests admitted whose deadlines are ahead;
		// the ring's, of those queued and not yet back in their clients: one not yet
		// admitted is only in the ring's.
		s.QueueDepth = max(s.QueueDepth, int64(m.ring.ring.Inflight(m.ringIdx)))
		h := m.ring.ring.Health()
		s.Ring = &h
	}
	return s
}

func mountAll(cfg serveConfig) ([]*mounted, error) {
	if cfg.Path == PathPreload {
		return startPreload(cfg)
	}
	if err := CheckFUSE(); err != nil {
		return nil, err
	}
	reg, err := device.Load(cfg.Profiles...)
	if err != nil {
		return nil, err
	}
	var ms []*mounted
	for _, d := range cfg.Devices {
		m, err := mountOne(reg, d, cfg)
		if err != nil {
			unmountAll(ms)
			return nil, fmt.Errorf("device %s: %w", d.Name, err)
		}
		ms = append(ms, m)
	}
	return ms, nil
}

func mountOne(reg *device.Registry, d Device, cfg serveConfig) (*mounted, error) {
	model, err := buildModel(reg, d.Spec)
	if err != nil {
		return nil, err
	}
	for _, dir := range []string{d.BackingDir, d.MountPoint} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	if isMounted(d.MountPoint) {
		return nil, fmt.Errorf("%s is already an emulator mount of a running server: stop it first", d.MountPoint)
	}
	td := newTimedDevice(d.Name, d.Spec, model)
	td.noBackingSync = cfg.NoBackingSync
	td.noSpin = cfg.NoSpin
	root, err := newRoot(d.BackingDir, td)
	if err != nil {
		return nil, err
	}
	sec := time.Second
	opts := &fs.Options{
		EntryTimeout: &sec,
		AttrTimeout:  &sec,
		MountOptions: fuse.MountOptions{
			// PostgreSQL and MariaDB run as their own users; the kernel checks
			// permissions against the backing files' modes (default_permissions).
			AllowOther:    true,
			Options:       []string{"default_permissions"},
			Name:          "tierbench",
			FsName:        mountSource(os.Getpid(), d.Name),
			MaxWrite:      fuse.MAX_KERNEL_WRITE,
			MaxBackground: 128,
			DirectMount:   true,
			// replies carry data already read (the backing read happens before the
			// model's wait), so there is nothing to splice
			DisableSplice: true,
			// mmap of a direct-I/O file (SQLite's -shm) works only with this capability
			ExtraCapabilities:    fuse.CAP_DIRECT_IO_ALLOW_MMAP | fuse.CAP_ASYNC_DIO,
			DisabledCapabilities: fuse.CAP_PASSTHROUGH,
		},
	}
	if os.Geteuid() != 0 && !userAllowOther() {
		opts.AllowOther = false
	}
	server, err := fs.Mount(d.MountPoint, root, opts)
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", d.MountPoint, err)
	}
	m := &mounted{cfg: d, dev: td, server: server}
	if !cfg.NoFloor {
		if err := calibrateMount(reg, d, cfg, td); err != nil {
			server.Unmount()
			return nil, err
		}
	}
	// The model's clock starts now, after the server's own probes (or after the
	// client's self-calibration, which resets it again).
	td.real = model
	if !td.selfCalPending() {
		td.reset(model)
	}
	if d.Trace != "" {
		tw, err := CreateTrace(d.Trace, TraceHeader{Device: d.Name, Spec: d.Spec, Recorded: time.Now().UTC()})
		if err != nil {
			server.Unmount()
			return nil, err
		}
		td.mu.Lock()
		td.trace = tw
		td.mu.Unlock()
	}
	return m, nil
}

// calibrateMount measures the mount's floor, sets the compensation and refuses a
// device faster than the floor (unless allowed). For a fast device it then measures the
// residual on a scratch model and adds it to the compensation.
func calibrateMount(reg *device.Registry, d Device, cfg serveConfig, td *timedDevice) error {
	floor, readPerMiB, writePerMiB, err := measureFloor(d.MountPoint, td)
	if err != nil {
		return fmt.Errorf("latency floor: %w", err)
	}
	td.floorUs = float64(floor.Nanoseconds()) / 1e3
	if cfg.NoCompensate {
		return nil
	}
	td.compensation, td.compPerMiB = floor, [2]time.Duration{readPerMiB, writePerMiB}
	if d.Spec == NullSpec {
		return nil
	}
	fig, err := reg.Characterize(d.Spec)
	if err != nil {
		return nil // a model without a capacity: nothing to compare with
	}
	if fig.RandRead8KQD1 < time.Duration(tooFastFactor*float64(floor)) {
		td.tooFast = true
		if !cfg.AllowTooFast {
			return &TooFastError{Device: d.Name, Spec: d.Spec, Read8K: fig.RandRead8KQD1, Floor: floor}
		}
		return nil
	}
	if fig.RandRead8KQD1 > selfCalibrateBelow {
		return nil
	}
	// A fast device: the client measures the rest from its own process (see
	// selfcal.go); until then a scratch model serves the mount.
	scratch, err := buildModel(reg, d.Spec)
	if err != nil {
		return err
	}
	return td.beginSelfCal(d.BackingDir, scratch, fig.RandRead8KQD1)
}

// selfCalibrateBelow: devices slower than this (disks) get the floor compensation only;
// a residual of tens of microseconds is lost in their milliseconds.
const selfCalibrateBelow = 2 * time.Millisecond

// tooFastFactor: a device whose random 8 KiB read takes less than this many floors is
// refused. The floor is compensated, but it is a median: its spread, and a CPU waking
// from idle, are of the floor's own size, so a device within twice the floor would be
// reported with errors of tens of percent.
const tooFastFactor = 2.0

func userAllowOther() bool {
	b, err := os.ReadFile("/etc/fuse.conf")
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if sc.Text() == "user_allow_other" {
			return true
		}
	}
	return false
}

func unmountAll(ms []*mounted) []DeviceStats {
	var wg sync.WaitGroup
	for _, m := range ms {
		if m.ring != nil {
			// counted after every queued completion, as a mount is after its unmount
			m.ring.close()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.server.Unmount(); err != nil {
				unmount(m.cfg.MountPoint)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		// a hung unmount (a process stuck in the file system): detach instead
		for _, m := range ms {
			if m.server != nil {
				unmount(m.cfg.MountPoint)
			}
		}
	}
	// counted after the unmount, so every request the kernel sent is in
	var final []DeviceStats
	for _, m := range ms {
		final = append(final, m.stats())
	}
	for _, m := range ms {
		m.dev.mu.Lock()
		if m.dev.trace != nil {
			m.dev.trace.Close()
			m.dev.trace = nil
		}
		m.dev.mu.Unlock()
	}
	if len(ms) > 0 && ms[0].ring != nil {
		ms[0].ring.ring.Close()
	}
	return final
}

// serveControl answers "stats" with one line of JSON, the devices' counters.
func serveControl(ln net.Listener, ms []*mounted, cfg serveConfig) {
	reg, _ := device.Load(cfg.Profiles...) // loaded once already by mountAll
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			r := bufio.NewReader(c)
			enc := json.NewEncoder(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				switch {
				case strings.HasPrefix(line, "selfcal "):
					enc.Encode(finishSelfCal(ms, []byte(line[len("selfcal "):])))
				case strings.HasPrefix(line, "floor "):
					enc.Encode(setFloor(ms, reg, cfg, []byte(line[len("floor "):])))
				case line == "stats\n":
					if len(ms) > 0 && ms[0].ring != nil {
						ms[0].ring.drain()
					}
					var st []DeviceStats
					for _, m := range ms {
						st = append(st, m.stats())
					}
					enc.Encode(st)
				default:
					enc.Encode(map[string]string{"error": "unknown command"})
				}
			}
		}()
	}
}
