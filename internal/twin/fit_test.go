package twin

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"tierbench/internal/device"
)

// quick are the smallest settings a fit takes: a 256 MiB working set, one round of
// 100 ms a probe.
func quick() FitOptions {
	return FitOptions{Size: MinSize, Rounds: 1, Budget: minBudget}
}

// leftovers lists the probe files left in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".tierbench-fit-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFitWritesAProfileThatParses fits the disk under a temporary directory for real,
// with the smallest settings: every field of the profile parses, names the probe it
// came from, and the model fits the probes it was fitted to.
func TestFitWritesAProfileThatParses(t *testing.T) {
	dir := t.TempDir()
	if w, err := Locate(dir); err != nil {
		t.Skipf("the temporary directory is not on a device: %v", err)
	} else if w.FreeBytes < 1<<30 {
		t.Skipf("%s has %d bytes free", dir, w.FreeBytes)
	}
	var progress bytes.Buffer
	opts := quick()
	opts.Progress = &progress
	opts.Name = "twin-test"
	res, err := Fit(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := leftovers(t, dir); len(got) > 0 {
		t.Errorf("probe files left behind: %v", got)
	}
	ps, err := device.ParseProfiles("twin.yaml", res.Profile)
	if err != nil {
		t.Fatalf("the profile does not parse: %v\n%s", err, res.Profile)
	}
	p := ps[0]
	if p.Name != "twin-test" || p.Class != "measured" {
		t.Errorf("profile %s of class %s", p.Name, p.Class)
	}
	probeOf := map[string]string{"read_p50_us": "randread-8k-qd1", "write_p99_us": "randwrite-8k-qd1",
		"flush_tail_us": "writeflush-8k", "read_iops": "randread-8k-qd32", "write_mbps": "seqwrite-1m-qd1", "queues": "randrw70-8k-qd32"}
	for key, probe := range probeOf {
		if src := p.Fields[key].Source; !strings.Contains(src, probe) {
			t.Errorf("field %s: source %q does not name probe %s", key, src, probe)
		}
	}
	for _, want := range []string{"# Device twin of", "randread-8k-qd1", "commit-8k", "(check)"} {
		if !bytes.Contains(res.Profile, []byte(want)) {
			t.Errorf("the profile's header lacks %q:\n%s", want, res.Profile)
		}
	}
	// The quantiles and the mean of the depth-1 latencies are fitted exactly, so the
	// model's mean is the measured one but for the 20000 draws' sampling error.
	for _, r := range res.Probes {
		if (r.Probe == "randread-8k-qd1" || r.Probe == "randwrite-8k-qd1") && (r.ErrorPct > 5 || r.ErrorPct < -5) {
			t.Errorf("%s: model %.1f us against %.1f measured", r.Probe, r.Model, r.Measured)
		}
	}
	if !strings.Contains(progress.String(), "preconditioned") {
		t.Errorf("no progress: %q", progress.String())
	}
}

// TestFitRefusesBadDirectories: each bad directory is one line that says what is
// wrong and what to do, and nothing is left in it.
func TestFitRefusesBadDirectories(t *testing.T) {
	t.Run("memory file system", func(t *testing.T) {
		shm, err := os.MkdirTemp("/dev/shm", "twin-test-")
		if err != nil {
			t.Skipf("no /dev/shm: %v", err)
		}
		defer os.RemoveAll(shm)
		_, err = Fit(context.Background(), shm, quick())
		want := "is on tmpfs, a file system in memory: there is no device under it to fit"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	})
	t.Run("no such directory", func(t *testing.T) {
		_, err := Fit(context.Background(), filepath.Join(t.TempDir(), "nope"), quick())
		if err == nil || !strings.Contains(err.Error(), "no such directory") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("too little free space", func(t *testing.T) {
		dir := t.TempDir()
		opts := quick()
		opts.Size = 1 << 50
		_, err := Fit(context.Background(), dir, opts)
		want := "but the probes need 1024 TiB"
		if err == nil || !strings.Contains(err.Error(), "free, but the probes need") || !strings.Contains(err.Error(), "give a smaller --size (at least 256 MiB)") {
			t.Errorf("error %v, want %q and the way out", err, want)
		}
		if got := leftovers(t, dir); len(got) > 0 {
			t.Errorf("files left: %v", got)
		}
	})
	t.Run("read-only", func(t *testing.T) {
		dir := readOnlyDir(t)
		_, err := Fit(context.Background(), dir, quick())
		if err == nil || !strings.Contains(err.Error(), "is not writable") || !strings.Contains(err.Error(), "give a writable directory") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("O_DIRECT refused", func(t *testing.T) {
		dir := t.TempDir()
		openFile = func(name string, flag int, perm fs.FileMode) (*os.File, error) {
			if flag&syscall.O_DIRECT != 0 {
				// what open(2) says on a file system without direct I/O
				return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EINVAL}
			}
			return os.OpenFile(name, flag, perm)
		}
		defer func() { openFile = os.OpenFile }()
		_, err := Fit(context.Background(), dir, quick())
		if !errors.Is(err, ErrNoDirect) || !strings.Contains(err.Error(), "the probes would time the page cache, not the device") {
			t.Errorf("error %v", err)
		}
		if got := leftovers(t, dir); len(got) > 0 {
			t.Errorf("files left: %v", got)
		}
	})
}

// readOnlyDir is a directory writes fail in: a read-only bind mount as root (whom
// permissions do not stop), else one without write permission.
func readOnlyDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return dir
	}
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		t.Fatalf("bind mount: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
		t.Fatalf("read-only remount: %v", err)
	}
	return dir
}

// TestFitInterrupted: Ctrl-C in the middle of the probes removes the probe files and
// writes no profile.
func TestFitInterrupted(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "twin.yaml")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := NewFitSettings()
	for name, value := range map[string]string{"size": "256MiB", "rounds": "1", "budget": "2s", "out": out} {
		if err := f.Params().Set(name, value); err != nil {
			t.Fatal(err)
		}
	}
	// cancel in the middle of the second probe: the first reports its round after
	// its 2 s budget, and the second then runs for another 2 s
	stderr := &cancelOn{want: "round 1/1 seqwrite-1m-qd1", cancel: func() { time.AfterFunc(300*time.Millisecond, cancel) }}
	var stdout bytes.Buffer
	start := time.Now()
	err := f.Run(ctx, dir, &stdout, stderr)
	if err == nil || !strings.Contains(err.Error(), "interrupted: the probe files are removed") {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("the fit took %v to stop", d)
	}
	if got := leftovers(t, dir); len(got) > 0 {
		t.Errorf("probe files left: %v", got)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a profile was written: %v", err)
	}
}

// cancelOn cancels when a line containing want is written.
type cancelOn struct {
	want   string
	cancel func()
}

func (c *cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.want) {
		c.cancel()
	}
	return len(p), nil
}

func TestFitSettingsRefuseBadFlags(t *testing.T) {
	for _, c := range []struct{ flag, value, want string }{
		{"size", "1MiB", "--size 1 MiB: give a working set from 256 MiB to 1 TiB"},
		{"rounds", "0", "--rounds 0: give 1 to 20 runs of each probe"},
		{"budget", "1ms", "--budget 1ms: give the longest run of each probe, from 100ms to 1m0s"},
		{"name", "my disk", `--name "my disk": a profile name may not contain spaces`},
		{"out", "/nonexistent/dir/twin.yaml", "--out /nonexistent/dir/twin.yaml: directory /nonexistent/dir does not exist"},
	} {
		f := NewFitSettings()
		if err := f.Params().Set(c.flag, c.value); err != nil {
			t.Fatal(err)
		}
		err := f.Run(context.Background(), t.TempDir(), &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--%s %s: error %v, want %q", c.flag, c.value, err, c.want)
		}
	}
}
