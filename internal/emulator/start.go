//go:build linux

package emulator

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"tierbench/internal/exitstatus"
)

// Emulator is a running server process with its mounts.
type Emulator struct {
	path    string // PathFUSE or PathPreload
	ring    string // the preload ring's file
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	socket  string
	devices []DeviceStats
	config  string

	exited  chan struct{}
	mu      sync.Mutex
	final   []DeviceStats
	err     error // from the server's stdout or exit
	waitErr error // how the server process ended
	endedAt time.Time
	once    sync.Once
	stopErr error
	stopped []DeviceStats
}

// Start cleans up mounts left by a server that died, starts a server process for devs
// and waits until every device is mounted. Call Stop to unmount. The server is its own
// process group (a Ctrl-C reaches tierbench, which stops it after the database), and
// dies with its parent (Pdeathsig, and its stdin closing), unmounting as it goes.
func Start(ctx context.Context, devs []Device, opts Options) (*Emulator, error) {
	if len(devs) == 0 {
		return nil, errors.New("emulator: no devices")
	}
	path := opts.Path
	switch path {
	case "", PathFUSE:
		path = PathFUSE
		if err := CheckFUSE(); err != nil {
			return nil, err
		}
		if _, err := CleanStale(); err != nil {
			return nil, err
		}
	case PathPreload:
	default:
		return nil, fmt.Errorf("emulator: path %q: Start takes %s or %s (auto is decided by the caller)", opts.Path, PathFUSE, PathPreload)
	}
	seen := map[string]bool{}
	devs = slices.Clone(devs) // made absolute here, the caller's unchanged
	for i := range devs {
		d := &devs[i]
		if d.Name == "" || d.Spec == "" || d.BackingDir == "" || (d.MountPoint == "" && path == PathFUSE) {
			return nil, fmt.Errorf("emulator: device %d needs a name, a spec, a backing directory and a mount point", i)
		}
		if path == PathPreload {
			d.MountPoint = ""
		}
		for _, p := range []*string{&d.BackingDir, &d.MountPoint, &d.Trace} {
			if *p != "" {
				abs, err := filepath.Abs(*p)
				if err != nil {
					return nil, err
				}
				*p = abs
			}
		}
		if path == PathPreload {
			continue
		}
		if seen[d.MountPoint] {
			return nil, fmt.Errorf("emulator: mount point %s given twice", d.MountPoint)
		}
		seen[d.MountPoint] = true
		// either way round the file system would serve itself and hang
		if strings.HasPrefix(d.BackingDir+"/", d.MountPoint+"/") || strings.HasPrefix(d.MountPoint+"/", d.BackingDir+"/") {
			return nil, fmt.Errorf("emulator: device %s: the backing directory %s and the mount point %s must not contain each other",
				d.Name, d.BackingDir, d.MountPoint)
		}
	}
	state := opts.StateDir
	if state == "" {
		state = StateDir()
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		return nil, fmt.Errorf("emulator state: %w", err)
	}
	cleanStateDir(state)
	if path == PathPreload {
		// A preload device serves nvme and dram-ssd, whose flushes take 0-5 us; a real
		// fdatasync of the backing file on the host's disk takes 0.1-10 ms and would
		// be what a flush measured. The backing files lose durability against a host
		// crash during the run (docs/devices.md, "Two paths to the models").
		opts.NoBackingSync = true
	}
	cfg := serveConfig{
		Path: path, Devices: devs, Profiles: opts.Profiles, StateDir: state, NoFloor: opts.NoFloor,
		NoCompensate: opts.NoCompensation, NoBackingSync: opts.NoBackingSync, AllowTooFast: opts.AllowTooFast, NoSpin: opts.NoSpin,
	}
	for i, p := range cfg.Profiles {
		if abs, err := filepath.Abs(p); err == nil {
			cfg.Profiles[i] = abs
		}
	}
	cf, err := os.CreateTemp(state, "config-*.json")
	if err != nil {
		return nil, fmt.Errorf("emulator state: %w", err)
	}
	json.NewEncoder(cf).Encode(cfg)
	cf.Close()

	argv := opts.Command
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("emulator: find tierbench: %w", err)
		}
		argv = []string{exe, "device", "serve"}
	}
	argv = append(append([]string(nil), argv...), "--config", cf.Name())
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), opts.Env...)
	cmd.Stderr = opts.Log
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.Remove(cf.Name())
		return nil, fmt.Errorf("emulator: start server: %w", err)
	}
	e := &Emulator{path: path, cmd: cmd, stdin: stdin, config: cf.Name(), exited: make(chan struct{})}
	ready := make(chan serverMessage, 1)
	go e.readServer(stdout, ready)

	timeout := opts.ReadyTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	select {
	case msg := <-ready:
		if msg.Ready == nil {
			e.Stop()
			return nil, msg.remoteError()
		}
		e.socket = msg.Ready.Socket
		e.ring = msg.Ready.Ring
		e.devices = msg.Ready.Devices
		err := e.finishStart()
		if err == nil && path == PathPreload && !opts.NoFloor {
			err = e.preloadFloor()
		}
		if err != nil {
			e.Stop()
			return nil, err
		}
		return e, nil
	case <-time.After(timeout):
		e.Stop()
		return nil, fmt.Errorf("emulator: the server did not mount within %v", timeout)
	case <-ctx.Done():
		e.Stop()
		return nil, ctx.Err()
	}
}

