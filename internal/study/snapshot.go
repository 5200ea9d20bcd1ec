package study

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/lifecycle"
	"tierbench/internal/placement"
	"tierbench/internal/workload"
)

// A snapshot (snapshot: true in a study file) loads each population once and copies
// its files onto the tiers of every run of the cells that share it, before the run's
// first command starts, so that a study whose runs measure what follows the load does
// not pay the load in every run (MariaDB's bootstrap and load on emulated disks take
// about 90 s a run). docs/studies.md, "Snapshots", is the manual.
//
// A population is what a cell's load makes: its workload, engine and engine version,
// and every value of its load that changes the files (scale, mix, seed, loaders, the
// engine's settings and buffer, which tier holds which class). The device a tier
// emulates does not change them: the snapshot's load runs with every emulated tier on
// the null device (no device time), in OUT/snapshots/KEY, the tiers keeping their
// names, so its files are the files a load on the cell's devices would leave.
//
// Why a copy before the run's command gives the run what a load in its own command
// gives it: a run's emulator starts at its mount with a fresh model (virtual time 0,
// empty page cache and SSD cache) and lays out the files it finds as they are
// (layout.go), which is what it finds after a load command too. Its counters start at
// the mount, so the copy's writes, made before, count no more than a load's writes in
// its own command. The page cache model starts cold in either case; what a load leaves
// warm inside the files (InnoDB's buffer pool dump, read back at start) is copied
// with them.

// Population is how a cell of a study with snapshot: true gets its load.
type Population struct {
	// Key names the population (OUT/snapshots/KEY): a hash of what changes its files.
	Key string `json:"key,omitempty"`
	// Refused says why the cell loads in its own runs ("" when it reuses a snapshot).
	Refused string `json:"refused,omitempty"`
	// Workload, Engine and Values are the snapshot's load: the cell's load phase with
	// every emulated tier on the null device (without --out).
	Workload string              `json:"workload,omitempty"`
	Engine   string              `json:"engine,omitempty"`
	Values   map[string][]string `json:"values,omitempty"`
}

// SnapshotsDir is where a study directory keeps its snapshots, one directory each.
const SnapshotsDir = "snapshots"

// keyIgnored are the load's values that change nothing in its files: what is
// measured and how, where it is reported, and the host's figures. (The buffer is
// kept in the key: MariaDB writes its buffer pool's pages at shutdown and reads
// them back at start.) flush-method changes how the files are written, not what.
var keyIgnored = []string{"out", "sample", "metrics-addr", "grid-intensity", "cpu-watts", "base-watts", "power-meter",
	"power-meter-cmd", "server-pid", "record-trace", "ignore-limits", "profiles", "client-io", "flush-method"}

// snapshotDropped are values the snapshot's load does without: a trace of a device
// that takes no time, a second Prometheus endpoint.
var snapshotDropped = []string{"record-trace", "metrics-addr"}

// populations works out each cell's population when the study asks for snapshots:
// the cells that share one reuse one load; a cell that cannot (its workload has no
// load phase of its own, its database is not the study's, a class on a directory of
// the user's) loads for itself, which the plan's notes say with the reason. A study
// where no cell can is refused at its snapshot field.
func (e *expansion) populations(plan *Plan) map[string]*Population {
	if !e.s.Snapshot {
		return nil
	}
	out := map[string]*Population{}
	byKey := map[string]*Population{}
	regs := map[string]*device.Registry{}
	refused := map[string][]string{}
	var reasons []string
	for _, c := range plan.Cells {
		p := cellPopulation(c, regs)
		if p.Refused != "" {
			if refused[p.Refused] == nil {
				reasons = append(reasons, p.Refused)
			}
			refused[p.Refused] = append(refused[p.Refused], c.ID)
		} else if same := byKey[p.Key]; same != nil {
			p = same
		} else {
			byKey[p.Key] = p
		}
		out[c.ID] = p
	}
	if len(byKey) == 0 {
		e.p.add(e.s.SnapshotPos, "no cell can reuse a load: %s; remove snapshot", reasons[0])
		return nil
	}
	for _, why := range reasons {
		ids := refused[why]
		named := ids[:min(len(ids), maxNamed)]
		more := ""
		if len(ids) > len(named) {
			more = fmt.Sprintf(" and %d more", len(ids)-len(named))
		}
		plan.Notes = append(plan.Notes, fmt.Sprintf("snapshot: %d cells load in each of their runs: %s (%s%s)", len(ids), why, strings.Join(named, ", "), more))
	}
	return out
}

