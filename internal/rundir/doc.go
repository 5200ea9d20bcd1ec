// Package rundir guards the directories tierbench writes results into: a Lock keeps a
// second tierbench out of a directory another one is using, and SetAside moves an
// earlier run's files out of the way before a new run writes its own, so no result is
// destroyed before the one replacing it exists.
//
// A Lock is flock(2) on DIR/tierbench.lock, held from the start of a command to its
// end. The kernel drops it when the holder exits, however it exits, so a lock of a dead
// process never blocks; the file records who holds it (pid, command line, since when)
// so that a refused command can name the one it waits for. The package knows nothing
// of commands or engines: managed servers' run directories take the same Lock.
package rundir
