package study

import (
	"tierbench/internal/report"
)

// claimsText is what the report says above its table of claims: how each kind of
// claim is judged.
var claimsText = []string{
	"Each claim the study file makes (expect), judged against the runs with 95% intervals: a ratio of means by the delta method on the log scale, a difference of means by Welch's interval, both with Welch-Satterthwaite degrees of freedom.",
	"A ratio holds when its interval leaves out 1 on the paper's side and its value is within the band; a band around 1 (no difference) holds when the interval lies within it. " +
		"An order holds when every difference between neighbouring levels has its interval above 0. A rising or falling trend holds when every step goes that way and the last level over the first has its interval on that side of 1; " +
		"a flat one when each level over the first has its interval within the band. " +
		"Held in direction only: the measured value goes the paper's way, but its magnitude is outside the band or its direction is not established at 95%. " +
		"A claim on a cell that is excluded, failed, not run yet or has one repetition cannot be judged.",
}

// claimsTable is the report's table of judged claims.
func claimsTable(js []Judgement) *report.Table {
	t := report.NewTable("expected-findings", "Expected findings", report.Column{Label: "id"}, report.Column{Label: "claim"},
		report.Column{Label: "the paper"}, report.Column{Label: "held within"}, report.Column{Label: "measured (95% CI)"},
		report.Column{Label: "verdict"}, report.Column{Label: "why"})
	for _, j := range js {
		band := report.Text(report.Missing)
		if j.Held != "" {
			band = report.Text(sig(j.Low, 3) + " to " + sig(j.High, 3) + " (" + j.Held + ")")
		}
		verdict := report.Text(j.Words())
		switch j.Verdict {
		case VerdictHeld:
			verdict.Class = report.ClassBetter
		case VerdictNotHeld, VerdictCannot:
			verdict.Class = report.ClassWorse
		}
		measured := report.Text(j.Figure)
		if j.Figure == "" {
			measured = report.Text(report.Missing)
		}
		t.AddRow(report.Text(j.ID), report.Text(j.Text), report.Text(j.Paper+" ("+j.Source+")"), band, measured, verdict, report.Text(j.Why))
	}
	return t
}
