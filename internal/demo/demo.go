package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	_ "tierbench/internal/engine/sqlite" // the demo's engine
	"tierbench/internal/lifecycle"
	"tierbench/internal/placement"
	"tierbench/internal/rundir"
	"tierbench/internal/workload"
	"tierbench/internal/workload/tpch"
)

// Defaults of Config, chosen by measuring on a 2-core VM (docs/demo.md): the SF 0.01
// database is 13 MiB. A 10 MiB page cache model with 64 KiB pages in front of each
// device keeps most of it in memory, so the run finishes in about a minute on a 7,200
// rpm disk, but scans and index lookups still miss, so the device shows: measured
// QphH@Size (unrounded) 92 on hdd-7200, 160 on hdd-15k, 538 on sata-ssd. With 16 MiB
// the whole database stays cached and the CPU's noise decides the ranking; with 8 MiB a
// disk thrashes for two minutes and more. 64 KiB pages stand for the kernel's
// readahead, which the page cache model does not do by default (readahead=0;
// docs/devices.md, "Caches and tiers"): with 4 KiB pages a scan on a
// disk pays a seek for every page a hole in the cache leaves.
const (
	DefaultSF         = 0.01
	DefaultPageCache  = 10 << 20
	DefaultPageKiB    = 64
	DefaultCacheBytes = 2 << 20 // SQLite's own default cache_size (-2000 KiB), stated
	DefaultSeed       = 1
)

// Slot is one row of the demo: the device wanted and, in order, the devices that may
// stand in for it when the host cannot emulate it in real time.
type Slot struct {
	Want      string
	Fallbacks []string
}

// DefaultSlots are a 7,200 rpm disk, a SATA SSD, an NVMe SSD and a DRAM SSD. The
// preload path (the default) serves all four; on FUSE (--emulator fuse) the two
// fastest may be too fast for the host, and the next fastest built-in not already in
// the table stands in.
func DefaultSlots() []Slot {
	return []Slot{
		{Want: "hdd-7200"},
		{Want: "sata-ssd", Fallbacks: []string{"hdd-15k", "hdd-10k"}},
		{Want: "nvme", Fallbacks: []string{"sata-ssd", "hdd-15k", "hdd-10k"}},
		{Want: "dram-ssd", Fallbacks: []string{"nvme", "sata-ssd", "hdd-15k", "hdd-10k"}},
	}
}

// Config is a demo run.
type Config struct {
	SF    float64
	Slots []Slot
	// PageCache is the page cache model's size in bytes in front of each device;
	// negative: none, every SQLite read reaches the device.
	PageCache int64
	// CacheBytes is SQLite's cache.
	CacheBytes int64
	Seed       int64
	// OutDir holds OUT/<device>/result.json (and, during a run, the device's tier). Run
	// locks it against a second command (rundir.Lock); the run lifecycle locks each
	// OUT/<device> and sets an earlier demo's result of a device aside into
	// OUT/<device>/earlier/N before running it again.
	OutDir string
	// Command is the command line the lock records (passwords removed); empty: "tierbench demo".
	Command       string
	GridIntensity float64
	Registry      *device.Registry
	Emulator      emulator.Options
	// Progress gets the TPC-H progress bars; Log one line per step. Either may be nil.
	Progress, Log io.Writer
}

// Row is one device's line of the table.
type Row struct {
	Device string `json:"device"`
	Spec   string `json:"spec"`
	// Substitutes names the device this one stands in for, with Why.
	Substitutes string  `json:"substitutes,omitempty"`
	Why         string  `json:"why,omitempty"`
	QphH        float64 `json:"qphh_at_size"`
	// QphHUnrounded is QphH@Size from unrounded times: at SF 0.01 most queries take
	// less than the spec's 0.1 s rounding, which flattens the official figure.
	QphHUnrounded       float64 `json:"qphh_unrounded"`
	PowerUnrounded      float64 `json:"power_unrounded"`
	ThroughputUnrounded float64 `json:"throughput_unrounded"`
	LoadS               float64 `json:"load_s"`
	// IOPS are the requests per second that reached the device under the page cache.
	IOPS        float64 `json:"device_iops"`
	Utilisation float64 `json:"device_utilisation"`
	EnergyJ     float64 `json:"device_energy_j"`
	Queries     int     `json:"queries"`
	// EnergyPerQueryJ is the device's energy over the whole run, load included,
	// divided by the queries of the power and throughput tests.
	EnergyPerQueryJ float64 `json:"device_energy_per_query_j"`
	// Read8KUs is the model's random 8 KiB read at queue depth 1: the speed the
	// ranking is checked against.
	Read8KUs float64 `json:"model_read_8k_us"`
	Seconds  float64 `json:"wall_s"`
	Result   string  `json:"result,omitempty"`
	// Verdict is what limited the run's headline window, the throughput test
	// (result.json's verdict section); empty when nothing was sampled.
	Verdict string `json:"verdict,omitempty"`
}

