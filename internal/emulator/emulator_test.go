//go:build linux

package emulator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"tierbench/internal/exitstatus"
)

func startOne(t *testing.T, spec string, opts Options) (*Emulator, Device) {
	t.Helper()
	dir := t.TempDir()
	d := Device{Name: "d0", Spec: spec, BackingDir: filepath.Join(dir, "backing"), MountPoint: filepath.Join(dir, "mnt")}
	e, err := Start(context.Background(), []Device{d}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop() })
	return e, e.deviceFor(d)
}

func (e *Emulator) deviceFor(d Device) Device {
	for _, s := range e.Devices() {
		if s.Name == d.Name {
			d.MountPoint = s.MountPoint
		}
	}
	abs, _ := filepath.Abs(d.BackingDir)
	d.BackingDir = abs
	return d
}

func TestRoundTripAndCounters(t *testing.T) {
	needFUSE(t)
	e, d := startOne(t, NullSpec, testOptions(t))
	data := make([]byte, 300<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	path := filepath.Join(d.MountPoint, "sub", "f.bin")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// three writes, one fsync, two reads
	for _, part := range [][]byte{data[:100<<10], data[100<<10 : 200<<10], data[200<<10:]} {
		if _, err := f.Write(part); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(data))
	if _, err := f.ReadAt(got[:8192], 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(got[8192:], 8192); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !bytes.Equal(got, data) {
		t.Fatal("data read through the mount differs from what was written")
	}
	backing, err := os.ReadFile(filepath.Join(d.BackingDir, "sub", "f.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(backing, data) {
		t.Fatal("backing file differs from what was written through the mount")
	}
	st, err := e.Stats()
	if err != nil {
		t.Fatal(err)
	}
	s := st[0]
	if s.Reads != 2 || s.Writes != 3 || s.Flushes != 1 || s.ReadBytes != int64(len(data)) || s.WriteBytes != int64(len(data)) {
		t.Fatalf("counters: reads %d writes %d flushes %d read bytes %d write bytes %d; want 2 3 1 %d %d",
			s.Reads, s.Writes, s.Flushes, s.ReadBytes, s.WriteBytes, len(data), len(data))
	}
	if s.Latency.Count() != 6 || s.Model.Reads != 2 || s.Model.Writes != 3 || s.Model.Flushes != 1 {
		t.Fatalf("latency count %d, model %+v", s.Latency.Count(), s.Model)
	}
	if s.FloorUs <= 0 {
		t.Fatalf("floor not measured: %v", s.FloorUs)
	}
	t.Logf("floor %.1f us", s.FloorUs)
}

func TestStopUnmounts(t *testing.T) {
	needFUSE(t)
	e, d := startOne(t, NullSpec, testOptions(t))
	if !inMountinfo(t, d.MountPoint) {
		t.Fatalf("%s not in /proc/self/mountinfo after Start", d.MountPoint)
	}
	if err := os.WriteFile(filepath.Join(d.MountPoint, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	final, err := e.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if inMountinfo(t, d.MountPoint) {
		t.Fatalf("%s still mounted after Stop", d.MountPoint)
	}
	if len(final) != 1 || final[0].Writes != 1 {
		t.Fatalf("final stats %+v", final)
	}
}

// TestStopSaysTheServerDied: a server killed during the run is the cause of what
// failed after it, and Stop says so, naming its signal, and still unmounts.
func TestStopSaysTheServerDied(t *testing.T) {
	needFUSE(t)
	e, d := startOne(t, NullSpec, testOptions(t))
	if err := syscall.Kill(e.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-e.exited
	_, err := e.Stop()
	var died *exitstatus.DiedError
	if !errors.As(err, &died) || died.PID != e.PID() ||
		!strings.HasPrefix(err.Error(), fmt.Sprintf("the emulator's server (pid %d) died during the run (killed by SIGKILL): its devices failed every request from then on", e.PID())) {
		t.Errorf("Stop after the server was killed: %v", err)
	}
	if inMountinfo(t, d.MountPoint) {
		t.Errorf("%s still mounted after Stop", d.MountPoint)
	}
	e2, _ := startOne(t, NullSpec, testOptions(t))
	if _, err := e2.Stop(); err != nil {
		t.Errorf("Stop of a server alive to the end: %v", err)
	}
}

func TestStaleMountCleaned(t *testing.T) {
	needFUSE(t)
	e, d := startOne(t, NullSpec, testOptions(t))
	if err := syscall.Kill(e.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-e.exited
	if !inMountinfo(t, d.MountPoint) {
		t.Fatal("a SIGKILLed server's mount should be left behind (that is what this test cleans)")
	}
	// The next Start cleans it, even for another mount point.
	e2, _ := startOne(t, NullSpec, testOptions(t))
	if inMountinfo(t, d.MountPoint) {
		t.Fatalf("stale mount %s not cleaned by the next Start", d.MountPoint)
	}
	e2.Stop()
}

func inMountinfo(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(b, []byte(" "+path+" "))
}

// TestHDDTiming reads 50 random 8 KiB blocks with O_DIRECT through a hdd-7200 mount and
// compares each request's wall time with its own model latency, from the mount's trace
// replayed through a fresh model (the same latencies as served: TestReplayMatchesModel).
// The emulator never answers before the model's completion less the compensation, so
// each request's lower bound is exact on any host. Load only adds time, a few requests
// much (a stall) or all a little: the median ratio stays below 1.5 on a loaded host,
// where an emulator that waited twice would give 2. (The total wall time against the
// model's, bounded by 0.8 to 1.2, failed 11 of 40 runs under load.)
func TestHDDTiming(t *testing.T) {
	needFUSE(t)
	dir := t.TempDir()
	d := Device{Name: "d0", Spec: "hdd-7200", BackingDir: filepath.Join(dir, "backing"), MountPoint: filepath.Join(dir, "mnt"),
		Trace: filepath.Join(dir, "d0.trace")}
	e, err := Start(context.Background(), []Device{d}, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	const span = 512 << 30 // half the disk: seeks of every length
	path := filepath.Join(d.BackingDir, "big")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, span); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(filepath.Join(d.MountPoint, "big"), syscall.O_RDONLY|syscall.O_DIRECT, 0)
	if err != nil {
		t.Fatal(err)
	}
	buf := alignedBuf(8192)
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 50
	wall := make([]time.Duration, n)
	for i := range wall {
		off := rng.Int64N(span/8192) * 8192
		start := time.Now()
		if _, err := syscall.Pread(fd, buf, off); err != nil {
			t.Fatal(err)
		}
		wall[i] = time.Since(start)
	}
	syscall.Close(fd)
	final, err := e.Stop()
	if err != nil {
		t.Fatal(err)
	}
	s := final[0]
	if s.Reads != n {
		t.Fatalf("reads %d, want %d", s.Reads, n)
	}
	comp := s.Compensation + s.CompensationPerMiB[0]*8192/(1<<20)

	f, err := os.Open(d.Trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := NewTraceReader(f)
	if err != nil {
		t.Fatal(err)
	}
	m, err := buildModel(mustRegistry(t), "hdd-7200")
	if err != nil {
		t.Fatal(err)
	}
	ratios := make([]float64, 0, n)
	var sumWall, sumModel time.Duration
	for i := range n {
		r, err := tr.Next()
		if err != nil {
			t.Fatalf("trace request %d: %v", i+1, err)
		}
		model := m.Submit(r.At, r.Request) - r.At
		if wall[i] < model-comp {
			t.Errorf("read %d took %v, less than the model's %v minus the compensation %v: the emulator answered early", i+1, wall[i], model, comp)
		}
		ratios = append(ratios, float64(wall[i])/float64(model))
		sumWall += wall[i]
		sumModel += model
	}
	slices.Sort(ratios)
	median := ratios[n/2]
	t.Logf("%d random 8K reads: wall %v, model %v; wall/model per read: median %.3f, max %.3f; compensation %v",
		n, sumWall, sumModel, median, ratios[n-1], comp)
	if median > 1.5 {
		t.Errorf("the median read took %.2f times its model latency: the emulator adds latency of its own", median)
	}
}

func alignedBuf(n int) []byte {
	b := make([]byte, n+4096)
	off := 4096 - int(uintptr(unsafe.Pointer(&b[0]))%4096)
	return b[off : off+n]
}

// TestTwoDevicesAndPageCache mounts two devices from one server: a page cache over a
// disk, where a second buffered read of a block is a hit, and a null device that
// counts apart from it. The disk takes 200 ms per command, so a miss must wait at least
// that long (the emulator never answers early) and a hit, which the model answers in a
// microsecond, must not: the best of three hits staying above 200 ms would take three
// stalls of that length in a row, which no load short of a hung host produces. (With a
// plain hdd-7200 the seek can be under 1 ms, and a hit delayed by load looked like a
// miss, so the test failed on a busy host.)
func TestTwoDevicesAndPageCache(t *testing.T) {
	needFUSE(t)
	dir := t.TempDir()
	devs := []Device{
		{Name: "data", Spec: "pagecache(hdd-7200(controller=200ms),size=64MiB)", BackingDir: filepath.Join(dir, "b1"), MountPoint: filepath.Join(dir, "m1")},
		{Name: "wal", Spec: NullSpec, BackingDir: filepath.Join(dir, "b2"), MountPoint: filepath.Join(dir, "m2")},
	}
	if err := os.MkdirAll(devs[0].BackingDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(devs[0].BackingDir, "t"), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Start(context.Background(), devs, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	f, err := os.Open(filepath.Join(devs[0].MountPoint, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 8192)
	var lat [4]time.Duration // the miss, then three hits
	for i := range lat {
		s := time.Now()
		if _, err := f.ReadAt(buf, 512<<10); err != nil {
			t.Fatal(err)
		}
		lat[i] = time.Since(s)
	}
	if err := os.WriteFile(filepath.Join(devs[1].MountPoint, "w"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := e.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 || st[0].Name != "data" || st[1].Name != "wal" {
		t.Fatalf("stats for %d devices: %+v", len(st), st)
	}
	if st[0].Reads != 4 || st[0].Writes != 0 || st[1].Writes != 1 || st[1].Reads != 0 {
		t.Fatalf("data reads %d writes %d, wal reads %d writes %d", st[0].Reads, st[0].Writes, st[1].Reads, st[1].Writes)
	}
	if st[0].Model.Hits != 6 || st[0].Model.Misses != 2 || len(st[0].Members) != 1 || st[0].Members[0].Stats.Reads != 1 {
		t.Fatalf("page cache: model %+v members %+v", st[0].Model, st[0].Members)
	}
	// The miss waited for the disk's read: its busy time is the model's service time,
	// and the emulator takes at most the compensation off it.
	disk := st[0].Members[0].Stats.Busy
	comp := st[0].Compensation + st[0].CompensationPerMiB[0]*8192/(1<<20)
	if disk < 200*time.Millisecond || lat[0] < disk-comp {
		t.Fatalf("disk read %v, compensation %v; the miss took %v: want at least the disk's time less the compensation", disk, comp, lat[0])
	}
	if hit := min(lat[1], lat[2], lat[3]); hit >= disk {
		t.Fatalf("disk read %v; the hits took %v: want the best of them below the disk's time", disk, lat[1:])
	}
	t.Logf("disk read %v; miss %v, hits %v", disk, lat[0], lat[1:])
}
