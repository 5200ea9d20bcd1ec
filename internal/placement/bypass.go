package placement

import (
	"context"
	"fmt"
	"slices"

	"tierbench/internal/emulator"
	"tierbench/internal/engine"
	"tierbench/internal/result"
)

// What the devices may miss of the bytes the engine counts as written before a run
// fails as bypassed. The engine's counters are not the devices' to the byte: the WAL
// an engine counts may still sit in its log buffer (PostgreSQL's wal_buffers and
// MariaDB's innodb_log_buffer_size, 16 MiB at most by default), and a PostgreSQL
// backend publishes its counts about once a second, so I/O made before the first
// reading (the CREATE DATABASE that opening the engine ran writes some 8 MB of WAL)
// may be counted after it. A path the shim does not see (native AIO, io_uring, a
// process that dropped LD_PRELOAD, a file outside the tiers) misses most of the I/O of
// its kind. Reads are recorded but not judged: PostgreSQL up to 15 counts a relation's
// new pages as blocks read (blks_read), which no device reads.
const (
	bypassSlack = 32 << 20
	bypassShare = 0.25
)

// engineWatch is the start of the engine I/O check: the engine's counters and the
// devices' at the same moment.
type engineWatch struct {
	counter engine.IOCounter
	start   engine.IOBytes
	devices []emulator.DeviceStats
}

// WatchEngineIO starts the check that the engine's I/O reaches the devices, on the
// preload path, for an engine that counts its own I/O (engine.IOCounter) with its data
// and WAL on emulated tiers; otherwise it does nothing. Call it once the engine is
// open, and CheckEngineIO before it closes. An engine whose counters cannot be read
// (a server version tierbench does not read them on) is not checked.
func (pl *Placed) WatchEngineIO(ctx context.Context, eng engine.Engine) error {
	c, ok := eng.(engine.IOCounter)
	if !ok || pl.emu == nil || pl.emu.Path != emulator.PathPreload || !pl.engineFilesEmulated() {
		return nil
	}
	b, err := c.IOBytes(ctx)
	if err != nil {
		return nil
	}
	st, err := pl.em.Stats()
	if err != nil {
		return err
	}
	pl.watch = &engineWatch{counter: c, start: b, devices: st}
	return nil
}

// CheckEngineIO compares what the engine counted since WatchEngineIO with what the
// devices saw, records the comparison in the storage section and returns a
// *BypassError when the devices missed the engine's writes. With the WAL on a tier of
// its own, the log and the rest are compared apart: a WAL that went around its
// device is not hidden by the data tier's writes (PostgreSQL up to 15 also writes a
// relation's new pages as zeros first, which it does not count).
func (pl *Placed) CheckEngineIO(ctx context.Context) error {
	w := pl.watch
	if w == nil {
		return nil
	}
	pl.watch = nil
	b, err := w.counter.IOBytes(ctx)
	if err != nil {
		return nil
	}
	st, err := pl.em.Stats()
	if err != nil {
		return err
	}
	chk := &result.EngineIOCheck{
		EngineRead: b.Read - w.start.Read, EngineWritten: b.Written - w.start.Written, EngineLog: b.Log - w.start.Log,
		Source: b.Source,
	}
	wal, walApart := pl.plan.Tier(WAL)
	if data, _ := pl.plan.Tier(Data); walApart && wal.Name == data.Name {
		walApart = false
	}
	for _, d := range st {
		read, written := d.ReadBytes, d.WriteBytes
		if i := slices.IndexFunc(w.devices, func(s emulator.DeviceStats) bool { return s.Name == d.Name }); i >= 0 {
			read -= w.devices[i].ReadBytes
			written -= w.devices[i].WriteBytes
		}
		chk.DeviceRead += read
		chk.DeviceWritten += written
		if walApart && d.Name == wal.Name {
			chk.LogTier, chk.LogTierWrites = d.Name, written
		}
	}
	if walApart {
		chk.Bypassed = missed(chk.EngineLog, chk.LogTierWrites) ||
			missed(chk.EngineWritten-chk.EngineLog, chk.DeviceWritten-chk.LogTierWrites)
	} else {
		chk.Bypassed = missed(chk.EngineWritten, chk.DeviceWritten)
	}
	pl.emu.EngineIO = chk
	if chk.Bypassed {
		return &BypassError{Check: *chk}
	}
	return nil
}

// missed says whether devices that saw dev bytes missed enough of the engine's eng
// to be bypassed.
func missed(eng, dev int64) bool {
	gap := eng - dev
	return gap > bypassSlack && float64(gap) > bypassShare*float64(eng)
}

// engineFilesEmulated says whether the files the engine's counters count (data and
// WAL; a WAL not placed is beside the data) are on emulated tiers.
func (pl *Placed) engineFilesEmulated() bool {
	data, ok := pl.plan.Tier(Data)
	if !ok || !data.Emulated() {
		return false
	}
	wal, ok := pl.plan.Tier(WAL)
	return !ok || wal.Emulated()
}

// BypassError fails a run whose engine counted writes to its files that the emulated
// devices did not see: the devices' figures, and what the run measured on them, are
// not the engine's.
type BypassError struct {
	Check result.EngineIOCheck
}

func (e *BypassError) Error() string {
	c := e.Check
	mib := func(n int64) float64 { return float64(n) / (1 << 20) }
	seen := fmt.Sprintf("the emulated devices saw %.1f MiB written", mib(c.DeviceWritten))
	if c.LogTier != "" {
		seen += fmt.Sprintf(", %.1f MiB of it on the WAL's tier %s", mib(c.LogTierWrites), c.LogTier)
	}
	return fmt.Sprintf("the engine's I/O went around the preload path: it counted %.1f MiB written, %.1f MiB of it WAL (%s), but %s, so the devices' figures miss the rest: use --emulator fuse",
		mib(c.EngineWritten), mib(c.EngineLog), c.Source, seen)
}
