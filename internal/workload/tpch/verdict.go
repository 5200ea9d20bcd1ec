package tpch

import "tierbench/internal/verdict"

// VerdictWindows are the windows of the tests the run reached (verdict.Subject): the
// load with its writer sessions (rows a second), the power test with its one stream
// and the throughput test with its S query streams (queries and refresh functions a
// second). The headline is the last of them: the throughput test of a complete run,
// the one whose users are most.
func (r *Result) VerdictWindows() ([]verdict.Window, int) {
	var ws []verdict.Window
	if l := r.Load; l != nil && !l.Skipped {
		var rows int64
		for _, n := range l.Rows {
			rows += n
		}
		ws = append(ws, verdict.Window{Label: WindowLoad, Facts: verdict.Facts{Users: max(1, l.Writers), Throughput: perSecond(float64(rows), l.Total)}})
	}
	if p := r.Power; p != nil {
		n, secs := float64(len(p.Queries)), p.RF1+p.RF2
		for _, s := range p.Queries {
			secs += s
		}
		if p.RF1 > 0 {
			n++
		}
		if p.RF2 > 0 {
			n++
		}
		ws = append(ws, verdict.Window{Label: WindowPower, Facts: verdict.Facts{Users: 1, Throughput: perSecond(n, secs)}})
	}
	if t := r.Throughput; t != nil {
		n := float64(2 * len(t.Refresh))
		for _, s := range t.Streams {
			n += float64(len(s))
		}
		ws = append(ws, verdict.Window{Label: WindowThroughput, Facts: verdict.Facts{Users: max(1, r.Streams), Throughput: perSecond(n, t.Seconds)}})
	}
	return ws, len(ws) - 1
}

func perSecond(n, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return n / secs
}
