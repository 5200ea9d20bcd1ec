package monitor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/procfs"
)

// userHZ is the unit of the CPU times in /proc/PID/stat, as procfs assumes.
const userHZ = 100

var processSeries = []SeriesInfo{
	value("proc.<who>.cpu_cores", "cores", "CPU the process (tree) used: CPU seconds per second, 1 = one CPU busy (who: tierbench, server)"),
	value("proc.<who>.user_cores", "cores", "the part of cpu_cores in user mode"),
	value("proc.<who>.system_cores", "cores", "the part of cpu_cores in the kernel"),
	value("proc.<who>.rss_mib", "mib", "resident memory: private pages summed over the tree, shared pages (shared memory, files) counted once, as the most any one process maps (PostgreSQL's shared_buffers are in every backend)"),
	value("proc.<who>.processes", "processes", "processes in the tree"),
	value("proc.<who>.threads", "threads", "threads of the tree's processes"),
	value("proc.<who>.cpu_wait_cores", "cores", "time the tree's threads were runnable but waited for a CPU (schedstat's run delay), per second: CPU saturation, 1 = one thread always waiting"),
	value("proc.<who>.blocked_threads", "threads", "threads of the tree in uninterruptible sleep (state D) at the sample: waiting for a disk or an emulated device"),
	value("proc.<who>.goroutines_runnable", "goroutines", "tierbench only: its goroutines runnable but waiting for a thread to run on (Go's scheduler) at the sample: the users' wait for a CPU that the kernel's run delay misses, since a thread that waits holds up every goroutine queued behind it"),
	counter("proc.<who>.cpu_s", "seconds", "CPU time of the tree's processes, and of the children they have reaped"),
	counter("proc.<who>.user_s", "seconds", "the part of cpu_s in user mode"),
	counter("proc.<who>.system_s", "seconds", "the part of cpu_s in the kernel"),
}

// Process is a process to follow: PID alone, or with every process descended from it
// (Tree), named Who in the series (proc.<who>...).
type Process struct {
	Who  string
	PID  int
	Tree bool
}

// Processes reads the CPU time and memory of processes and process trees from /proc.
type Processes struct {
	fs       procfs.FS
	root     string
	pageSize float64
	targets  []Process
	d        deltas
	// runDelay is each target's threads' run delay (seconds) at the previous reading,
	// by thread id; a thread is counted once it has been read twice.
	runDelay map[string]map[int]float64
	// noSchedstat says the kernel keeps no run delay (no /proc/PID/schedstat).
	noSchedstat bool
}

// NewProcesses follows targets through the proc file system at procRoot ("" is
// /proc). A process that does not exist is an error naming it.
func NewProcesses(procRoot string, targets ...Process) (*Processes, error) {
	if procRoot == "" {
		procRoot = procfs.DefaultMountPoint
	}
	pfs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, fmt.Errorf("monitor: processes: %w", err)
	}
	for _, t := range targets {
		if t.PID <= 0 {
			return nil, fmt.Errorf("monitor: process %s: pid %d: give a process id above 0", t.Who, t.PID)
		}
		if _, err := pfs.Proc(t.PID); err != nil {
			return nil, fmt.Errorf("monitor: process %s: no process %d on this machine", t.Who, t.PID)
		}
	}
	p := &Processes{fs: pfs, root: procRoot, pageSize: float64(os.Getpagesize()), targets: targets, runDelay: map[string]map[int]float64{}}
	if len(targets) > 0 {
		if proc, err := pfs.Proc(targets[0].PID); err == nil {
			if _, err := proc.Schedstat(); err != nil {
				p.noSchedstat = true
			}
		}
	}
	return p, nil
}

// Unavailable notes a kernel without run delays (CONFIG_SCHED_INFO).
func (p *Processes) Unavailable() []Unavailable {
	if !p.noSchedstat {
		return nil
	}
	return []Unavailable{{What: "the processes' CPU wait (cpu_wait_cores)", Why: "the kernel has no /proc/PID/schedstat (built without CONFIG_SCHED_INFO)"}}
}

func (p *Processes) Name() string         { return "processes" }
func (p *Processes) Series() []SeriesInfo { return processSeries }

// treeUsage sums a tree's figures.
type treeUsage struct {
	user, system       float64 // seconds
	private, shared    float64 // bytes
	processes, threads int
}

func (p *Processes) Read(_ context.Context, now time.Time, r *Reading) error {
	p.d.begin(now)
	var errs []error
	for _, t := range p.targets {
		pids := []int{t.PID}
		if t.Tree {
			var err error
			if pids, err = p.tree(t.PID); err != nil {
				errs = append(errs, fmt.Errorf("process %s (%d): %w", t.Who, t.PID, err))
				continue
			}
		}
		u, err := p.usage(pids, t.Tree)
		if err != nil {
			errs = append(errs, fmt.Errorf("process %s (%d): %w", t.Who, t.PID, err))
			continue
		}
		base := join("proc", label(t.Who))
		delays, blocked := p.threads(pids)
		r.Value(base+".blocked_threads", float64(blocked))
		if prev, ok := p.runDelay[t.Who]; ok && p.d.secs() > 0 && len(delays) > 0 {
			wait := 0.0
			for tid, d := range delays {
				if before, ok := prev[tid]; ok && d >= before {
					wait += d - before
				}
			}
			r.Value(base+".cpu_wait_cores", wait/p.d.secs())
		}
		if len(delays) > 0 {
			p.runDelay[t.Who] = delays
		}
		if !t.Tree && t.PID == os.Getpid() {
			if n, ok := runnableGoroutines(); ok {
				r.Value(base+".goroutines_runnable", n)
			}
		}
		r.Value(base+".rss_mib", (u.private+u.shared)/(1<<20))
		r.Value(base+".processes", float64(u.processes))
		r.Value(base+".threads", float64(u.threads))
		for name, v := range map[string]float64{"user": u.user, "system": u.system, "cpu": u.user + u.system} {
			r.Counter(base+"."+name+"_s", v)
			if rate, ok := p.d.rate(base+"."+name+"_s", v); ok {
				r.Value(base+"."+name+"_cores", rate)
			}
		}
	}
	p.d.commit()
	return errors.Join(errs...)
}

