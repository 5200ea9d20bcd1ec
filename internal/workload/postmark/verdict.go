package postmark

import "tierbench/internal/verdict"

// VerdictWindows are the phases the run reached (verdict.Subject), each with its one
// user (Postmark runs one process) and its operations a second; an idle run has its
// one window. The headline is the transactions phase, Postmark's headline figure,
// else the last phase reached.
func (r *Result) VerdictWindows() ([]verdict.Window, int) {
	if r.Config.Idle > 0 {
		return []verdict.Window{{Label: IdleWindow, Facts: verdict.Facts{Users: 1}}}, 0
	}
	var ws []verdict.Window
	headline := -1
	for i, p := range r.Phases {
		var ops int64
		for _, o := range p.Ops {
			ops += o.Count
		}
		f := verdict.Facts{Users: 1}
		if p.Seconds > 0 {
			f.Throughput = float64(ops) / p.Seconds
		}
		ws = append(ws, verdict.Window{Label: p.Name, Facts: f})
		if p.Name == TransactionsPhase.String() {
			headline = i
		}
	}
	if headline < 0 {
		headline = len(ws) - 1
	}
	return ws, headline
}
