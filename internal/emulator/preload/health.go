package preload

// Health is what the ring's clients reported about it as a whole. The storage section
// of a result (package result) holds the same fields; placement copies them across, so
// that this package, which the shim, the SQLite VFS and the server share, links
// nothing of the results, the engines or the monitor.
type Health struct {
	// Attached counts processes that mapped the ring (the shim's constructor, a VFS).
	Attached int64 `json:"attached"`
	// FullWaits counts requests that found every slot busy and waited for one.
	FullWaits int64 `json:"full_waits,omitempty"`
	// SlowAnswers counts requests whose answer came after their deadline (the server
	// was asleep or descheduled for longer than the device's latency).
	SlowAnswers int64 `json:"slow_answers,omitempty"`
	// Failed is the first failure a client reported: its requests were not timed.
	Failed string `json:"failed,omitempty"`
	// Unseen counts calls on a device's files whose I/O the ring cannot time (mmap,
	// native AIO, io_uring, sync_file_range); UnseenFirst names the first.
	Unseen      int64  `json:"unseen,omitempty"`
	UnseenFirst string `json:"unseen_first,omitempty"`
	// RealtimeConsumer: the server's consumer ran at a real-time priority and answered
	// at once on a busy host (false when the host refused it: it needs CAP_SYS_NICE or
	// an RLIMIT_RTPRIO above 0; then answers wait for a CPU there).
	RealtimeConsumer bool `json:"realtime_consumer,omitempty"`
}
