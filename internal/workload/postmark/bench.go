package postmark

import (
	"context"
	"fmt"
	"io"
	"strings"

	"tierbench/internal/params"
	"tierbench/internal/result"
	"tierbench/internal/workload"
)

// ResultFile is the name of the file a run's result goes to.
const ResultFile = result.File

// Workload is the file workload as the run lifecycle runs it: one phase, run, in the
// directory of the data tier (an emulated device or a real directory), with Postmark's
// parameters.
type Workload struct {
	set                              *params.Set
	preset                           string
	sizeMin, sizeMax, rBlock, wBlock string
	cfg                              Config
	// checked is the lifecycle's Check of cfg (Request.Precheck), before the run
	// started.
	checked *Estimate
}

// New returns the file workload with Postmark's defaults.
func New() *Workload {
	b := &Workload{set: params.NewSet("postmark run"), cfg: PostmarkDefaults()}
	s, c := b.set, &b.cfg
	s.Enum(&b.preset, "preset", "", PresetNames(), "load level: "+strings.Join(PresetNames(), ", ")+" (flags given override its parameters)")
	s.Int(&c.Files, "files", c.Files, "files in the pool (Postmark's 'set number')")
	s.Int(&c.Transactions, "transactions", c.Transactions, "transactions to run")
	s.String(&b.sizeMin, "size-min", fmt.Sprint(c.SizeMin), params.Size, "smallest file size, bytes or with a unit (16KiB)")
	s.String(&b.sizeMax, "size-max", fmt.Sprint(c.SizeMax), params.Size, "largest file size; appends grow files up to it")
	s.Int(&c.Subdirs, "subdirs", c.Subdirs, "subdirectories the files are spread over (0 or 1: none)")
	s.String(&b.rBlock, "read-block", fmt.Sprint(c.ReadBlock), params.Size, "bytes of each read call")
	s.String(&b.wBlock, "write-block", fmt.Sprint(c.WriteBlock), params.Size, "bytes of each write call")
	s.Bool(&c.Buffered, "buffered", c.Buffered, "buffer reads and writes in the process as C stdio does (--buffered=false: one system call per block)")
	s.Int(&c.ReadBias, "read-bias", c.ReadBias, "chance in tenths that a transaction reads rather than appends (-1: neither)")
	s.Int(&c.CreateBias, "create-bias", c.CreateBias, "chance in tenths that a transaction creates rather than deletes (-1: neither)")
	s.Int(&c.Seed, "seed", c.Seed, "seed of the random numbers, as Postmark's 'set seed'")
	s.Duration(&c.Idle, "idle", 0, "an idle run of this length: no files (preset non-load: 1m)")
	return b
}

// Params are the run phase's parameters (nil for another phase).
func (b *Workload) Params(p workload.Phase) *params.Set {
	if p != workload.Run {
		return nil
	}
	return b.set
}

// Prepare reads the sizes, applies the preset under the parameters given and checks
// them; the run's result is result.json.
func (b *Workload) Prepare(p workload.Phase) (workload.Request, error) {
	if p != workload.Run {
		return workload.Request{}, fmt.Errorf("postmark has no phase %q", p)
	}
	for _, sz := range []struct {
		flag, text string
		to         *int
	}{{"size-min", b.sizeMin, &b.cfg.SizeMin}, {"size-max", b.sizeMax, &b.cfg.SizeMax}, {"read-block", b.rBlock, &b.cfg.ReadBlock}, {"write-block", b.wBlock, &b.cfg.WriteBlock}} {
		if b.set.Lookup(sz.flag).Changed() {
			n, err := params.ParseSize("--"+sz.flag, sz.text)
			if err != nil {
				return workload.Request{}, err
			}
			*sz.to = int(min(n, 1<<40)) // Validate names the flag of a size too large
		}
	}
	if b.preset != "" {
		pc, err := LookupPreset(b.preset)
		if err != nil {
			return workload.Request{}, err
		}
		b.cfg = pc.Override(b.cfg, func(flag string) bool { return b.set.Lookup(strings.TrimPrefix(flag, "--")).Changed() })
	}
	if err := b.cfg.Validate(); err != nil {
		return workload.Request{}, err
	}
	return workload.Request{Results: []string{ResultFile}, Precheck: b.precheck}, nil
}

// precheck works the run out before anything of it starts (Check): a run refused for
// its size or an empty pool leaves OUT as it was.
func (b *Workload) precheck(ctx context.Context, dir string, ignoreLimits bool, notes io.Writer) error {
	est, err := Check(ctx, dir, b.cfg, ignoreLimits, notes)
	if err != nil {
		return err
	}
	b.checked = &est
	return nil
}

// Run runs the workload in env's directory.
func (b *Workload) Run(ctx context.Context, env workload.Env) (*workload.Report, error) {
	res, err := Run(ctx, env.Dir(), b.cfg, Options{Preset: b.preset, IgnoreLimits: env.IgnoreLimits(), Mark: env.Mark,
		Checked: b.checked, Notes: env.Stderr()})
	if res == nil {
		return nil, err
	}
	return &workload.Report{Result: res, File: ResultFile, Announce: true,
		Summary: func(w io.Writer) { WriteSummary(w, res) }}, err
}
