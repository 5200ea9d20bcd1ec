package vuser

import (
	"fmt"
	"runtime"

	"tierbench/internal/capacity"
	"tierbench/internal/engine"
)

// UserMemory is what one virtual user costs tierbench itself in resident memory: its
// goroutine, its worker (prepared statements, argument and row buffers) and its driver
// connection, with users sharing metrics handles (maxHandles). Measured with
// scripts/session-memory (at most 101 KiB a user, on PostgreSQL with the policy mix),
// rounded up (docs/oltp.md, "What a load or a run needs"); the engine's side of a
// session is engine.Dialect.Footprint.SessionMemory.
const UserMemory = 128 << 10

// LoaderMemory is what one parallel loader costs tierbench: the generator's buffers,
// the pipe to the bulk loader, the driver's copy buffers. tierbench's peak RSS over
// `tpcc load --engine postgres --warehouses 4` was 23.5 MiB with 1 loader and 35.5 MiB
// with 8: 1.7 MiB a loader, rounded up (docs/oltp.md, "What a load or a run needs").
const LoaderMemory = 2 << 20

// Loaders is the number of parallel loads a load runs for n given (0: automatic, one
// per core and at least 2) on the engine d (nil: any), capped by its writers (SQLite:
// 1).
func Loaders(n int, d *engine.Dialect) int {
	if n <= 0 {
		n = max(2, runtime.NumCPU())
	}
	if d != nil && d.MaxWriters > 0 {
		n = min(n, d.MaxWriters)
	}
	return n
}

// sessionMemory is what one session costs this host: own bytes of tierbench's, and the
// engine's SessionMemory unless its server is external (its memory is not this
// host's to count). The basis says so in words.
func sessionMemory(own int64, d *engine.Dialect, external bool, who string) (float64, string) {
	if external || d.Footprint.SessionMemory == 0 {
		return float64(own), fmt.Sprintf("about %s per %s for tierbench", capacity.Bytes(float64(own)), who)
	}
	per := own + d.Footprint.SessionMemory
	return float64(per), fmt.Sprintf("about %s per %s: %s for the %s session and %s for tierbench's own",
		capacity.Bytes(float64(per)), who, capacity.Bytes(float64(d.Footprint.SessionMemory)), d.Name, capacity.Bytes(float64(own)))
}

// RunNeed is the memory a run of up to users virtual users on the engine d needs of
// this host (scripts/session-memory measured the figures).
func RunNeed(what string, users int, d *engine.Dialect, external bool) capacity.Need {
	per, basis := sessionMemory(UserMemory, d, external, "user")
	return capacity.Need{What: what, Memory: float64(users) * per, Basis: basis}
}

// LoadersNeed is the memory loaders parallel loads (0: automatic) on the engine d
// need of this host: each holds a session of the engine and a loader's buffers.
func LoadersNeed(loaders int, d *engine.Dialect, external bool) capacity.Need {
	n := Loaders(loaders, d)
	per, basis := sessionMemory(LoaderMemory, d, external, "loader")
	count := fmt.Sprintf("%d loaders", n)
	if n == 1 {
		count = "1 loader"
	}
	return capacity.Need{Memory: float64(n) * per, Basis: count + ", " + basis}
}
