// Package instance runs the private database servers of managed engines: it finds the
// server binaries, picks the OS user a server runs as (PostgreSQL refuses root), starts
// the server as a child process that dies with tierbench, waits for it to accept
// connections and stops it.
//
// The server gets its own process group, so a Ctrl-C in the terminal reaches tierbench
// only and tierbench decides how the server stops; Pdeathsig covers tierbench being
// killed outright. (Linux sends the parent-death signal when the thread that started
// the child exits; Go only ends threads locked with runtime.LockOSThread, so do not
// start servers from such a goroutine.)
package instance