// tree is root and every process below it. The kernel lists each thread's children
// in /proc/PID/task/TID/children, which costs a read or two a process of the tree
// (procfs has no reader for these lists of numbers); a kernel without them
// (CONFIG_PROC_CHILDREN) makes it read the parent of every process on the machine.
func (p *Processes) tree(root int) ([]int, error) {
	if _, err := os.Stat(p.path(root, "task", strconv.Itoa(root), "children")); err != nil {
		return p.treeByParents(root)
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		tasks, err := os.ReadDir(p.path(out[i], "task"))
		if err != nil {
			if i == 0 {
				return nil, processEnded(err)
			}
			continue // it ended since its parent listed it
		}
		for _, task := range tasks {
			list, err := os.ReadFile(p.path(out[i], "task", task.Name(), "children"))
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(list)) {
				if pid, err := strconv.Atoi(f); err == nil {
					out = append(out, pid)
				}
			}
		}
	}
	return out, nil
}

func (p *Processes) path(pid int, parts ...string) string {
	return filepath.Join(append([]string{p.root, strconv.Itoa(pid)}, parts...)...)
}

// threads reads the run delay of every thread of pids (seconds, by thread id; empty
// without schedstat) and counts those in uninterruptible sleep. A process or thread
// that ended since the tree was read is skipped; a process whose threads cannot be
// listed counts as its main thread.
func (p *Processes) threads(pids []int) (delays map[int]float64, blocked int) {
	delays = map[int]float64{}
	for _, pid := range pids {
		tasks, err := p.fs.AllThreads(pid)
		if err != nil {
			proc, err := p.fs.Proc(pid)
			if err != nil {
				continue
			}
			tasks = procfs.Procs{proc}
		}
		for _, task := range tasks {
			if st, err := task.Stat(); err == nil && st.State == "D" {
				blocked++
			}
			if p.noSchedstat {
				continue
			}
			if ss, err := task.Schedstat(); err == nil {
				delays[task.PID] = float64(ss.WaitingNanoseconds) / 1e9
			}
		}
	}
	return delays, blocked
}

// treeByParents finds the tree by every process's parent.
func (p *Processes) treeByParents(root int) ([]int, error) {
	all, err := p.fs.AllProcs()
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for _, proc := range all {
		st, err := proc.Stat()
		if err != nil {
			continue // it ended since the directory was read
		}
		children[st.PPID] = append(children[st.PPID], proc.PID)
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out, nil
}

func processEnded(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("the process has ended")
	}
	return err
}

// usage sums the processes' figures; withChildren adds the CPU time of the children
// each has reaped, so that a tree's CPU time does not fall when a process ends.
// Resident memory counts each process's private pages and, once, the most shared
// pages (file and shared memory) any of them maps. A process that ended since the
// tree was read is skipped, but not the first (the root): its end is an error.
func (p *Processes) usage(pids []int, withChildren bool) (treeUsage, error) {
	var u treeUsage
	for i, pid := range pids {
		var proc procfs.Proc
		var st procfs.ProcStat
		var mem procfs.ProcStatm
		var err error
		if proc, err = p.fs.Proc(pid); err == nil {
			if st, err = proc.Stat(); err == nil {
				mem, err = proc.Statm()
			}
		}
		if err != nil {
			if i == 0 {
				return u, processEnded(err)
			}
			continue
		}
		u.user += float64(st.UTime) / userHZ
		u.system += float64(st.STime) / userHZ
		if withChildren {
			u.user += float64(st.CUTime) / userHZ
			u.system += float64(st.CSTime) / userHZ
		}
		u.private += float64(mem.Resident-min(mem.Shared, mem.Resident)) * p.pageSize
		u.shared = max(u.shared, float64(mem.Shared)*p.pageSize)
		u.processes++
		u.threads += st.NumThreads
	}
	return u, nil
}

// runnableGoroutinesMetric is Go's count of goroutines ready to run and waiting for a
// thread (runtime/metrics, Go 1.26).
const runnableGoroutinesMetric = "/sched/goroutines/runnable:goroutines"

// runnableGoroutines reads this process's runnable goroutines; ok is false on a
// runtime without the metric.
func runnableGoroutines() (float64, bool) {
	sample := []metrics.Sample{{Name: runnableGoroutinesMetric}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0, false
	}
	return float64(sample[0].Value.Uint64()), true
}
