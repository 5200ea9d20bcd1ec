package preload

import "tierbench/internal/result"

// Health is what clients reported about the ring as a whole; it goes into the
// storage section of a result as it is, so its type is the result's.
type Health = result.RingHealth
