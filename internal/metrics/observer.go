package metrics

// Observer sees a run's interval records as they are made, for whoever watches the run
// while it goes (the Prometheus exposition of --metrics-addr). The measured windows'
// ends reach the run's monitors through the run lifecycle's marks instead
// (workload.Env.Mark). Interval is called from the goroutine that measures: it must
// return at once.
type Observer interface {
	// Interval receives each interval's record as it is written.
	Interval(rec IntervalRecord)
}