// readServer reads the server's stdout: the first message to ready, the final counters
// when it exits.
func (e *Emulator) readServer(stdout io.Reader, ready chan<- serverMessage) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	first := true
	for sc.Scan() {
		var msg serverMessage
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			continue
		}
		switch {
		case first:
			first = false
			ready <- msg
			if msg.Error != "" {
				e.mu.Lock()
				e.err = msg.remoteError()
				e.mu.Unlock()
			}
		case msg.Final != nil:
			e.mu.Lock()
			e.final = msg.Final
			e.mu.Unlock()
		}
	}
	werr := e.cmd.Wait()
	if first {
		ready <- serverMessage{Error: fmt.Sprintf("emulator: the server exited before mounting (%s)", exitstatus.Text(werr))}
	}
	e.mu.Lock()
	e.waitErr, e.endedAt = werr, time.Now()
	e.mu.Unlock()
	close(e.exited)
}

// Path is how the devices are served: PathFUSE or PathPreload.
func (e *Emulator) Path() string { return e.path }

// RingPath is the preload ring's file ("" on the FUSE path), for a client in this
// process (the SQLite VFS).
func (e *Emulator) RingPath() string { return e.ring }

// PID is the server's process id.
func (e *Emulator) PID() int { return e.cmd.Process.Pid }

// Devices are the devices as mounted: mount point, measured floor, compensation and
// whether each is too fast for this host.
func (e *Emulator) Devices() []DeviceStats { return e.devices }

// finishStart runs the client's side of the self-calibration of fast devices, then
// reads the devices as they will be served.
func (e *Emulator) finishStart() error {
	pending := false
	for _, d := range e.devices {
		if d.SelfCalPending {
			pending = true
			if err := e.selfCalibrate(d.Name, d.MountPoint); err != nil {
				return err
			}
		}
	}
	if !pending {
		return nil
	}
	st, err := e.Stats()
	if err != nil {
		return err
	}
	e.devices = st
	return nil
}

// Stats asks the server for every device's counters now.
func (e *Emulator) Stats() ([]DeviceStats, error) {
	var st []DeviceStats
	if err := e.control("stats", nil, &st); err != nil {
		return nil, fmt.Errorf("emulator stats: %w", err)
	}
	return st, nil
}

// control sends one command (with a JSON argument) on the control socket and decodes
// the answer.
func (e *Emulator) control(cmd string, arg, reply any) error {
	c, err := net.DialTimeout("unix", e.socket, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	line := cmd
	if arg != nil {
		b, err := json.Marshal(arg)
		if err != nil {
			return err
		}
		line += " " + string(b)
	}
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return err
	}
	return json.NewDecoder(c).Decode(reply)
}

// Stop unmounts every device, waits for the server and returns the final counters.
// Processes still using a mount (a database that did not stop) get it lazily detached.
// If the server does not exit it is killed and the mounts are detached from here.
// Stop may be called more than once.
func (e *Emulator) Stop() ([]DeviceStats, error) {
	e.once.Do(func() {
		var died error
		select {
		case <-e.exited: // before it was asked to stop
			e.mu.Lock()
			died = &exitstatus.DiedError{Who: "the emulator's server", PID: e.cmd.Process.Pid, How: exitstatus.Text(e.waitErr),
				Then: "its devices failed every request from then on", At: e.endedAt}
			e.mu.Unlock()
		default:
		}
		e.stdin.Close()
		select {
		case <-e.exited:
		case <-time.After(15 * time.Second):
			e.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-e.exited:
			case <-time.After(5 * time.Second):
				e.cmd.Process.Kill()
				<-e.exited
			}
		}
		os.Remove(e.config)
		var errs []error
		for _, d := range e.devices {
			if e.path == PathFUSE && isMounted(d.MountPoint) {
				errs = append(errs, unmount(d.MountPoint))
			}
		}
		e.mu.Lock()
		e.stopped = e.final
		e.stopErr = errors.Join(append([]error{died}, errs...)...)
		e.mu.Unlock()
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stopped, e.stopErr
}

// cleanStateDir removes the control sockets of servers that are gone.
func cleanStateDir(dir string) {
	socks, _ := filepath.Glob(filepath.Join(dir, "*.sock"))
	for _, s := range socks {
		pid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(s), ".sock"))
		if err == nil && !processAlive(pid) {
			os.Remove(s)
		}
	}
}

// remoteError is an error the emulator server reported: its text, and the data it
// carried across the process boundary, so that callers can test errors.Is(err,
// ErrNoFUSE) and errors.As(err, &tooFast) as they would in one process.
type remoteError struct {
	msg               string
	tooFast           *TooFastError
	noFUSE, noPreload bool
}

func (m serverMessage) remoteError() error {
	return &remoteError{msg: m.Error, tooFast: m.TooFast, noFUSE: m.NoFUSE, noPreload: m.NoPreload}
}

func (e *remoteError) Error() string { return e.msg }

func (e *remoteError) Is(target error) bool {
	return (target == ErrNoFUSE && e.noFUSE) || (target == ErrNoPreload && e.noPreload)
}

func (e *remoteError) Unwrap() error {
	if e.tooFast == nil {
		return nil
	}
	return e.tooFast
}
