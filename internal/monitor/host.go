package monitor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
)

// psiResources are the resources the kernel reports pressure stalls for.
var psiResources = []string{"cpu", "io", "memory"}

// hostSeries are the host source's series. CPU shares are of the CPU time that passed
// (the machine's, for cpu "all": 100 is every CPU busy).
var hostSeries = []SeriesInfo{
	value("host.cpu.<cpu>.user_pct", "pct", "time in user mode, nice included (cpu: all, or a CPU's number)"),
	value("host.cpu.<cpu>.system_pct", "pct", "time in the kernel, interrupts left out"),
	value("host.cpu.<cpu>.irq_pct", "pct", "time serving hardware and soft interrupts"),
	value("host.cpu.<cpu>.iowait_pct", "pct", "idle time with I/O outstanding"),
	value("host.cpu.<cpu>.steal_pct", "pct", "time the hypervisor gave to other guests"),
	value("host.cpu.<cpu>.idle_pct", "pct", "idle time without I/O outstanding"),
	value("host.cpu.<cpu>.busy_pct", "pct", "100 - idle - iowait"),
	counter("host.cpu.all.user_s", "seconds", "CPU time of every CPU in user mode since boot; a window's share of a mode is its delta over total_s's"),
	counter("host.cpu.all.system_s", "seconds", "CPU time in the kernel since boot"),
	counter("host.cpu.all.irq_s", "seconds", "CPU time serving interrupts since boot"),
	counter("host.cpu.all.iowait_s", "seconds", "idle time with I/O outstanding since boot"),
	counter("host.cpu.all.steal_s", "seconds", "time stolen by the hypervisor since boot"),
	counter("host.cpu.all.idle_s", "seconds", "idle time since boot"),
	counter("host.cpu.all.busy_s", "seconds", "busy time (total - idle - iowait) since boot"),
	counter("host.cpu.all.total_s", "seconds", "CPU time of every mode since boot"),
	value("host.cpus", "cpus", "CPUs the kernel reports"),
	value("host.procs_running", "tasks", "runnable tasks: above host.cpus, tasks wait for a CPU"),
	value("host.procs_blocked", "tasks", "tasks blocked on I/O"),
	value("host.context_switches_per_s", "per_s", "context switches"),
	counter("host.context_switches", "switches", "context switches since boot"),
	value("host.load_1", "tasks", "load average over 1 minute"),
	value("host.load_5", "tasks", "load average over 5 minutes"),
	value("host.load_15", "tasks", "load average over 15 minutes"),
	value("host.mem.total_mib", "mib", "MemTotal"),
	value("host.mem.available_mib", "mib", "MemAvailable: what can be had without swapping"),
	value("host.mem.used_mib", "mib", "MemTotal - MemAvailable"),
	value("host.mem.free_mib", "mib", "MemFree: memory holding nothing"),
	value("host.mem.page_cache_mib", "mib", "Cached + Buffers: the page cache"),
	value("host.mem.dirty_mib", "mib", "Dirty: page cache waiting to be written"),
	value("host.mem.writeback_mib", "mib", "Writeback: page cache being written"),
	value("host.mem.swap_used_mib", "mib", "SwapTotal - SwapFree"),
	value("host.psi.<resource>.some_pct", "pct", "share of the time at least one task stalled on resource (cpu, io, memory): pressure stall information"),
	value("host.psi.<resource>.full_pct", "pct", "share of the time every non-idle task stalled on resource"),
	counter("host.psi.<resource>.some_s", "seconds", "time at least one task stalled on resource since boot"),
	counter("host.psi.<resource>.full_s", "seconds", "time every non-idle task stalled on resource since boot"),
}

// Host reads the machine's CPU, memory, load and pressure stall information from
// /proc.
type Host struct {
	fs          procfs.FS
	psi         []string // resources whose pressure the kernel reports
	unavailable []Unavailable
	d           deltas
}

// NewHost reads the proc file system mounted at procRoot ("" is /proc). Pressure stall
// information the kernel does not have is noted (Unavailable), not an error.
func NewHost(procRoot string) (*Host, error) {
	if procRoot == "" {
		procRoot = procfs.DefaultMountPoint
	}
	pfs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, fmt.Errorf("monitor: host: %w", err)
	}
	h := &Host{fs: pfs}
	if _, err := pfs.Stat(); err != nil {
		return nil, fmt.Errorf("monitor: host: %w", err)
	}
	var missing []string
	var why error
	for _, res := range psiResources {
		if _, err := pfs.PSIStatsForResource(res); err != nil {
			missing, why = append(missing, res), err
			continue
		}
		h.psi = append(h.psi, res)
	}
	if len(missing) > 0 {
		h.unavailable = append(h.unavailable, Unavailable{What: "pressure stall information (" + joinWords(missing) + ")", Why: psiWhy(why)})
	}
	return h, nil
}

