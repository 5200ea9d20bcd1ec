//go:build linux && cgo

// Package sqlitevfs puts embedded SQLite (mattn/go-sqlite3) on the emulator's preload
// path: a VFS that wraps SQLite's default one and times the reads, writes and syncs of
// files under a preload ring's device directories through the ring, with the same
// client code (../preload/client.h) as the LD_PRELOAD shim runs in a server. It is
// registered as the default VFS the first time a ring is attached, so the engine
// opens its database as usual; files elsewhere go straight to the wrapped VFS.
//
// Temp files (sorts, temp indexes) are named by the wrapper in SQLITE_TMPDIR when that
// directory is a device's, so they reach the device too. A device's file is never
// read through a memory map (xFetch answers "no mapping").
package sqlitevfs

/*
#cgo CFLAGS: -O2 -std=gnu11 -I${SRCDIR}/../preload
#include <stdlib.h>
#include "ring.h"
int tb_vfs_register(void);
int tb_vfs_attach(const char *path, char *err, size_t errlen);
void tb_vfs_detach(int slot);
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	_ "github.com/mattn/go-sqlite3" // the SQLite the VFS wraps

	// The VFS compiles the ring's client code from package preload's headers, which
	// the go command does not track for this package (they are outside its
	// directory): importing preload, whose compiled code does depend on them, makes a
	// change to them rebuild this package too, and builtVersion checks it did.
	"tierbench/internal/emulator/preload"
)

// builtVersion is the ring version the VFS's C code was compiled for.
const builtVersion = C.TB_VERSION

var mu sync.Mutex

// Attach times, from now on, SQLite's I/O on files under the devices of the ring at
// path. The returned detach stops that for files opened later; files still open keep
// the ring until they close. Attach's own process counts as one attached to the ring.
func Attach(path string) (detach func(), err error) {
	mu.Lock()
	defer mu.Unlock()
	if builtVersion != preload.RingVersion {
		return nil, fmt.Errorf("sqlite VFS: compiled for ring version %d, the emulator speaks %d: a stale build (go clean -cache, then build again)", builtVersion, preload.RingVersion)
	}
	if rc := C.tb_vfs_register(); rc != 0 {
		return nil, fmt.Errorf("sqlite VFS: register: SQLite error %d", int(rc))
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var errbuf [256]C.char
	slot := C.tb_vfs_attach(cpath, &errbuf[0], C.size_t(len(errbuf)))
	if slot < 0 {
		return nil, fmt.Errorf("sqlite VFS: %s", C.GoString(&errbuf[0]))
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			C.tb_vfs_detach(slot)
		})
	}, nil
}
