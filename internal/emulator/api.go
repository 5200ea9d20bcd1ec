package emulator

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Device is one emulated device: a mount point whose files live in BackingDir and whose
// every read, write and fsync takes the time the model of Spec says.
type Device struct {
	Name       string `json:"name"`        // for reports: "data", "wal"
	Spec       string `json:"spec"`        // device spec, such as "hdd-7200" or NullSpec
	BackingDir string `json:"backing_dir"` // where the files really are (created if missing)
	MountPoint string `json:"mount_point"` // created if missing
	// Trace, if set, is a file to record every request to, for Replay.
	Trace string `json:"trace,omitempty"`
}

// The paths from a database's I/O to the device models (Options.Path).
const (
	// PathFUSE: a FUSE mount per device; works for any program, costs a kernel round
	// trip per request (the floor, tens of microseconds on a virtual machine).
	PathFUSE = "fuse"
	// PathPreload: the database's processes time their own I/O on the devices'
	// directories and ask the server for each deadline through a shared-memory ring:
	// the LD_PRELOAD shim in a managed server, the SQLite VFS in tierbench's own
	// process. A floor of a few microseconds.
	PathPreload = "preload"
	// PathAuto is what a user may ask for: preload where it can enter the engine,
	// else FUSE (package placement decides; Start takes only the two above).
	PathAuto = "auto"
)

// ParsePath reads an --emulator value.
func ParsePath(s string) (string, error) {
	switch p := strings.ToLower(strings.TrimSpace(s)); p {
	case PathFUSE, PathPreload, PathAuto:
		return p, nil
	}
	return "", fmt.Errorf("--emulator %q: give fuse (a FUSE mount per device), preload (the LD_PRELOAD shim and SQLite VFS, a few microseconds a request) or auto (preload where it works, else fuse)", s)
}

// Options tune Start. The zero value is what a run wants.
type Options struct {
	// Path is PathFUSE ("" too) or PathPreload.
	Path string
	// Profiles are users' profile files or directories (device.Load).
	Profiles []string
	// Command is the server's argv; the default runs this executable's hidden
	// `device serve`. "--config FILE" is appended.
	Command []string
	// Env is added to the server's environment.
	Env []string
	// StateDir holds the config and the control socket (default: StateDir()).
	StateDir string
	// Log receives the server's stderr (default os.Stderr).
	Log io.Writer
	// NoFloor skips measuring the mount's latency floor (and so its compensation and
	// the too-fast check).
	NoFloor bool
	// NoCompensation keeps the floor in every request's latency instead of taking it
	// off the model's completion time.
	NoCompensation bool
	// NoBackingSync skips the real fdatasync of backing files on an fsync (always so on
	// the preload path, which serves devices whose flush is faster than the host's).
	NoBackingSync bool
	// NoSpin never busy-waits: a request alone on its device sleeps to its deadline
	// instead of spinning the last 300 us. Saves up to a CPU per device at queue depth 1
	// on fast devices; costs the CPU's wake-up time (50-200 us on a VM) per request.
	NoSpin bool
	// AllowTooFast mounts a device faster than the floor instead of refusing it; its
	// stats say TooFast and its latencies are the floor's.
	AllowTooFast bool
	// ReadyTimeout bounds the wait for the mounts (default 30 s).
	ReadyTimeout time.Duration
}

// StateDir is where servers keep their control sockets: $XDG_RUNTIME_DIR/tierbench-emulator,
// else /tmp/tierbench-emulator-UID.
func StateDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "tierbench-emulator")
	}
	return filepath.Join(os.TempDir(), "tierbench-emulator-"+strconv.Itoa(os.Geteuid()))
}

// ErrNoFUSE is wrapped by every error that says FUSE cannot be used here.
var ErrNoFUSE = errors.New("FUSE is not available here")

func fuseUnavailable(reason string) error {
	return fmt.Errorf("%w (%s): install fuse3 / run with --device /dev/fuse in containers / use --tier NAME=DIR real directories",
		ErrNoFUSE, reason)
}

// ErrNoPreload is wrapped by the errors of a preload path that cannot serve the
// devices (a directory the ring cannot hold or the clients could not match, a ring
// that cannot be made): a FUSE mount may still serve them, which --emulator auto does.
var ErrNoPreload = errors.New("the preload path cannot serve these devices")

func preloadUnavailable(err error) error { return fmt.Errorf("%w: %w", ErrNoPreload, err) }

// ErrTooFast is matched (errors.Is) by the error of a device the host cannot emulate
// in real time, a *TooFastError.
var ErrTooFast = errors.New("device too fast for this host: use trace replay")

// TooFastError refuses a device whose model answers a random 8 KiB read (Read8K)
// within twice this host's mount floor (Floor): emulated in real time, it would
// report the host's overhead rather than the device. It crosses from the emulator's
// server to Start as data, so callers read its fields instead of its text.
type TooFastError struct {
	// Device is the emulated device's name (Device.Name), Spec its profile or spec.
	Device string `json:"device"`
	Spec   string `json:"spec"`
	// Path is the path whose floor refused it: PathFUSE (also when empty) or PathPreload.
	Path   string        `json:"path,omitempty"`
	Read8K time.Duration `json:"read_8k_ns"`
	Floor  time.Duration `json:"floor_ns"`
}

