package metrics

import "time"

// Observer sees a run's measurements as they are made, for whoever watches the run
// while it goes (the monitor marks the measured windows in its series and serves the
// throughput to Prometheus). Its methods are called from the goroutine that measures:
// they must return at once.
type Observer interface {
	// Interval receives each interval's record as it is written.
	Interval(rec IntervalRecord)
	// Window is called when the measured window of a level of users begins (start true)
	// and when it ends, with the time it did.
	Window(users int, start bool, at time.Time)
}

// Observers is one Observer that calls each of its own in turn.
type Observers []Observer

func (o Observers) Interval(rec IntervalRecord) {
	for _, x := range o {
		x.Interval(rec)
	}
}

func (o Observers) Window(users int, start bool, at time.Time) {
	for _, x := range o {
		x.Window(users, start, at)
	}
}
