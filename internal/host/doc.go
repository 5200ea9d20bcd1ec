// Package host describes the machine a run ran on, for result.json and a study's
// cell.json: its name, kernel, operating system, CPU model and cores (with a
// container's CPU limit), memory (with a container's limit), the disks under the
// run's directories, the tierbench build (version and git commit) and the engine's
// version. A study merged from several machines reads it to compare each cell with
// its baseline within a host (docs/cluster.md).
//
// Collect reads /proc, /sys and /etc/os-release; what a file does not say is left
// empty rather than guessed. The build comes from -ldflags (Version, Commit) or else
// from the version control information Go embeds in a binary built from a git
// checkout (runtime/debug.ReadBuildInfo).
//
// ReadMountinfo reads /proc/self/mountinfo (proc(5)) for the disks and for the
// emulator, which finds its own FUSE mounts there.
//
// The environment variable TIERBENCH_HOSTNAME replaces the hostname recorded. It is
// a test hook, for tests and demonstrations of several hosts on one machine, and the
// record says where its name came from (HostnameFrom); runs on a real cluster leave
// it unset.
//
// The package is a leaf: it imports nothing of tierbench's.
package host