// Compare says the two figures that refused the device, naming it name: "nvme answers
// a random 8 KiB read in 22.245µs, but this host's FUSE round trip alone is 18µs".
func (e *TooFastError) Compare(name string) string {
	if e.Path == PathPreload {
		return fmt.Sprintf("%s answers a random 8 KiB read in %v, but this host's preload round trip alone is %v",
			name, e.Read8K, e.Floor.Round(100*time.Nanosecond))
	}
	return fmt.Sprintf("%s answers a random 8 KiB read in %v, but this host's FUSE round trip alone is %v",
		name, e.Read8K, e.Floor.Round(time.Microsecond))
}

func (e *TooFastError) Error() string {
	return fmt.Sprintf("%v: %s: record a trace on a slower device and replay it through %s (tierbench device replay)",
		ErrTooFast, e.Compare(e.Spec), e.Spec)
}

// Is makes a *TooFastError match ErrTooFast.
func (e *TooFastError) Is(target error) bool { return target == ErrTooFast }

// ProbeResult is one line of a calibration: what the model says a probe gives and what
// was measured through the mount.
type ProbeResult struct {
	Probe    string  `json:"probe"`  // "randread-8k-qd1"
	Metric   string  `json:"metric"` // "mean_latency_us", "p50_latency_us", "iops", "mb_per_s", "fsyncs_per_s"
	Model    float64 `json:"model"`
	Measured float64 `json:"measured"`
	ErrorPct float64 `json:"error_pct"` // (measured - model) / model x 100
	Requests int64   `json:"requests"`
	// HostBest is the best this host's path could measure: the model's figure with
	// each request taking at least what the path itself took for the same request on
	// a device that takes no time (at queue depth 1), or at most the requests per
	// second the path passed there (deeper queues).
	HostBest float64 `json:"host_best"`
	// HostLimited says the path's own costs alone move the figure more than 5% from
	// the model's (HostBest): the error is this host's, not the emulation's timing.
	HostLimited bool `json:"host_limited,omitempty"`
	// ErrorVsHostBestPct is (measured - HostBest) / HostBest x 100: what the
	// emulation's timing adds to what this host's path costs anyway.
	ErrorVsHostBestPct float64 `json:"error_vs_host_best_pct"`
	// Rounds is how many times the probe ran, each on a fresh device; the figures are
	// the round whose error was the median.
	Rounds int `json:"rounds"`
	// LateP50Us, LateP90Us and LateP99Us (preload) are quantiles of how long after
	// its model deadline a request returned: the emulation's timing error.
	LateP50Us float64 `json:"late_p50_us,omitempty"`
	LateP90Us float64 `json:"late_p90_us,omitempty"`
	LateP99Us float64 `json:"late_p99_us,omitempty"`
}

// Calibration is the result of Calibrate.
type Calibration struct {
	Profile string `json:"profile"`
	// Path is how the probes reached the device: PathFUSE or PathPreload.
	Path string `json:"path"`
	// FloorUs is the mount's own round trip (4 KiB read, queue depth 1, no model) on
	// this host; CeilingIOPS the most 4 KiB reads per second it passes at queue depth 32.
	FloorUs     float64 `json:"floor_us"`
	CeilingIOPS float64 `json:"ceiling_iops"`
	// ThreadCeilingIOPS is the most 4 KiB reads per second 32 threads pass, each
	// waiting for its request before the next, as a database's threads do. On a mount
	// it is CeilingIOPS; on the preload path, whose queue-depth-32 probes keep 32
	// requests in flight from one thread (fio's iodepth), it is lower on a small host.
	ThreadCeilingIOPS float64 `json:"thread_ceiling_iops"`
	// CompensationUs is what the emulator takes off each completion for the mount's own
	// overhead (the floor, plus on fast devices the measured residual), as set on the
	// first probe's mount.
	CompensationUs float64 `json:"compensation_us"`
	// CompensationPerMiBUs is added per MiB of a read and of a write.
	CompensationPerMiBUs [2]float64 `json:"compensation_per_mib_us"`
	// ModelRead8KUs is the model's random 8 KiB read latency (device list's figure).
	ModelRead8KUs float64 `json:"model_read_8k_us"`
	// TooFast: the device answers faster than the floor and cannot be emulated in real
	// time here; use trace replay.
	TooFast bool          `json:"too_fast"`
	Probes  []ProbeResult `json:"probes"`
	// CapChecks are the throughput probes against a capped device's provisioned caps
	// (a cloud volume's IOPS and MB/s); none for a device without caps.
	CapChecks []CapCheck `json:"cap_checks,omitempty"`
}

// CalibrateOptions tune Calibrate.
type CalibrateOptions struct {
	Options
	// Dir holds the backing files (default: a temporary directory on /dev/shm if there
	// is one, so the host's own disk stays out of the measurement).
	Dir string
	// Budget bounds each probe's run (default 1.2 s).
	Budget time.Duration
	// Progress, if set, gets a line per probe as it finishes.
	Progress io.Writer
}
