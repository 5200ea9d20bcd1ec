package monitor

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/engine/servertest"
)

// BenchmarkSample measures what one sample with every source costs, on each engine
// (scripts/monitor-cost runs it): tierbench's CPU (cpu_us/sample: the process does
// nothing else) and the server's (server_cpu_us/sample: its process tree's CPU while
// sampling, less what it used idle over as long). Samples are taken back to back.
func BenchmarkSample(b *testing.B) {
	ctx := context.Background()
	engines := []struct {
		name string
		open func(b *testing.B, dir string) engine.Engine
	}{
		{"sqlite", func(b *testing.B, dir string) engine.Engine {
			e, err := engine.Open(ctx, engine.Config{Name: "sqlite", Dir: dir})
			if err != nil {
				b.Fatal(err)
			}
			return e
		}},
	}
	for _, s := range servertest.Servers {
		engines = append(engines, struct {
			name string
			open func(b *testing.B, dir string) engine.Engine
		}{s.Name, func(b *testing.B, dir string) engine.Engine {
			if err := s.Installed(); err != nil {
				b.Skipf("%s: %v", s.Name, err)
			}
			e, err := engine.Open(ctx, engine.Config{Name: s.Name, Dir: dir, Settings: s.NoSync})
			if err != nil {
				b.Fatal(err)
			}
			return e
		}})
	}
	for _, eng := range engines {
		b.Run(eng.name, func(b *testing.B) {
			dir, err := os.MkdirTemp("", "tierbench-cost-")
			if err != nil {
				b.Fatal(err)
			}
			os.Chmod(dir, 0o755)
			defer os.RemoveAll(dir)
			e := eng.open(b, filepath.Join(dir, "db"))
			defer e.Close()
			m, server := costMonitor(b, e, filepath.Join(dir, "db"))
			idle := treeCPU(b, server)
			t0 := time.Now()
			time.Sleep(500 * time.Millisecond)
			idleRate := (treeCPU(b, server) - idle).Seconds() / time.Since(t0).Seconds()

			srv0, cpu0, wall0 := treeCPU(b, server), processCPU(), time.Now()
			b.ResetTimer()
			for range b.N {
				m.take(nil)
			}
			b.StopTimer()
			cpu := processCPU() - cpu0
			srv := (treeCPU(b, server) - srv0).Seconds() - idleRate*time.Since(wall0).Seconds()
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu_us/sample")
			if server != 0 {
				b.ReportMetric(max(0, srv)*1e6/float64(b.N), "server_cpu_us/sample")
			}
			if s := m.Latest(); len(s.Errors) > 0 {
				b.Fatalf("sample errors: %v", s.Errors)
			}
		})
	}
}

// costMonitor is a monitor with every source over e, writing metrics.jsonl in dir,
// and the pid whose tree is e's server (0 for SQLite, which runs in the process).
func costMonitor(b *testing.B, e engine.Engine, dir string) (*Monitor, int) {
	server := 0
	targets := []Process{{Who: "tierbench", PID: os.Getpid()}}
	if srv, ok := e.(engine.Server); ok {
		server = srv.ServerPID()
		targets = append(targets, Process{Who: "server", PID: server, Tree: true})
	}
	host, err := NewHost("")
	if err != nil {
		b.Fatal(err)
	}
	procs, err := NewProcesses("", targets...)
	if err != nil {
		b.Fatal(err)
	}
	disks, err := NewStorage("", "", []Directory{{"data", dir}})
	if err != nil {
		b.Fatal(err)
	}
	// Three emulated tiers: what the emulator's counters cost to turn into series.
	emu := NewEmulated(func() ([]EmulatedDevice, error) {
		return []EmulatedDevice{{Name: "data"}, {Name: "wal"}, {Name: "temp"}}, nil
	})
	eng, ok, err := NewEngine(context.Background(), e)
	if err != nil || !ok {
		b.Fatal(ok, err)
	}
	m, err := New(Config{Interval: time.Second, Dir: dir, Sources: []Source{host, procs, disks, emu, eng}})
	if err != nil {
		b.Fatal(err)
	}
	return m, server
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// treeCPU is the CPU time of pid's process tree, as the processes source counts it
// (0 for pid 0).
func treeCPU(b *testing.B, pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	p, err := NewProcesses("", Process{Who: "x", PID: pid, Tree: true})
	if err != nil {
		b.Fatal(err)
	}
	r := newReading()
	if err := p.Read(context.Background(), time.Now(), r); err != nil {
		b.Fatal(err)
	}
	return time.Duration(r.Counters["proc.x.cpu_s"] * float64(time.Second))
}