// cellPopulation is the population of cell c, or why it has none.
func cellPopulation(c Cell, regs map[string]*device.Registry) *Population {
	refuse := func(format string, args ...any) *Population {
		return &Population{Refused: fmt.Sprintf(format, args...)}
	}
	m, err := workload.Get(c.Workload)
	if err != nil {
		return refuse("%v", err)
	}
	if _, ok := m.Phase(workload.Load); !ok {
		return refuse("%s has no load phase of its own: its load is part of its run and of what it measures (TPC-H's load test is inside `tpch run`)", m.Name)
	}
	switch {
	case len(c.Phases) == 0 || c.Phases[0] != workload.Load:
		return refuse("the cells run no load phase (phases: %s)", joinPhases(c))
	case len(c.Phases) == 1:
		return refuse("the cells run their load only: the load is what they measure")
	}
	for _, own := range []string{"dsn", "db"} {
		if _, ok := c.Values[own]; ok {
			return refuse("--%s names a database that is not the study's to copy", own)
		}
	}
	own, settings, err := lifecycle.ParamSets(c.Workload, workload.Load)
	if err != nil {
		return refuse("%v", err)
	}
	values := map[string][]string{}
	for name, v := range c.Values {
		n := name
		if ph, rest, ok := strings.Cut(name, "."); ok {
			if workload.Phase(ph) != workload.Load {
				continue
			}
			n = rest
		}
		if own.Lookup(n) == nil && settings.Lookup(n) == nil {
			continue // a parameter of another phase (users, duration)
		}
		values[name] = slices.Clone(v)
	}
	eng := settings.Lookup("engine")
	p := &Population{Workload: c.Workload, Engine: eng.Default}
	if v := values["engine"]; len(v) == 1 {
		p.Engine = v[0]
	}
	if why := nullTiers(values, regs); why != "" {
		return refuse("%s", why)
	}
	for _, d := range snapshotDropped {
		delete(values, d)
	}
	p.Values = values
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", p.Workload, p.Engine)
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if !slices.Contains(keyIgnored, k) {
			fmt.Fprintf(h, "%s=%q\n", k, values[k])
		}
	}
	p.Key = hex.EncodeToString(h.Sum(nil))[:12]
	return p
}

// nullTiers puts every emulated tier of a load's values on the null device, keeping
// its name, or says why the load cannot be copied: a class on a directory of the
// user's.
func nullTiers(values map[string][]string, regs map[string]*device.Registry) string {
	profiles := values["profiles"]
	reg, ok := regs[strings.Join(profiles, "\n")]
	if !ok {
		var err error
		if reg, err = device.Load(profiles...); err != nil {
			return err.Error()
		}
		regs[strings.Join(profiles, "\n")] = reg
	}
	one := func(name string) string {
		if v := values[name]; len(v) == 1 {
			return v[0]
		}
		return ""
	}
	plan, err := placement.NewPlan(values["tier"], placement.Classes{Data: one("data"), WAL: one("wal"), Temp: one("temp")}, reg)
	if err != nil {
		return err.Error()
	}
	for _, t := range plan.Tiers {
		if !t.Emulated() {
			return fmt.Sprintf("tier %s is a directory of yours (%s): a snapshot is copied onto emulated devices only, whose files the study owns", t.Name, t.Dir)
		}
	}
	named := map[string]bool{}
	for i, t := range values["tier"] {
		name, _, _ := strings.Cut(t, "=")
		name = strings.TrimSpace(name)
		named[name] = true
		values["tier"][i] = name + "=" + emulator.NullSpec
	}
	for _, class := range placement.AllClasses {
		if v := one(string(class)); v != "" && !named[v] {
			values[string(class)] = []string{emulator.NullSpec}
		}
	}
	return ""
}

// snapshotText says in the plan how the cells get their loads ("" without snapshot).
func (p *Plan) snapshotText() string {
	keys := map[string]bool{}
	cells := 0
	for _, pop := range p.Populations {
		if pop.Refused == "" {
			keys[pop.Key] = true
			cells++
		}
	}
	if len(keys) == 0 {
		return ""
	}
	what := fmt.Sprintf("%d populations, each loaded once", len(keys))
	if len(keys) == 1 {
		what = "1 population, loaded once"
	}
	return fmt.Sprintf("%s on null devices (in %s/KEY) and copied onto the tiers of each run of the %d cells that use it, before the run's commands (untimed)",
		what, SnapshotsDir, cells)
}
