// Package capacity estimates what a command will need (memory, disk) before it starts
// and refuses what cannot fit on this host, with one line that gives the estimate, the
// limit and how to override it. A benchmark that runs the machine out of memory or disk
// half way through loses the time, may take the host down with it, and measures
// nothing; a few arithmetic checks before the first row is written avoid that.
//
//	need := capacity.Need{What: "tpcc load --warehouses 500", Memory: ..., Disk: ..., DiskDir: out}
//	if err := capacity.Check(need, ignoreLimits); err != nil { return err }
//
// Estimates are deliberately coarse (what a load writes per row, what a server
// process holds per connection); each caller documents where its figures come from.
// The host's limits come from /proc/meminfo (MemAvailable) and statfs(2) of the
// directory that will hold the data.
package capacity
