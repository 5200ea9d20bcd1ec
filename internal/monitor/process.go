package monitor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/prometheus/procfs"
)

// userHZ is the unit of the CPU times in /proc/PID/stat, as procfs assumes.
const userHZ = 100

var processSeries = []SeriesInfo{
	value("proc.<who>.cpu_cores", "cores", "CPU the process (tree) used: CPU seconds per second, 1 = one CPU busy (who: tierbench, server)"),
	value("proc.<who>.user_cores", "cores", "the part of cpu_cores in user mode"),
	value("proc.<who>.system_cores", "cores", "the part of cpu_cores in the kernel"),
	value("proc.<who>.rss_mib", "mib", "resident memory: private (RssAnon) summed over the tree, shared memory and file pages counted once, as the most any one process maps (PostgreSQL's shared_buffers are in every backend)"),
	value("proc.<who>.processes", "processes", "processes in the tree"),
	value("proc.<who>.threads", "threads", "threads of the tree's processes"),
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
	fs      procfs.FS
	targets []Process
	d       deltas
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
	return &Processes{fs: pfs, targets: targets}, nil
}

func (p *Processes) Name() string         { return "processes" }
func (p *Processes) Series() []SeriesInfo { return processSeries }

// treeUsage sums a tree's figures.
type treeUsage struct {
	user, system       float64 // seconds
	anon, shmem, file  float64 // bytes
	processes, threads int
}

func (p *Processes) Read(_ context.Context, now time.Time, r *Reading) error {
	p.d.begin(now)
	var children map[int][]int
	for _, t := range p.targets {
		if t.Tree && children == nil {
			var err error
			if children, err = p.children(); err != nil {
				return fmt.Errorf("processes: %w", err)
			}
		}
	}
	var errs []error
	for _, t := range p.targets {
		pids := []int{t.PID}
		if t.Tree {
			pids = tree(children, t.PID)
		}
		u, err := p.usage(pids, t.Tree)
		if err != nil {
			errs = append(errs, fmt.Errorf("process %s (%d): %w", t.Who, t.PID, err))
			continue
		}
		base := join("proc", label(t.Who))
		r.Value(base+".rss_mib", (u.anon+u.shmem+u.file)/(1<<20))
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

// children maps every process to its children.
func (p *Processes) children() (map[int][]int, error) {
	all, err := p.fs.AllProcs()
	if err != nil {
		return nil, err
	}
	m := map[int][]int{}
	for _, proc := range all {
		st, err := proc.Stat()
		if err != nil {
			continue // it ended since the directory was read
		}
		m[st.PPID] = append(m[st.PPID], proc.PID)
	}
	return m, nil
}

// tree is root and every process below it.
func tree(children map[int][]int, root int) []int {
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// usage sums the processes' figures; withChildren adds the CPU time of the children
// each has reaped, so that a tree's CPU time does not fall when a process ends. A
// process that ended since the tree was read is skipped, but not the first (the root):
// its end is an error.
func (p *Processes) usage(pids []int, withChildren bool) (treeUsage, error) {
	var u treeUsage
	for i, pid := range pids {
		proc, err := p.fs.Proc(pid)
		var st procfs.ProcStat
		if err == nil {
			st, err = proc.Stat()
		}
		var status procfs.ProcStatus
		if err == nil {
			status, err = proc.NewStatus()
		}
		if err != nil {
			if i == 0 {
				if errors.Is(err, fs.ErrNotExist) {
					return u, errors.New("the process has ended")
				}
				return u, err
			}
			continue
		}
		u.user += float64(st.UTime) / userHZ
		u.system += float64(st.STime) / userHZ
		if withChildren {
			u.user += float64(st.CUTime) / userHZ
			u.system += float64(st.CSTime) / userHZ
		}
		u.anon += float64(status.RssAnon)
		u.shmem = max(u.shmem, float64(status.RssShmem))
		u.file = max(u.file, float64(status.RssFile))
		u.processes++
		u.threads += st.NumThreads
	}
	return u, nil
}
