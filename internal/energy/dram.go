package energy

import (
	"fmt"

	"github.com/prometheus/procfs"
)

// DRAMConfig says how to model memory power. Memory is modelled as a constant: both
// CodeCarbon and Cloud Carbon Footprint count it so, and its activity-dependent part
// is small beside the rest of a server.
type DRAMConfig struct {
	// DIMMs is the number of memory modules (a lab host's, from dmidecode -t 17); 0
	// models by capacity instead (a virtual machine has no modules of its own).
	DIMMs int
	// WattsPerDIMM and WattsPerGB replace the default figure (and its band).
	WattsPerDIMM float64
	WattsPerGB   float64
}

// maxDIMMs bounds DRAMConfig.DIMMs: the largest servers hold a few hundred modules.
const maxDIMMs = 4096

// check checks the figures given: a count of modules and watts, 0 to MaxWatts.
func (c DRAMConfig) check() error {
	if c.DIMMs < 0 || c.DIMMs > maxDIMMs {
		return fmt.Errorf("DRAM modules %d: give 0 (model by capacity) to %d", c.DIMMs, maxDIMMs)
	}
	for _, f := range []struct {
		what string
		w    float64
	}{{"DRAM watts per module", c.WattsPerDIMM}, {"DRAM watts per GB", c.WattsPerGB}} {
		if err := checkWatts(f.w); err != nil {
			return fmt.Errorf("%s %v: %v", f.what, f.w, err)
		}
	}
	return nil
}

// Default DRAM figures, low, nominal and high. Per module: CodeCarbon's 5 W nominal,
// its earlier 3 W (per 8 GB module) low, and 8 W high for large or busy registered
// modules (tierbench's judgement). Per GB: Cloud Carbon Footprint's 0.392 W/GB
// nominal; the band is CodeCarbon's 5 W per module spread over 32 GB modules (low)
// and 8 GB modules (high), since the number of modules, not their size, drives
// memory power.
var (
	DRAMWattsPerDIMM = Range{3, 5, 8}
	DRAMWattsPerGB   = Range{5.0 / 32, 0.392, 5.0 / 8}
)

// DRAMModel is the model of the host's memory power.
type DRAMModel struct {
	// GiB is MemTotal in GiB (memory sizes are binary: a "32 GB" module is 32 GiB).
	GiB   float64 `json:"gib,omitempty"`
	DIMMs int     `json:"dimms,omitempty"`
	Watts Range   `json:"watts"`
	Basis string  `json:"basis"`
	// Source says where the figure comes from.
	Source string `json:"source"`
}

// ResolveDRAM builds the memory model from cfg, with the capacity from meminfo under
// procRoot ("" is /proc) when modelling by capacity.
func ResolveDRAM(procRoot string, cfg DRAMConfig) (*DRAMModel, *Unavailable) {
	if cfg.DIMMs > 0 {
		per, src := DRAMWattsPerDIMM, "CodeCarbon's 5 W per module [3-8 W]"
		if cfg.WattsPerDIMM > 0 {
			per, src = Exact(cfg.WattsPerDIMM), "the user's watts per module"
		}
		return &DRAMModel{DIMMs: cfg.DIMMs, Watts: per.Scale(float64(cfg.DIMMs)),
			Basis:  fmt.Sprintf("%d modules x %.3g W", cfg.DIMMs, per.Nominal),
			Source: src}, nil
	}
	if procRoot == "" {
		procRoot = procfs.DefaultMountPoint
	}
	gib, err := memTotalGiB(procRoot)
	if err != nil {
		return nil, &Unavailable{"DRAM power model", fmt.Sprintf("meminfo: %v: give the number of memory modules", err)}
	}
	per, src := DRAMWattsPerGB, "Cloud Carbon Footprint's 0.392 W/GB [0.156-0.625: CodeCarbon's 5 W per 32 GB to per 8 GB module]"
	if cfg.WattsPerGB > 0 {
		per, src = Exact(cfg.WattsPerGB), "the user's watts per GB"
	}
	return &DRAMModel{GiB: gib, Watts: per.Scale(gib),
		Basis:  fmt.Sprintf("%.1f GiB (MemTotal) x %.3g W/GB", gib, per.Nominal),
		Source: src}, nil
}

func memTotalGiB(procRoot string) (float64, error) {
	pfs, err := procfs.NewFS(procRoot)
	if err != nil {
		return 0, err
	}
	mi, err := pfs.Meminfo()
	if err != nil {
		return 0, err
	}
	if mi.MemTotalBytes == nil {
		return 0, fmt.Errorf("no MemTotal")
	}
	return float64(*mi.MemTotalBytes) / (1 << 30), nil
}
