package tpch

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"tierbench/internal/result"
)

// ResultFile is the name of the result file in the output directory.
const ResultFile = result.File

// maxSummaryFailures caps the validation messages the summary prints; result.json has all.
const maxSummaryFailures = 20

// Summary writes the human-readable summary of r: per-query times per stream, refresh
// times, load steps, the three metrics with their unrounded twins and, when files were
// placed on tiers, the storage section.
func Summary(w io.Writer, r *Result) {
	s := summaryWriter{w: w}
	s.header(r)
	s.load(r.Load)
	s.power(r.Power)
	s.throughput(r.Throughput)
	s.metrics(r.Metrics)
	s.verdict(r)
	s.validation(r.Validation)
	r.Storage.WriteSummary(w)
}

// summaryWriter prints the sections of Summary. A write error has nowhere to go (the
// summary goes to a terminal), so it is ignored.
type summaryWriter struct{ w io.Writer }

func (s summaryWriter) printf(format string, args ...any) {
	fmt.Fprintf(s.w, format, args...)
}

func (s summaryWriter) header(r *Result) {
	s.printf("TPC-H run: SF %s, %d query streams, seed %d\n", formatSF(r.SF), r.Streams, r.Seed)
	e := r.Engine
	if e.Name != "" {
		s.printf("Engine: %s", e.Name)
		if e.Version != "" {
			s.printf(" %s", e.Version)
		}
		if e.Mode != "" {
			s.printf(" (%s)", e.Mode)
		}
		s.printf("\n")
		if len(e.Settings) > 0 {
			keys := make([]string, 0, len(e.Settings))
			for k := range e.Settings {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for i, k := range keys {
				keys[i] = k + "=" + e.Settings[k]
			}
			s.printf("Settings: %s\n", strings.Join(keys, ", "))
		}
	}
	if r.Started != "" {
		s.printf("Started %s", r.Started)
		if r.Finished != "" {
			s.printf(", finished %s", r.Finished)
		}
		s.printf("\n")
	}
	if r.Failed != "" {
		s.printf("RUN FAILED: %s\n(the sections below show what finished before)\n", r.Failed)
	}
}

func (s summaryWriter) load(l *LoadResult) {
	s.printf("\n")
	if l == nil {
		s.printf("Load test: not run\n")
		return
	}
	if l.Skipped {
		s.printf("Load test: skipped (--skip-load), the database was loaded before\n")
		return
	}
	steps := slices.Clone(l.Order)
	var rest []string
	for name := range l.Steps {
		if !slices.Contains(steps, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	steps = append(steps, rest...)
	width := len("total")
	for _, name := range steps {
		width = max(width, len(name))
	}
	s.printf("Load test (Clause 5.1.1.2)\n")
	s.printf("  %-*s %12s\n", width, "step", "seconds")
	for _, name := range steps {
		sec, ok := l.Steps[name]
		s.printf("  %-*s %12s\n", width, name, formatSeconds(sec, ok))
	}
	s.printf("  %-*s %12.3f\n", width, "total", l.Total)
	if len(l.Rows) > 0 {
		tables := make([]string, 0, len(l.Rows))
		for t := range l.Rows {
			tables = append(tables, t)
		}
		slices.Sort(tables)
		for i, t := range tables {
			tables[i] = t + " " + strconv.FormatInt(l.Rows[t], 10)
		}
		s.printf("  rows: %s\n", strings.Join(tables, ", "))
	}
}

func (s summaryWriter) power(p *PowerResult) {
	s.printf("\n")
	if p == nil {
		s.printf("Power test: not run\n")
		return
	}
	s.printf("Power test (query stream 0, update set %d)\n", p.UpdateSet)
	s.printf("  %-5s %12s\n", "", "seconds")
	s.printf("  %-5s %12s\n", "RF1", formatSeconds(p.RF1, p.RF1 != 0))
	for q := 1; q <= queryCount; q++ {
		name := "Q" + strconv.Itoa(q)
		sec, ok := p.Queries[name]
		s.printf("  %-5s %12s%s\n", name, formatSeconds(sec, ok), timedOutMark(p.TimedOut, name))
	}
	s.printf("  %-5s %12s\n", "RF2", formatSeconds(p.RF2, p.RF2 != 0))
	if len(p.TimedOut) > 0 {
		s.printf("  * timed out (--query-timeout)\n")
	}
}

func (s summaryWriter) throughput(t *ThroughputResult) {
	s.printf("\n")
	if t == nil {
		s.printf("Throughput test: not run\n")
		return
	}
	s.printf("Throughput test: %d query streams, Ts = %.3f s\n", len(t.Streams), t.Seconds)
	// Each cell is the seconds right-aligned in 11 characters, then a timeout mark or blank.
	const cellWidth = 11
	var line strings.Builder
	fmt.Fprintf(&line, "  %-5s", "")
	for i := range t.Streams {
		fmt.Fprintf(&line, " %*s ", cellWidth, "stream "+strconv.Itoa(i+1))
	}
	s.printf("%s\n", strings.TrimRight(line.String(), " "))
	for q := 1; q <= queryCount; q++ {
		name := "Q" + strconv.Itoa(q)
		line.Reset()
		fmt.Fprintf(&line, "  %-5s", name)
		for i, times := range t.Streams {
			sec, ok := times[name]
			mark := timedOutMark(t.TimedOut, fmt.Sprintf("stream %d %s", i+1, name))
			fmt.Fprintf(&line, " %*s%-1s", cellWidth, formatSeconds(sec, ok), mark)
		}
		s.printf("%s\n", strings.TrimRight(line.String(), " "))
	}
	if len(t.TimedOut) > 0 {
		s.printf("  * timed out (--query-timeout)\n")
	}
	s.printf("  Refresh stream\n")
	if len(t.Refresh) == 0 {
		s.printf("  no RF1/RF2 pair ran\n")
		return
	}
	s.printf("  %-5s %10s %12s %12s\n", "pair", "update set", "RF1", "RF2")
	for i, p := range t.Refresh {
		s.printf("  %-5d %10d %12s %12s\n", i+1, p.UpdateSet, formatSeconds(p.RF1, p.RF1 != 0), formatSeconds(p.RF2, p.RF2 != 0))
	}
}

// timedOutMark is "*" when name is in timedOut, else "".
func timedOutMark(timedOut []string, name string) string {
	if slices.Contains(timedOut, name) {
		return "*"
	}
	return ""
}

func (s summaryWriter) metrics(m *Metrics) {
	s.printf("\nMetrics (Clause 5.4; official values use times rounded to 0.1 s, Clause 5.3.7.5)\n")
	if m == nil {
		m = &Metrics{}
	}
	for _, row := range []struct {
		name             string
		value, unrounded float64
	}{
		{"Power@Size", m.PowerAtSize, m.PowerAtSizeUnrounded},
		{"Throughput@Size", m.ThroughputAtSize, m.ThroughputAtSizeUnrounded},
		{"QphH@Size", m.QphHAtSize, m.QphHAtSizeUnrounded},
	} {
		if row.value == 0 && row.unrounded == 0 {
			s.printf("  %-16s %14s\n", row.name, "not computed")
			continue
		}
		s.printf("  %-16s %14.1f   from unrounded times: %.2f\n", row.name, row.value, row.unrounded)
	}
}

func (s summaryWriter) verdict(r *Result) {
	if r.Reportable {
		s.printf("\nReportable: yes, as far as tierbench can check\n")
	} else {
		s.printf("\nReportable: no\n")
		for _, why := range r.NotReportable {
			s.printf("  - %s\n", why)
		}
	}
	s.printf("  (a published TPC-H result takes two consecutive runs and reports the one with\n" +
		"  the lower QphH@Size, Clause 5.3.2; this is one run)\n")
}

func (s summaryWriter) validation(v *Validation) {
	s.printf("\n")
	if v == nil {
		s.printf("Validation: not run (--validate checks the TPC's SF 1 answers, --validate-against another engine)\n")
		return
	}
	if v.Passed {
		s.printf("Validation against %s: passed, %d queries checked\n", v.Against, v.Checked)
		return
	}
	s.printf("Validation against %s: FAILED, %s (%d queries checked)\n", v.Against, describeFailedQueries(v.Failures), v.Checked)
	for i, f := range v.Failures {
		if i == maxSummaryFailures {
			s.printf("  ... and %d more in result.json\n", len(v.Failures)-i)
			break
		}
		s.printf("  %s\n", f)
	}
}

// formatSeconds prints an interval with millisecond precision, "-" when it was not measured.
func formatSeconds(sec float64, measured bool) string {
	if !measured {
		return "-"
	}
	return strconv.FormatFloat(sec, 'f', 3, 64)
}
