package placement

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"tierbench/internal/emulator"
	"tierbench/internal/emulator/preload"
	"tierbench/internal/engine/mysql"
	"tierbench/internal/engine/postgres"
)

// EmulatorInfo is how the run's emulated tiers reached the device models, in the
// storage section.
type EmulatorInfo struct {
	// Requested is --emulator: fuse, preload or auto.
	Requested string `json:"requested"`
	// Path is what the run used: fuse or preload.
	Path string `json:"path"`
	// Fallback says why auto took FUSE.
	Fallback string `json:"fallback,omitempty"`
}

// serverBinaries are, per managed server engine, the programs that run on its files:
// the preload shim must be able to enter each of them.
var serverBinaries = map[string]func() ([]string, error){
	"postgres": postgres.ServerBinaries,
	"mysql":    mysql.ServerBinaries,
}

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

// preloadCannot says why the preload path cannot enter engineName's I/O, nil if it can.
// SQLite runs in this process (the VFS, always there); a managed server needs the shim
// built and every one of its programs able to load it.
func preloadCannot(engineName string) error {
	if engineName == "sqlite" {
		return nil
	}
	binaries, ok := serverBinaries[engineName]
	if !ok {
		return fmt.Errorf("the preload path knows how to enter sqlite, postgres and mysql, not %q", engineName)
	}
	if _, err := preload.Shim(); err != nil {
		return err
	}
	paths, err := binaries()
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
// environment for a server (Apply passes it on), the VFS for SQLite in this process.
func (pl *Placed) startPreload() error {
	if pl.opts.Engine == "sqlite" {
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

// emulatorNote is the line the summary prints when auto fell back to FUSE.
func emulatorNote(e *EmulatorInfo) string {
	if e == nil || e.Fallback == "" {
		return ""
	}
	return "emulated through FUSE, not the preload path: " + strings.TrimSpace(e.Fallback)
}