// Defaults fills in what cfg leaves zero; Run calls it too.
func (cfg *Config) Defaults() error {
	if cfg.SF == 0 {
		cfg.SF = DefaultSF
	}
	if len(cfg.Slots) == 0 {
		cfg.Slots = DefaultSlots()
	}
	if cfg.PageCache == 0 {
		cfg.PageCache = DefaultPageCache
	}
	if cfg.CacheBytes == 0 {
		cfg.CacheBytes = DefaultCacheBytes
	}
	if cfg.Seed == 0 {
		cfg.Seed = DefaultSeed
	}
	if cfg.Emulator.Path == "" {
		cfg.Emulator.Path = emulator.PathAuto
	}
	if cfg.Registry == nil {
		reg, err := device.Load(cfg.Emulator.Profiles...)
		if err != nil {
			return err
		}
		cfg.Registry = reg
	}
	if cfg.OutDir == "" {
		return errors.New("demo: no output directory")
	}
	return nil
}

// Spec is the device spec a demo row runs on: the profile behind the page cache model.
func (cfg *Config) Spec(profile string) string {
	if cfg.PageCache < 0 {
		return profile
	}
	size := fmt.Sprintf("%dKiB", cfg.PageCache>>10)
	if cfg.PageCache%(1<<20) == 0 {
		size = fmt.Sprintf("%dMiB", cfg.PageCache>>20)
	}
	return fmt.Sprintf("pagecache(%s,size=%s,page=%dKiB)", profile, size, DefaultPageKiB)
}

// Run runs every slot and returns the rows from the slowest device to the fastest. A
// device the host cannot emulate is replaced by its slot's next fallback (the row says
// so); without one left, Run fails.
func Run(ctx context.Context, cfg Config) (_ []Row, err error) {
	if err := cfg.Defaults(); err != nil {
		return nil, err
	}
	lock, err := rundir.Acquire(cfg.OutDir, cfg.command())
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	defer func() { err = errors.Join(err, lock.Release()) }()
	var rows []Row
	used := map[string]bool{}
	for _, slot := range cfg.Slots {
		candidates := append([]string{slot.Want}, slot.Fallbacks...)
		var why []string
		done := false
		for _, dev := range candidates {
			if used[dev] {
				continue
			}
			row, err := cfg.runDevice(ctx, dev)
			var tooFast *emulator.TooFastError
			if errors.As(err, &tooFast) && dev != candidates[len(candidates)-1] {
				why = append(why, tooFast.Compare(dev))
				cfg.logf("%s cannot be emulated in real time here; trying the next fastest device", dev)
				continue
			}
			if err != nil {
				return rows, fmt.Errorf("%s: %w", dev, err)
			}
			used[dev] = true
			if dev != slot.Want {
				row.Substitutes = slot.Want
				row.Why = strings.Join(why, "; ")
			}
			rows = append(rows, *row)
			done = true
			break
		}
		if !done && len(why) > 0 {
			return rows, fmt.Errorf("%s: no device of its slot can be emulated on this host: %s", slot.Want, why[len(why)-1])
		}
	}
	SortBySpeed(rows)
	return rows, nil
}

// command is the command line the locks record.
func (cfg *Config) command() string {
	if cfg.Command == "" {
		return "tierbench demo"
	}
	return cfg.Command
}

func (cfg *Config) logf(format string, args ...any) {
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	}
}

