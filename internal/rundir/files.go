package rundir

// Files a report writes into the directory it reports on (a run's OUT, a study's):
// the page and its figures. They live here, beside the lock and SetAside, because a
// run that sets its earlier result aside takes the report drawn from it along, and
// the run lifecycle must know their names without linking the report's charts.
const (
	ReportFile = "report.html"
	FiguresDir = "figures"
)
