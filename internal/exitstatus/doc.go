// Package exitstatus says how a child process ended, in the words a cause is recorded
// in: "exit status 2", "killed by SIGKILL". Go's own text for a signal is the C
// library's description ("signal: killed"), which reads wrongly after "killed by"
// and does not name the signal a user would send or look for.
package exitstatus
