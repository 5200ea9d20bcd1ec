package placement

import (
	"errors"
	"fmt"
	"os"

	"tierbench/internal/emulator"
	"tierbench/internal/emulator/preload"
	"tierbench/internal/engine"
)

// choosePath decides the path of the emulated tiers for an engine: FUSE when asked;
// preload when asked and it can enter the engine (an error when it cannot); for auto,
// preload where it can, else FUSE with the reason.
func choosePath(requested, engineName string) (path, fallback string, err error) {
	switch requested {
	case "", emulator.PathFUSE:
		return emulator.PathFUSE, "", nil
	case emulator.PathPreload, emulator.PathAuto:
	default:
		return "", "", fmt.Errorf("placement: emulator path %q: give %s, %s or %s", requested, emulator.PathFUSE, emulator.PathPreload, emulator.PathAuto)
	}
	why := preloadCannot(engineName)
	switch {
	case why == nil:
		return emulator.PathPreload, "", nil
	case requested == emulator.PathAuto:
		return emulator.PathFUSE, why.Error(), nil
	}
	return "", "", fmt.Errorf("--emulator preload: %w; or use --emulator fuse (or auto, which falls back to it)", why)
}

// preloadCannot says why the preload path cannot enter engineName's I/O, nil if it can,
// as the engine's driver says (engine.Preload): an engine in this process through
// the VFS; a managed server when the shim builds and every program the server runs
// on its files can load it. A workload without an engine ("") does its own I/O in
// tierbench, which no shim enters.
func preloadCannot(engineName string) error {
	if engineName == "" {
		return errors.New("the workload's I/O is tierbench's own, which the preload path cannot enter (it enters database engines)")
	}
	io, err := engine.IOSettingsOf(engineName)
	if err != nil {
		return err
	}
	switch pre := io.Preload; {
	case pre == nil:
		return fmt.Errorf("the preload path cannot enter %s's I/O", engineName)
	case pre.InProcess:
		return nil
	case pre.Programs == nil:
		return fmt.Errorf("%s names no server programs for the preload shim to enter", engineName)
	}
	if _, err := preload.Shim(); err != nil {
		return err
	}
	paths, err := io.Preload.Programs()
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := preload.CheckBinary(p); err != nil {
			return err
		}
	}
	return nil
}

// startPreload connects the engine to the ring of a preload emulator: the shim's
// environment for a server (EngineFiles passes it on), the VFS for SQLite in this process.
func (pl *Placed) startPreload() error {
	io, err := engine.IOSettingsOf(pl.opts.Engine)
	if err != nil {
		return err
	}
	if io.Preload != nil && io.Preload.InProcess {
		detach, err := attachSQLite(pl.em.RingPath())
		if err != nil {
			return err
		}
		pl.detach = detach
		return nil
	}
	so, err := preload.Shim()
	if err != nil {
		return err
	}
	if prev := os.Getenv("LD_PRELOAD"); prev != "" {
		so += ":" + prev
	}
	pl.env = []string{"LD_PRELOAD=" + so, "TIERBENCH_RING=" + pl.em.RingPath()}
	return nil
}

// checkRing turns what a preload ring's clients reported into an error: a failure of
// the ring, I/O it could not time, or no process of the engine that loaded the shim
// (a server maps the ring as it starts, the SQLite VFS as placement starts: Stats,
// called once the engine is open, sees it as well as Finish). Any of them means the
// devices' counters are not the engine's I/O.
func checkRing(devs []emulator.DeviceStats) error {
	for _, d := range devs {
		h := d.Ring
		if h == nil {
			continue
		}
		// one ring serves every device: the first one says it all
		switch {
		case h.Failed != "":
			return fmt.Errorf("the preload path failed, so the devices' counters miss I/O: %s", h.Failed)
		case h.Unseen > 0:
			return fmt.Errorf("the engine did I/O on the devices' files that the preload path cannot time (%d calls, the first: %s): the devices' counters miss it; use --emulator fuse",
				h.Unseen, h.UnseenFirst)
		case h.Attached == 0:
			return errors.New("no process of the engine loaded the preload shim (LD_PRELOAD was ignored or removed): its I/O was not timed; use --emulator fuse")
		}
		return nil
	}
	return nil
}
