package workload

import (
	"context"
	"io"

	"tierbench/internal/capacity"
	"tierbench/internal/engine"
	"tierbench/internal/metrics"
)

// Phase is one part of a workload, run as one command: a load, a run, a check.
type Phase string

const (
	Load  Phase = "load"
	Run   Phase = "run"
	Check Phase = "check"
)

// Env is what a phase runs in: the engine opened on its tiers (or, for a workload
// without an engine, a directory), the output directory, where to write for people,
// and the hooks of the run's monitors. *lifecycle.Run implements it.
type Env interface {
	// Engine is the open engine; nil for a workload that runs in a directory.
	Engine() engine.Engine
	// EngineConfig is the configuration the engine was opened with, placement
	// applied (its buffer, its directory; DSN set for an external server).
	EngineConfig() engine.Config
	// Dir is the directory a workload without an engine works in: the data tier's
	// directory, or the one given.
	Dir() string
	// Out is the output directory, locked for the phase.
	Out() string
	// Stdout takes the phase's lines for people; Stderr its notes and logs.
	Stdout() io.Writer
	Stderr() io.Writer
	// Progress takes progress bars; nil when there is no terminal to draw them on.
	Progress() io.Writer
	// IOSampler reads the engine's I/O counters and the emulated devices' for rates
	// per interval; nil when there are neither.
	IOSampler() func(ctx context.Context) (metrics.IOSample, error)
	// Mark says that the measured window label starts (start) or ends now, for the
	// monitors, the energy section's windows and the verdict, which judges the windows
	// a result names (verdict.Subject). A level of users is labelled
	// monitor.LevelLabel(users).
	Mark(label string, start bool)
	// Observer sees each report interval's record of a workload that has them, for
	// the Prometheus exposition (--metrics-addr); nil when nothing is served.
	Observer() metrics.Observer
	// IgnoreLimits says to run even when an estimate exceeds what this host has
	// (--ignore-limits), for phases that estimate once they run.
	IgnoreLimits() bool
	// Checkpoint writes the phase's result as it stands (after a level of users, a
	// test of TPC-H) to OUT/result.json atomically, so that what was measured
	// survives a crash. Only the lifecycle writes result files: the phase hands its
	// final result over in its Report, which gets the sections attached.
	Checkpoint(result any) error
}

// Request is what a phase asks of the run, worked out from its parameters before
// anything is opened: which files it writes, what database it needs, how many
// sessions it holds, what it needs of the host.
type Request struct {
	// Results are the files in OUT the phase writes; an earlier command's are set
	// aside into OUT/earlier/N first (rundir.SetAside).
	Results []string
	// Replaces says the phase replaces what those earlier files describe (a load
	// drops the earlier load's data): they are never put back.
	Replaces bool
	// MustExist opens only a database an earlier phase kept: a missing one is an
	// error, not a new, empty one left behind.
	MustExist bool
	// Sessions is the most sessions the phase holds at once (users, streams), for
	// --client-io auto and a managed server's connection limit.
	Sessions int
	// Load, when set, is the load the phase runs on.
	Load *NeedsLoad
	// Needs estimates what the phase takes of this host; the run is refused before
	// anything starts when it cannot fit. nil: no estimate before the phase runs.
	Needs func(EngineFacts) ([]capacity.Need, error)
	// Precheck, when set, is a workload without an engine checking itself against
	// the directory its files will fill (dir: --dir, or the data tier's, or OUT for
	// an emulated tier, whose backing files live there) before anything starts: OUT
	// is not touched, so a run it refuses changes nothing there. It may take a while
	// (working the run out), stops when ctx ends, and may tell notes how long it
	// takes. ignoreLimits is --ignore-limits.
	Precheck func(ctx context.Context, dir string, ignoreLimits bool, notes io.Writer) error
}

// EngineFacts are what an estimate knows of the engine before it opens.
type EngineFacts struct {
	Dialect *engine.Dialect
	// External says the server is not on this host: its memory and disk are not
	// this host's to count.
	External bool
	// DataDir is the directory whose file system the database's data will fill ("" for
	// an external server).
	DataDir string
	// Out is the run's output directory.
	Out string
	// BufferBytes is --buffer (0: the engine's default).
	BufferBytes int64
}

// NeedsLoad is the load an earlier phase left in OUT, which a phase runs on.
type NeedsLoad struct {
	// File is the load's record in OUT (load.json).
	File string
	// Command is the command line that loads, without --engine and --out: "tpcc load",
	// "oltp load --mix policy".
	Command string
	// Read reads the record in out: the engine it was loaded into, nil when out holds
	// no load. It may refuse a load that does not suit the phase, and write notes.
	Read func(out string, external bool, notes io.Writer) (*engine.Info, error)
}

// Report is what a phase produced, for the lifecycle to finish with.
type Report struct {
	// Result is written to OUT/File when the phase ends, after the engine has stopped
	// and the tiers are unmounted, with the sections attached when it embeds
	// result.Sections.
	Result any
	File   string
	// Summary prints the result for people, after it is written.
	Summary func(w io.Writer)
	// Announce says the result is a run's: the lifecycle prints "result: PATH" and
	// words an error by what the file really holds.
	Announce bool
	// StorageFile, when set, receives the storage section alone, which is also
	// printed (a load, whose result is its record).
	StorageFile string
	// Done, when set, is called once the phase finished cleanly: the verdict, whose
	// error (an *ExitError) fails the command after everything was kept.
	Done func(w io.Writer) error
}

// ExitError fails a command with a specific exit status, such as a failed answer
// validation or consistency check.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }
