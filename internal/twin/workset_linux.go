package twin

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"tierbench/internal/device"
)

// logSize is the commit probe's file: a preallocated write-ahead log that commits
// append to and wrap around in, as PostgreSQL's 16 MiB WAL segments and InnoDB's redo
// log are written.
const logSize = 64 << 20

// workingSet is the probes' files in the directory under test: data, opened with
// O_DIRECT, which every probe but the commit reads and writes; log, opened without it,
// for the commit probe.
type workingSet struct {
	size      int64
	data, log *os.File
	// buffered is the data file opened again without O_DIRECT, for the writeback
	// probe
	buffered *os.File
	paths    []string
	logPos   int64
	flushPos int64
}

// ErrNoDirect says the file system refused O_DIRECT: the probes would measure the page
// cache, not the device.
var ErrNoDirect = errors.New("O_DIRECT refused")

// openFile opens the probe files; a test puts a file system that refuses O_DIRECT in
// its place.
var openFile = os.OpenFile

// openWorkingSet creates the probe files in dir (names with this process's id, so two
// fits never share one). On error nothing is left behind.
func openWorkingSet(dir string, size int64) (_ *workingSet, err error) {
	ws := &workingSet{size: size}
	defer func() {
		if err != nil {
			ws.remove()
		}
	}()
	base := filepath.Join(dir, fmt.Sprintf(".tierbench-fit-%d", os.Getpid()))
	open := func(path string, flags int) (*os.File, error) {
		f, err := openFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|flags, 0o600)
		if err == nil {
			ws.paths = append(ws.paths, path)
		}
		return f, err
	}
	if ws.data, err = open(base+".data", syscall.O_DIRECT); err != nil {
		if errors.Is(err, syscall.EINVAL) {
			return nil, fmt.Errorf("%s: %w by its file system: the probes would time the page cache, not the device; give a directory on a file system that takes O_DIRECT (ext4, xfs, btrfs)", dir, ErrNoDirect)
		}
		return nil, writeError(dir, err)
	}
	if ws.log, err = open(base+".log", 0); err != nil {
		return nil, writeError(dir, err)
	}
	if ws.buffered, err = openFile(base+".data", os.O_RDWR, 0); err != nil {
		return nil, writeError(dir, err)
	}
	return ws, nil
}

// writeError words a failure to create or write the probe files.
func writeError(dir string, err error) error {
	switch {
	case errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return fmt.Errorf("%s is not writable (%v): the probes write a working set there; give a writable directory on the device to fit", dir, err)
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("%s: the device filled up during the probes (%v): free space or give a smaller --size", dir, err)
	}
	return fmt.Errorf("%s: %w", dir, err)
}

// remove closes and removes the probe files.
func (ws *workingSet) remove() {
	for _, f := range []*os.File{ws.data, ws.log, ws.buffered} {
		if f != nil {
			f.Close()
		}
	}
	for _, p := range ws.paths {
		os.Remove(p)
	}
	ws.paths = nil
}

// alignedBuffer is size bytes at a page boundary, as O_DIRECT needs, filled with
// non-zero bytes so that no layer below can elide the writes.
func alignedBuffer(size int64) ([]byte, error) {
	b, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	for i := range b {
		b[i] = byte(i*7 + 1)
	}
	return b, nil
}

// fill writes the whole working set and the log once, sequentially in 1 MiB requests:
// every block the probes touch is then allocated and written (preconditioned), so no
// probe times a file system allocating blocks or a device reading holes.
func (ws *workingSet) fill(ctx context.Context) error {
	buf, err := alignedBuffer(seqSize)
	if err != nil {
		return err
	}
	defer unix.Munmap(buf)
	for _, f := range []struct {
		file *os.File
		size int64
	}{{ws.data, ws.size}, {ws.log, logSize}} {
		for off := int64(0); off < f.size; off += seqSize {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := unix.Pwrite(int(f.file.Fd()), buf, off); err != nil {
				if errors.Is(err, syscall.EINVAL) && f.file == ws.data {
					return fmt.Errorf("%w: a 1 MiB O_DIRECT write failed (%v)", ErrNoDirect, err)
				}
				return writeError(filepath.Dir(f.file.Name()), err)
			}
		}
		if err := unix.Fdatasync(int(f.file.Fd())); err != nil {
			return writeError(filepath.Dir(f.file.Name()), err)
		}
	}
	return nil
}

// run runs probe p once: until budget has passed or max requests completed, or ctx
// ends (then the error is ctx's). seed makes the random offsets of each round its own.
func (ws *workingSet) run(ctx context.Context, p probe, budget time.Duration, maxRequests int64, seed uint64) (round, error) {
	if p.kind == kindWriteback {
		return ws.writeback(ctx, p, budget, seed)
	}
	workers := max(p.depth, 1)
	type result struct {
		lat   []time.Duration
		n     int64
		bytes int64
		err   error
	}
	results := make([]result, workers)
	var issued int64
	var mu sync.Mutex
	take := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if issued >= maxRequests {
			return false
		}
		issued++
		return true
	}
	start := time.Now()
	deadline := start.Add(budget)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := &results[w]
			buf, err := alignedBuffer(p.size)
			if err != nil {
				res.err = err
				return
			}
			defer unix.Munmap(buf)
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			blocks := ws.size / p.size
			seqOff := int64(0)
			for ctx.Err() == nil && time.Now().Before(deadline) && take() {
				t0 := time.Now()
				var err error
				switch p.kind {
				case kindRandom:
					op := p.op
					if p.readShare > 0 {
						op = device.OpWrite
						if rng.Float64() < p.readShare {
							op = device.OpRead
						}
					}
					err = ws.direct(op, buf, rng.Int64N(blocks)*p.size)
				case kindSequential:
					err = ws.direct(p.op, buf, seqOff)
					seqOff = (seqOff + p.size) % (blocks * p.size)
				case kindFlush:
					if err = ws.direct(device.OpWrite, buf, ws.flushPos); err == nil {
						ws.flushPos = (ws.flushPos + p.size) % (blocks * p.size)
						err = unix.Fdatasync(int(ws.data.Fd()))
					}
				case kindCommit:
					if _, err = unix.Pwrite(int(ws.log.Fd()), buf, ws.logPos); err == nil {
						ws.logPos = (ws.logPos + p.size) % logSize
						err = unix.Fdatasync(int(ws.log.Fd()))
					}
				}
				if err != nil {
					res.err = fmt.Errorf("probe %s: %w", p.Name, err)
					return
				}
				res.lat = append(res.lat, time.Since(t0))
				res.n++
				res.bytes += p.size
			}
		}()
	}
	wg.Wait()
	r := round{elapsed: time.Since(start)}
	for _, res := range results {
		if res.err != nil {
			return r, res.err
		}
		r.requests += res.n
		r.bytes += res.bytes
		r.latencies = append(r.latencies, res.lat...)
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	return r, nil
}

// writeback runs a writeback probe: cycles of writebackBlocks buffered writes to
// distinct random blocks and a timed fdatasync, until budget has passed or ctx ends.
// The round's elapsed time is the fdatasyncs' alone, and its requests the blocks
// they wrote back; after each the pages are dropped, so the page cache does not grow
// through the fit.
func (ws *workingSet) writeback(ctx context.Context, p probe, budget time.Duration, seed uint64) (round, error) {
	var r round
	buf, err := alignedBuffer(p.size)
	if err != nil {
		return r, err
	}
	defer unix.Munmap(buf)
	rng := rand.New(rand.NewPCG(seed, 0))
	blocks := ws.size / p.size
	n := min(writebackBlocks, blocks)
	fd := int(ws.buffered.Fd())
	seen := make(map[int64]bool, n)
	deadline := time.Now().Add(budget)
	for ctx.Err() == nil && time.Now().Before(deadline) {
		clear(seen)
		for int64(len(seen)) < n {
			off := rng.Int64N(blocks) * p.size
			if seen[off] {
				continue
			}
			seen[off] = true
			if _, err := unix.Pwrite(fd, buf, off); err != nil {
				return r, fmt.Errorf("probe %s: %w", p.Name, err)
			}
		}
		t0 := time.Now()
		if err := unix.Fdatasync(fd); err != nil {
			return r, fmt.Errorf("probe %s: %w", p.Name, err)
		}
		d := time.Since(t0)
		r.elapsed += d
		r.requests += n
		r.bytes += n * p.size
		r.latencies = append(r.latencies, d)
		if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
			return r, fmt.Errorf("probe %s: %w", p.Name, err)
		}
	}
	return r, ctx.Err()
}

// direct reads or writes buf at off through the O_DIRECT file.
func (ws *workingSet) direct(op device.Op, buf []byte, off int64) error {
	var err error
	if op == device.OpRead {
		_, err = unix.Pread(int(ws.data.Fd()), buf, off)
	} else {
		_, err = unix.Pwrite(int(ws.data.Fd()), buf, off)
	}
	return err
}
