package verdict

import "tierbench/internal/monitor"

// Window is a measured window a workload marked (workload.Env.Mark; the monitor's
// window of the same label) and what the workload knows of it: its users, what it
// completed a second, the level before it in a sweep, an open loop's rate and lag.
type Window struct {
	Label string
	Facts Facts
}

// Subject is implemented by results whose windows can be judged: the run lifecycle
// judges each of them once the monitor has stopped (JudgeRun). headline is the index
// of the window whose numbers the result's headline reports (-1: none).
type Subject interface {
	VerdictWindows() (windows []Window, headline int)
}

// JudgeRun judges every window s measured from sum, each with its own facts and
// those of the whole run (an embedded engine, the emulated tiers), and gathers them
// into the result's section; nil without a summary or windows.
func JudgeRun(sum *monitor.Summary, s Subject, run Facts) *Section {
	if sum == nil || s == nil {
		return nil
	}
	windows, headline := s.VerdictWindows()
	if len(windows) == 0 {
		return nil
	}
	verdicts := make([]Verdict, 0, len(windows))
	for _, w := range windows {
		f := w.Facts
		f.Embedded, f.Inside, f.Tiers = run.Embedded, run.Inside, run.Tiers
		v := Judge(sum, sum.Window(w.Label), f)
		v.Window = w.Label // also for a window the monitor never saw (unknown)
		verdicts = append(verdicts, v)
	}
	return NewSection(Defaults, verdicts, headline)
}

// inside is what runs inside tierbench when f.Embedded.
func (f Facts) inside() string {
	if f.Inside == "" {
		return "the embedded engine"
	}
	return f.Inside
}
