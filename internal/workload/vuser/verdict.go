package vuser

import (
	"tierbench/internal/monitor"
	"tierbench/internal/verdict"
)

// LevelWindows are the windows of a run's levels for its verdict (verdict.Subject):
// each judged with what the level measured (its users and TPS, the level before it in
// the sweep, an open loop's rate and lag). The headline is r.Users' level.
func (r *RunResult) LevelWindows(levels []LevelReport) ([]verdict.Window, int) {
	windows := make([]verdict.Window, 0, len(levels))
	headline := -1
	for i, l := range levels {
		f := verdict.Facts{Users: l.Users, Throughput: l.TPS, Rate: r.Rate}
		if l.Users > 0 && l.Latency.Mean > 0 {
			// Little's law: transactions in flight are the throughput times their mean
			// latency; over the users, the share of their time inside transactions.
			f.ActivePct = 100 * l.TPS * l.Latency.Mean / 1000 / float64(l.Users)
		}
		if i > 0 {
			f.Previous = &verdict.Level{Users: levels[i-1].Users, Throughput: levels[i-1].TPS}
		}
		if lag := l.ScheduleLag; lag != nil {
			f.LagMeanMs, f.LatePct = lag.MeanMs, 100*lag.LateShare
		}
		for _, w := range l.AppWaits {
			f.AppWaits = append(f.AppWaits, verdict.AppWait{Name: w.Name, Kind: w.Kind, Holders: w.Holders, Waiting: w.Waiting})
		}
		windows = append(windows, verdict.Window{Label: monitor.LevelLabel(l.Users), Facts: f})
		if headline < 0 && l.Users == r.Users {
			headline = i
		}
	}
	return windows, headline
}
