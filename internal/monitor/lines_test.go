package monitor

import (
	"bytes"
	"testing"
)

// TestWriteLines pins the lines people read, from a window's figures set by hand:
// shares of CPU time from the host's counters, a disk's rates, utilisation, await and
// queue from its counters' rises over the window's 10 s, the engine's hit ratio from
// hits and misses, and the waits as shares of the active sessions.
func TestWriteLines(t *testing.T) {
	ws := &WindowSummary{Label: "4 users", Users: 4, CoveredS: 10, Samples: 10,
		Series: map[string]Stats{
			"host.cpus": {Mean: 2}, "host.procs_running": {Mean: 3.5}, "host.mem.available_mib": {Mean: 8192},
			"host.mem.total_mib": {Mean: 16384}, "host.mem.page_cache_mib": {Mean: 4096}, "host.psi.io.some_pct": {Mean: 12},
			"proc.server.rss_mib": {Max: 512}, "proc.server.processes": {Max: 6},
			"engine.sessions_active": {Mean: 4}, "engine.lock_waits": {Mean: 1},
			"engine.wait.Lock.transactionid": {Mean: 1}, "engine.wait.CPU.running": {Mean: 2.5}, "engine.wait.IO.DataFileRead": {Mean: 0.5},
		},
		Counters: map[string]CounterDelta{
			"host.cpu.all.total_s": {Delta: 20}, "host.cpu.all.busy_s": {Delta: 15}, "host.cpu.all.user_s": {Delta: 10},
			"host.cpu.all.system_s": {Delta: 4}, "host.cpu.all.irq_s": {Delta: 1}, "host.cpu.all.iowait_s": {Delta: 2},
			"host.cpu.all.steal_s": {Delta: 0},
			"proc.server.cpu_s":    {Delta: 12, PerS: 1.2}, "proc.tierbench.cpu_s": {Delta: 3, PerS: 0.3},
			"disk.vda.reads": {Delta: 1000, PerS: 100}, "disk.vda.writes": {Delta: 3000, PerS: 300},
			"disk.vda.read_bytes": {Delta: 2e7, PerS: 2e6}, "disk.vda.write_bytes": {Delta: 5e7, PerS: 5e6},
			"disk.vda.busy_s": {Delta: 9.5, PerS: 0.95}, "disk.vda.rw_wait_s": {Delta: 8, PerS: 0.8}, "disk.vda.queue_s": {Delta: 15, PerS: 1.5},
			"engine.commits": {Delta: 5000, PerS: 500}, "engine.buffer_hits": {Delta: 990}, "engine.buffer_misses": {Delta: 10},
		},
	}
	s := &Summary{IntervalS: 1, File: JSONLinesFile, Run: ws,
		Storage: []Placement{{Label: "data", Disks: []string{"vda"}}, {Label: "wal", Disks: []string{"vda"}}},
		Sources: []SourceStatus{{Name: "host", Reads: 11, Unavailable: []Unavailable{{What: "pressure stall information (memory)", Why: "it is off"}}},
			{Name: "engine", Reads: 9, Errors: 2, FirstError: "timeout"}}}
	var b bytes.Buffer
	WriteLines(&b, s, ws)
	want := `monitoring, 4 users: 10.0 s, 10 samples every 1 s; metrics.jsonl
  host: CPU 75% busy of 2 (user 50, system 20, irq 5, iowait 10, steal 0), 3.5 runnable; memory 8.0 GiB available of 16.0, page cache 4.0 GiB; pressure (some) io 12%
  processes: server 1.20 cores (512 MiB, 6 processes), tierbench 0.30 cores
  disk vda (data, wal): 100 reads/s 300 writes/s, 2.00/5.00 MB/s read/written, util 95%, await 2.00 ms, queue 1.50
  engine: 500 commits/s, buffer hits 99.0%, 4.0 sessions active, 1.0 waiting for locks; of active sessions: CPU.running 62%, Lock.transactionid 25%, IO.DataFileRead 12%
  not available: pressure stall information (memory): it is off
  engine: 2 of 11 readings failed, the first: timeout
`
	if got := b.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
