package verdict

import (
	"fmt"
	"strings"
)

// appWaiting is the mean number of users waiting for any of the application's gates.
func (m *measured) appWaiting() float64 {
	var n float64
	for _, w := range m.f.AppWaits {
		n += w.Waiting
	}
	return n
}

// application judges the application's own gates: users waited for its connection
// pool or its critical sections AppWaitPct of their time or more, time in which their
// statements never reached the database. It explains that share, and when it fires it
// comes before every other finding: the database's findings then describe only the
// concurrency the application let through.
func (th Thresholds) application(m *measured) (Finding, bool) {
	if len(m.f.AppWaits) == 0 {
		return Finding{}, false
	}
	share := m.pct(m.appWaiting())
	from := "the users' waits for the application's gates (the workload's own clock), over the users"
	f := Finding{Rule: Application, Resource: "the application's gates", Fires: "all",
		ExplainsPct: round1(share), ExplainsFrom: from}
	f.Checks = append(f.Checks, atLeast("users' time waiting for the application's gates", share, th.AppWaitPct, "pct", from))
	f.Fired = all(f.Checks)
	var parts []string
	for _, w := range m.f.AppWaits {
		name := w.gateName()
		f.Waits = append(f.Waits, Wait{Name: name, Pct: round1(m.pct(w.Waiting))})
		parts = append(parts, fmt.Sprintf("%s %.0f%%", name, m.pct(w.Waiting)))
	}
	if len(parts) == 1 {
		f.Text = fmt.Sprintf("users waited for %s %.0f%% of their time", m.f.AppWaits[0].gateName(), share)
	} else {
		f.Text = fmt.Sprintf("users waited for the application's gates %.0f%% of their time: %s", share, strings.Join(parts, ", "))
	}
	return f, true
}

// gateName names a gate in words: "the connection pool (4 connections)", "critical
// section policy (1 holder)".
func (w AppWait) gateName() string {
	unit := "holder"
	what := "critical section " + w.Name
	if w.Kind == "pool" {
		unit, what = "connection", "the connection pool"
	}
	if w.Holders != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%s (%d %s)", what, w.Holders, unit)
}
