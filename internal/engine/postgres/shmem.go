package postgres

import (
	"bufio"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"tierbench/internal/engine/instance"
)

// A postmaster that exits removes its shared memory; one killed with SIGKILL leaves it
// behind (docs/engines.md, "Leftovers of a killed server"): a small System V segment
// (the header, 56 bytes on 64-bit Linux) and, with dynamic_shared_memory_type=posix,
// files /dev/shm/PostgreSQL.<handle>: the control segment, which lists the dynamic
// segments in use, and those segments. A new postmaster on the same data directory
// would remove them (it finds the header's key in postmaster.pid); tierbench removes
// its instances' data directories, so nothing else ever would. removeShmem does what
// that restart would: from the header, the control segment; from it, the segments; then
// all of them. It touches only segments whose creator is the dead postmaster and that
// no process has attached.
//
// The layouts are PostgreSQL's, from 14 on (src/include/storage/pg_shmem.h,
// src/backend/storage/ipc/dsm.c): the header starts with its magic (int32), the
// creator's pid (int32), the total size and the offset of free space (two size_t), then
// the control segment's handle (uint32); the control segment starts with its magic,
// the number of items and the most items (three uint32), then, from offset 16, items of
// 40 bytes: the handle (uint32), the reference count (uint32), then first page, page
// count and a pointer (size_t each) and a flag. An item whose reference count is 0 is
// free; an odd handle names a part of the main shared memory, not a file.
const (
	shmemMagic       = 679834894  // PGShmemMagic
	dsmControlMagic  = 0x9a503d32 // PG_DYNSHMEM_CONTROL_MAGIC
	dsmItemsOffset   = 16
	dsmItemSize      = 40
	shmemDetachAwait = 5 * time.Second
)

// shmDir is where POSIX shared memory lives on Linux.
var shmDir = "/dev/shm"

// removeShmem removes the shared memory of the postmaster that ran in runDir, when it
// is dead: its pid is the first line of the socket's lock file there, which only a
// clean shutdown removes. A live postmaster's is never touched. It returns the files
// and segments it removed, for tests.
func removeShmem(runDir string) []string {
	locks, _ := filepath.Glob(filepath.Join(runDir, ".s.PGSQL.*.lock"))
	var removed []string
	for _, lock := range locks {
		pid := lockPID(lock)
		if pid <= 0 || instance.Alive(pid) {
			continue
		}
		removed = append(removed, removeShmemOf(pid)...)
	}
	return removed
}

// lockPID is the pid on the first line of a PostgreSQL lock file, 0 if none.
func lockPID(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(sc.Text()))
	return pid
}

// sysvSegment is a line of /proc/sysvipc/shm.
type sysvSegment struct {
	id, creator, attached int
}

// sysvSegments lists the System V segments created by pid.
func sysvSegments(pid int) []sysvSegment {
	b, err := os.ReadFile("/proc/sysvipc/shm")
	if err != nil {
		return nil
	}
	var out []sysvSegment
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 7 {
			continue
		}
		id, err1 := strconv.Atoi(f[1])
		cpid, err2 := strconv.Atoi(f[4])
		nattch, err3 := strconv.Atoi(f[6])
		if err1 == nil && err2 == nil && err3 == nil && cpid == pid {
			out = append(out, sysvSegment{id, cpid, nattch})
		}
	}
	return out
}

// removeShmemOf removes the shared memory of dead postmaster pid, once the backends
// it left have exited (they notice its death within moments).
func removeShmemOf(pid int) []string {
	var removed []string
	for _, seg := range sysvSegments(pid) {
		for deadline := time.Now().Add(shmemDetachAwait); seg.attached > 0 && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			seg.attached = attached(seg.id)
		}
		if seg.attached != 0 {
			continue // a process still uses it
		}
		control, ok := header(seg.id, pid)
		if !ok {
			continue // not a PostgreSQL header, or not this postmaster's
		}
		removed = append(removed, removeDynamic(control)...)
		if _, err := unix.SysvShmCtl(seg.id, unix.IPC_RMID, nil); err == nil {
			removed = append(removed, "sysv:"+strconv.Itoa(seg.id))
		}
	}
	return removed
}

// attached is how many processes have segment id attached, -1 when it is gone.
func attached(id int) int {
	var ds unix.SysvShmDesc
	if _, err := unix.SysvShmCtl(id, unix.IPC_STAT, &ds); err != nil {
		return -1
	}
	return int(ds.Nattch)
}

// header reads the PostgreSQL header in segment id: the handle of its dynamic shared
// memory's control segment, if the header is one and pid created it.
func header(id, pid int) (uint32, bool) {
	mem, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
	if err != nil {
		return 0, false
	}
	defer unix.SysvShmDetach(mem)
	if len(mem) < 28 {
		return 0, false
	}
	e := binary.NativeEndian
	if int32(e.Uint32(mem[0:])) != shmemMagic || int(int32(e.Uint32(mem[4:]))) != pid {
		return 0, false
	}
	return e.Uint32(mem[24:]), true
}

// removeDynamic removes the control segment named handle and the segments it lists.
func removeDynamic(handle uint32) []string {
	if handle == 0 {
		return nil
	}
	control := filepath.Join(shmDir, "PostgreSQL."+strconv.FormatUint(uint64(handle), 10))
	b, err := os.ReadFile(control)
	if err != nil {
		return nil
	}
	e := binary.NativeEndian
	if len(b) < dsmItemsOffset || e.Uint32(b[0:]) != dsmControlMagic {
		return nil
	}
	n, most := int(e.Uint32(b[4:])), int(e.Uint32(b[8:]))
	var removed []string
	if n <= most && dsmItemsOffset+most*dsmItemSize <= len(b) {
		for i := 0; i < n; i++ {
			item := b[dsmItemsOffset+i*dsmItemSize:]
			h, refs := e.Uint32(item[0:]), e.Uint32(item[4:])
			if refs == 0 || h == 0 || h&1 == 1 {
				continue
			}
			path := filepath.Join(shmDir, "PostgreSQL."+strconv.FormatUint(uint64(h), 10))
			if os.Remove(path) == nil {
				removed = append(removed, path)
			}
		}
	}
	if os.Remove(control) == nil {
		removed = append(removed, control)
	}
	return removed
}
