package energy

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteSummary prints one window of the section for people ("run" when label is ""):
// a line per component with how it was obtained, the total with its Wh, CO2 and
// per-query joules, and what this host could not measure. Sources are in the JSON.
func WriteSummary(w io.Writer, s *Section, label string) {
	if s == nil {
		return
	}
	if label == "" {
		label = "run"
	}
	win := s.Window(label)
	if win == nil {
		fmt.Fprintf(w, "\nEnergy: no window %q\n", label)
		return
	}
	fmt.Fprintf(w, "\nEnergy, %s (%.1f s; CO2 at %g g/kWh, %s)\n", win.Label, win.Seconds, s.GridIntensity, s.GridIntensitySource)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  component\thow\tenergy J [low-high]\tavg W\tpeak W")
	var notes []string
	row := func(f Figures, how string) {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%.3g\t%.3g\n", f.Name, how, joulesText(f), f.AvgW, f.PeakW)
		if f.Note != "" {
			notes = append(notes, fmt.Sprintf("  %s: %s", f.Name, f.Note))
		}
	}
	for _, f := range win.Components {
		row(f, how(f.Measured, string(f.Method)))
	}
	row(win.Total, how(win.Total.Measured, ""))
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	t := win.Total
	line := fmt.Sprintf("  total %.4g Wh, %.4g g CO2", t.Wh, t.CO2g)
	if t.JPerQuery > 0 {
		line += fmt.Sprintf(", %.4g J per query", t.JPerQuery)
	}
	if t.JPerTransaction > 0 {
		line += fmt.Sprintf(", %.4g J per transaction", t.JPerTransaction)
	}
	if win.WattsPerKQphH > 0 {
		line += fmt.Sprintf(", %.4g Watts/KQphH@Size", win.WattsPerKQphH)
	}
	fmt.Fprintln(w, line)
	if text := MissingText(s, win, "see below"); text != "" {
		fmt.Fprintf(w, "  the total is not the whole system's: it leaves out %s\n", text)
	}
	if sci := s.SCI; sci != nil {
		line := fmt.Sprintf("  SCI, %s: %.4g g operational + %.4g g embodied", sci.Window, sci.OperationalG, sci.EmbodiedG)
		if sci.GPerTransaction > 0 {
			line += fmt.Sprintf(" = %.4g g CO2e per transaction", sci.GPerTransaction)
		}
		if len(sci.NotCounted) > 0 {
			line += "; embodied not counted: " + strings.Join(sci.NotCounted, "; ")
		}
		fmt.Fprintln(w, line)
		for _, e := range sci.Embodied {
			if e.Default {
				fmt.Fprintf(w, "  embodied %s: %.5g kg CO2e over %g years is a default (a published server's figure; its source is in result.json), not this hardware's: give --host-embodied-kg\n", e.Name, e.Kg, e.LifeYears)
			}
		}
	}
	for _, c := range s.Components {
		if c.CPU != nil {
			fmt.Fprintf(w, "  cpu model (%s): %s; %s\n", c.CPU.Profile, c.CPU.Equation(), c.CPU.Basis)
		}
	}
	for _, u := range s.Unavailable {
		fmt.Fprintf(w, "  not available on this host: %s: %s\n", u.What, u.Why)
	}
	for _, u := range s.NotCounted {
		fmt.Fprintf(w, "  not counted: %s: %s\n", u.What, u.Why)
	}
}

func how(measured bool, method string) string {
	h := "modelled"
	if measured {
		h = "measured"
	}
	if method != "" {
		h += " (" + method + ")"
	}
	return h
}

func joulesText(f Figures) string {
	if f.JoulesLow == f.Joules && f.JoulesHigh == f.Joules {
		return fmt.Sprintf("%.4g", f.Joules)
	}
	return fmt.Sprintf("%.4g [%.4g-%.4g]", f.Joules, f.JoulesLow, f.JoulesHigh)
}

// MissingText lists what win's total leaves out of the whole system, each with why
// (said, such as "see below", where the section's Unavailable or NotCounted says it
// already); "" when nothing is missing.
func MissingText(s *Section, win *WindowResult, said string) string {
	given := map[string]bool{}
	for _, u := range append(append([]Unavailable{}, s.Unavailable...), s.NotCounted...) {
		given[u.Why] = true
	}
	var parts []string
	for _, m := range win.Missing {
		why := m.Why
		if given[why] {
			why = said
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", m.What, why))
	}
	return strings.Join(parts, ", ")
}
