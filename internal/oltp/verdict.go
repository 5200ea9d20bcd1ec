package oltp

import "tierbench/internal/verdict"

// Judge sets r.Verdict from r.Monitoring: each level's window judged with what the
// level measured (its users and TPS, the level before it in the sweep, an open loop's
// rate and lag) and run, what the workload knows of the whole run (an embedded
// engine, the tiers). The headline verdict is that of r.Users' level. Without
// monitoring r.Verdict stays nil.
func (r *RunResult) Judge(levels []LevelReport, run verdict.Facts) {
	if r.Monitoring == nil {
		return
	}
	verdicts := make([]verdict.Verdict, 0, len(levels))
	headline := -1
	for i, l := range levels {
		f := run
		f.Users, f.Throughput, f.Rate = l.Users, l.TPS, r.Rate
		if i > 0 {
			f.Previous = &verdict.Level{Users: levels[i-1].Users, Throughput: levels[i-1].TPS}
		}
		if lag := l.ScheduleLag; lag != nil {
			f.LagMeanMs, f.LatePct = lag.MeanMs, 100*lag.LateShare
		}
		verdicts = append(verdicts, verdict.Judge(r.Monitoring, r.Monitoring.Level(l.Users), f))
		if headline < 0 && l.Users == r.Users {
			headline = i
		}
	}
	r.Verdict = verdict.NewSection(verdict.Defaults, verdicts, headline)
}
