package postmark

import _ "unsafe" // go:linkname

// monotonic is the monotonic clock in nanoseconds, the one time.Since measures
// with: the runtime's nanotime, which the runtime lets packages link to. An
// operation's latency needs only it, and time.Now reads the wall clock as well, a
// second call into the kernel's vDSO each time; the four calls of time.Now and
// time.Since per operation were 2% of a run's CPU on tmpfs against Debian's postmark
// (docs/postmark.md, "Against Debian's postmark").
//
//go:linkname monotonic runtime.nanotime
func monotonic() int64