// runDevice runs TPC-H on one device through the run lifecycle: its database and temp
// files on a tier of the device behind the page cache model, SQLite with the demo's
// cache, result.json in OUT/<device>.
func (cfg *Config) runDevice(ctx context.Context, dev string) (*Row, error) {
	fig, err := cfg.Registry.Characterize(dev)
	if err != nil {
		return nil, err
	}
	spec := cfg.Spec(dev)
	out := filepath.Join(cfg.OutDir, dev)
	flt := func(f float64) []string { return []string{strconv.FormatFloat(f, 'g', -1, 64)} }
	start := time.Now()
	cfg.logf("%s: TPC-H SF %g on %s", dev, cfg.SF, spec)
	o, err := lifecycle.Execute(ctx, lifecycle.Spec{
		Workload: "tpch", Phases: []workload.Phase{workload.Run},
		Values: map[string][]string{
			"sf": flt(cfg.SF), "seed": {strconv.FormatInt(cfg.Seed, 10)}, "out": {out}, "engine": {"sqlite"},
			"buffer": {strconv.FormatInt(cfg.CacheBytes, 10)}, "grid-intensity": flt(cfg.GridIntensity),
			"emulator": {cfg.Emulator.Path},
		},
		Plan:     &placement.Plan{Tiers: []placement.Tier{{Name: dev, Spec: spec}}, Classes: placement.Classes{Data: dev, Temp: dev}},
		Registry: cfg.Registry, Emulator: cfg.Emulator,
		IO: lifecycle.IO{Stderr: cfg.Log, Progress: cfg.Progress, Command: cfg.command(),
			Note: func(note string) { cfg.logf("%s: %s", dev, note) }},
	})
	if err != nil {
		if o == nil || len(o.Phases) == 0 {
			os.Remove(out) // only when the refused run left it empty
		}
		return nil, err
	}
	row := rowOf(dev, spec, o.Phases[0].Result.(*tpch.Result), time.Since(start))
	row.Read8KUs = float64(fig.RandRead8KQD1.Nanoseconds()) / 1e3
	row.Result = filepath.Join(out, tpch.ResultFile)
	cfg.logf("%s: QphH@Size %.1f (unrounded %.2f) in %.0f s", dev, row.QphH, row.QphHUnrounded, row.Seconds)
	return row, nil
}

// rowOf reads a row from a finished run's result.
func rowOf(dev, spec string, res *tpch.Result, wall time.Duration) *Row {
	r := &Row{Device: dev, Spec: spec, Seconds: wall.Seconds()}
	if m := res.Metrics; m != nil {
		r.QphH, r.QphHUnrounded = m.QphHAtSize, m.QphHAtSizeUnrounded
		r.PowerUnrounded, r.ThroughputUnrounded = m.PowerAtSizeUnrounded, m.ThroughputAtSizeUnrounded
	}
	if res.Load != nil {
		r.LoadS = res.Load.Total
	}
	if res.Power != nil {
		r.Queries += len(res.Power.Queries)
	}
	if res.Throughput != nil {
		for _, s := range res.Throughput.Streams {
			r.Queries += len(s)
		}
	}
	if v := res.Verdict; v != nil {
		r.Verdict = v.Headline
	}
	if st := res.Storage; st != nil && len(st.Tiers) > 0 && st.Tiers[0].Device != nil {
		d := st.Tiers[0].Device
		r.IOPS, r.Utilisation, r.EnergyJ = d.MediaIOPS, d.Utilisation, d.EnergyJ
		if r.Queries > 0 {
			r.EnergyPerQueryJ = d.EnergyJ / float64(r.Queries)
		}
	}
	return r
}

// SortBySpeed orders rows from the slowest device (longest modelled 8 KiB read) to the
// fastest.
func SortBySpeed(rows []Row) {
	slices.SortStableFunc(rows, func(a, b Row) int {
		switch {
		case a.Read8KUs > b.Read8KUs:
			return -1
		case a.Read8KUs < b.Read8KUs:
			return 1
		}
		return 0
	})
}

// CheckRanking says whether QphH@Size (unrounded) rises with the devices' speed; the
// error names the first pair out of order. rows must be sorted by SortBySpeed.
//
// Two devices within twice each other's speed may tie (nvme and dram-ssd, 22 and 16 us):
// behind the page cache model they keep the device busy under a tenth of the run, so
// their difference is a few percent of QphH, inside a shared host's noise (measured:
// either one ahead by 6-10% at load average 14-36). Such a pair is out of order only
// when the faster one is more than tieTolerance behind.
func CheckRanking(rows []Row) error {
	for i := 1; i < len(rows); i++ {
		slow, fast := rows[i-1], rows[i]
		if fast.Read8KUs >= slow.Read8KUs {
			continue
		}
		floor := slow.QphHUnrounded
		if fast.Read8KUs*2 > slow.Read8KUs {
			floor *= 1 - tieTolerance
		}
		if fast.QphHUnrounded <= floor && fast.QphHUnrounded < slow.QphHUnrounded {
			return fmt.Errorf("%s (%.1f us per 8 KiB read) reached QphH %.2f, not more than %s (%.1f us) at %.2f",
				fast.Device, fast.Read8KUs, fast.QphHUnrounded, slow.Device, slow.Read8KUs, slow.QphHUnrounded)
		}
	}
	return nil
}

// tieTolerance is how far behind a device may come in for a pair of close speeds.
const tieTolerance = 0.10
