// Package exitstatus says how a child process ended, in the words a cause is recorded
// in: "exit status 2", "killed by SIGKILL". Go's own text for a signal is the C
// library's description ("signal: killed"), which reads wrongly after "killed by"
// and does not name the signal a user would send or look for.
//
// A process a run depends on that ends before it is asked to (the emulator's server,
// a managed database server) is a DiedError, and CauseFirst puts such deaths ahead of
// the failures that followed from them in a run's error.
package exitstatus