// psiWhy says why /proc/pressure could not be read.
func psiWhy(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "/proc/pressure is missing: the kernel is older than 4.20 or built without CONFIG_PSI"
	case errors.Is(err, syscall.EOPNOTSUPP):
		return "the kernel has pressure stall information turned off (booted with psi=0, or CONFIG_PSI_DEFAULT_DISABLED without psi=1)"
	}
	return err.Error()
}

func (h *Host) Name() string               { return "host" }
func (h *Host) Series() []SeriesInfo       { return hostSeries }
func (h *Host) Unavailable() []Unavailable { return h.unavailable }

func (h *Host) Read(_ context.Context, now time.Time, r *Reading) error {
	h.d.begin(now)
	st, err := h.fs.Stat()
	if err != nil {
		return fmt.Errorf("host: %w", err)
	}
	h.cpu(r, "all", st.CPUTotal, true)
	cpus := make([]int64, 0, len(st.CPU))
	for n := range st.CPU {
		cpus = append(cpus, n)
	}
	sort.Slice(cpus, func(i, j int) bool { return cpus[i] < cpus[j] })
	for _, n := range cpus {
		h.cpu(r, strconv.FormatInt(n, 10), st.CPU[n], false)
	}
	r.Value("host.cpus", float64(len(st.CPU)))
	r.Value("host.procs_running", float64(st.ProcessesRunning))
	r.Value("host.procs_blocked", float64(st.ProcessesBlocked))
	r.Counter("host.context_switches", float64(st.ContextSwitches))
	if v, ok := h.d.rate("host.context_switches", float64(st.ContextSwitches)); ok {
		r.Value("host.context_switches_per_s", v)
	}

	if load, err := h.fs.LoadAvg(); err == nil {
		r.Value("host.load_1", load.Load1)
		r.Value("host.load_5", load.Load5)
		r.Value("host.load_15", load.Load15)
	} else {
		return fmt.Errorf("host: load: %w", err)
	}
	mem, err := h.fs.Meminfo()
	if err != nil {
		return fmt.Errorf("host: memory: %w", err)
	}
	memory(r, mem)

	for _, res := range h.psi {
		p, err := h.fs.PSIStatsForResource(res)
		if err != nil {
			return fmt.Errorf("host: pressure: %w", err)
		}
		for stall, line := range map[string]*procfs.PSILine{"some": p.Some, "full": p.Full} {
			if line == nil {
				continue
			}
			total := float64(line.Total) / 1e6
			name := join("host.psi", res, stall)
			r.Counter(name+"_s", total)
			if v, ok := h.d.rate(name+"_s", total); ok {
				r.Value(name+"_pct", min(100, 100*v))
			}
		}
	}
	h.d.commit()
	return nil
}

// cpu adds one CPU's shares (and, with counters, the seconds of each mode).
func (h *Host) cpu(r *Reading, n string, c procfs.CPUStat, counters bool) {
	// The kernel counts guest time inside user time: it is not added again.
	modes := map[string]float64{
		"user": c.User + c.Nice, "system": c.System, "irq": c.IRQ + c.SoftIRQ,
		"iowait": c.Iowait, "steal": c.Steal, "idle": c.Idle,
	}
	total := 0.0
	for _, v := range modes {
		total += v
	}
	modes["busy"] = total - c.Idle - c.Iowait
	base := join("host.cpu", n)
	dt, ok := h.d.set(base+".total_s", total)
	for mode, v := range modes {
		if counters {
			r.Counter(base+"."+mode+"_s", v)
		}
		dv, okMode := h.d.set(base+"."+mode+"_s", v)
		if ok && okMode && dt > 0 {
			r.Value(base+"."+mode+"_pct", 100*dv/dt)
		}
	}
	if counters {
		r.Counter(base+".total_s", total)
	}
}

// memory adds the memory values, in MiB.
func memory(r *Reading, m procfs.Meminfo) {
	kib := func(p *uint64) float64 {
		if p == nil {
			return 0
		}
		return float64(*p) / 1024
	}
	r.Value("host.mem.total_mib", kib(m.MemTotal))
	r.Value("host.mem.free_mib", kib(m.MemFree))
	if m.MemAvailable != nil {
		r.Value("host.mem.available_mib", kib(m.MemAvailable))
		r.Value("host.mem.used_mib", kib(m.MemTotal)-kib(m.MemAvailable))
	}
	r.Value("host.mem.page_cache_mib", kib(m.Cached)+kib(m.Buffers))
	r.Value("host.mem.dirty_mib", kib(m.Dirty))
	r.Value("host.mem.writeback_mib", kib(m.Writeback))
	r.Value("host.mem.swap_used_mib", kib(m.SwapTotal)-kib(m.SwapFree))
}

// joinWords lists words as "a, b and c".
func joinWords(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	out := words[0]
	for _, w := range words[1 : len(words)-1] {
		out += ", " + w
	}
	return out + " and " + words[len(words)-1]
}
