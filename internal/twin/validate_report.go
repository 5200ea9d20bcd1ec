package twin

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Metric is one figure of one case on both sides: the means over the rounds, the
// error of the emulation and the spreads that say whether the error is resolved.
type Metric struct {
	Workload string  `json:"workload"`
	Engine   string  `json:"engine"`
	Name     string  `json:"name"`
	Real     float64 `json:"real"`
	Emulated float64 `json:"emulated"`
	// ErrorPct is (Emulated - Real) / Real x 100; ErrorSpreadPct the standard
	// deviation of the same error round by round (each round's two runs paired).
	ErrorPct       float64 `json:"error_pct"`
	ErrorSpreadPct float64 `json:"error_spread_pct"`
	// RealCVPct and EmulatedCVPct are each side's run-to-run coefficient of variation.
	RealCVPct     float64 `json:"real_cv_pct"`
	EmulatedCVPct float64 `json:"emulated_cv_pct"`
	// GoalPct is the error the emulation should stay within (0: none set): 10% for
	// throughput, 20% for the 95th percentile latency (docs/devices.md).
	GoalPct float64 `json:"goal_pct,omitempty"`
	// Verdict: "ok" within the goal; "miss" outside it; "unresolved" when the real
	// device's own variation is larger than the error, which then cannot be told
	// from the device's noise.
	Verdict        string    `json:"verdict"`
	RealRounds     []float64 `json:"real_rounds"`
	EmulatedRounds []float64 `json:"emulated_rounds"`
}

// metricNames are the figures of each workload, in table order, with their goals.
var metricNames = map[string][]struct {
	name string
	goal float64
}{
	"oltp": {{"tps", 10}, {"p50_ms", 0}, {"p95_ms", 20}, {"p99_ms", 0}, {"reads_per_tx", 0}, {"writes_per_tx", 0}},
	"tpch": {{"qphh", 10}, {"power", 0}, {"throughput", 0}},
}

// summarise pairs the sides' runs of each case and metric.
func summarise(runs []RunRecord, cases []Case) []Metric {
	var out []Metric
	for _, c := range cases {
		for _, mn := range metricNames[c.Workload] {
			m := Metric{Workload: c.Workload, Engine: c.Engine, Name: mn.name, GoalPct: mn.goal}
			byRound := map[int][2]float64{}
			have := map[int][2]bool{}
			for _, r := range runs {
				x, ok := r.Metrics[mn.name]
				if r.Case != c.String() || r.Status != "ok" || !ok {
					continue
				}
				i := 0
				if r.Side == Emulated {
					i = 1
					m.EmulatedRounds = append(m.EmulatedRounds, x)
				} else {
					m.RealRounds = append(m.RealRounds, x)
				}
				p, h := byRound[r.Round], have[r.Round]
				p[i], h[i] = x, true
				byRound[r.Round], have[r.Round] = p, h
			}
			if len(m.RealRounds) == 0 || len(m.EmulatedRounds) == 0 {
				continue
			}
			m.Real, m.Emulated = round3(mean(m.RealRounds)), round3(mean(m.EmulatedRounds))
			m.RealCVPct, m.EmulatedCVPct = round3(cv(m.RealRounds)*100), round3(cv(m.EmulatedRounds)*100)
			if m.Real != 0 {
				m.ErrorPct = round3((m.Emulated - m.Real) / m.Real * 100)
			}
			var paired []float64
			for round, p := range byRound {
				if h := have[round]; h[0] && h[1] && p[0] != 0 {
					paired = append(paired, (p[1]-p[0])/p[0]*100)
				}
			}
			m.ErrorSpreadPct = round3(sd(paired))
			m.Verdict = verdict(m)
			out = append(out, m)
		}
	}
	return out
}

// verdict judges a metric's error against its goal and the real device's spread.
func verdict(m Metric) string {
	err := math.Abs(m.ErrorPct)
	switch {
	case m.GoalPct > 0 && err <= m.GoalPct:
		return "ok"
	case m.RealCVPct >= err:
		return "unresolved"
	case m.GoalPct > 0:
		return "miss"
	}
	return ""
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// sd is the sample standard deviation; 0 for fewer than two values.
func sd(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := mean(xs)
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// WriteText prints the validation for people: the table, then what its columns mean.
func (v *Validation) WriteText(w io.Writer, out string) error {
	fmt.Fprintf(w, "device %s under %s against %s\n", v.Device, v.Dir, v.Spec)
	fmt.Fprintf(w, "%d rounds, alternating which side runs first; %.0f s", v.Rounds, v.Wall.Seconds())
	if v.LockWait > 0 {
		fmt.Fprintf(w, " (%.0f s of it waiting for --lock)", v.LockWait.Seconds())
	}
	fmt.Fprint(w, "\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "WORKLOAD\tENGINE\tMETRIC\tREAL\tREAL CV\tEMULATED\tEMU CV\tERROR\tSPREAD\tGOAL\t VERDICT")
	for _, m := range v.Metrics {
		goal := "-"
		if m.GoalPct > 0 {
			goal = fmt.Sprintf("%.0f%%", m.GoalPct)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f%%\t%s\t%.1f%%\t%+.1f%%\t%.1f\t%s\t %s\n", m.Workload, m.Engine, m.Name,
			figureText(m.Real), m.RealCVPct, figureText(m.Emulated), m.EmulatedCVPct, m.ErrorPct, m.ErrorSpreadPct, goal, m.Verdict)
	}
	tw.Flush()
	for _, c := range v.Cases {
		var late, p50 []float64
		for _, r := range v.Runs {
			if x, ok := r.Metrics["late_mean_us"]; ok && r.Case == c.String() && r.Status == "ok" {
				late, p50 = append(late, x), append(p50, r.Metrics["late_p50_us"])
			}
		}
		if len(late) > 0 {
			fmt.Fprintf(w, "  %s: the emulated requests returned %.1f us late on average (median %.1f): the host's share of the emulated times\n",
				c, mean(late), mean(p50))
		}
	}
	failed := 0
	for _, r := range v.Runs {
		if r.Status != "ok" {
			failed++
			what := fmt.Sprintf("round %d", r.Round)
			if r.Round == 0 {
				what = "load"
			}
			fmt.Fprintf(w, "  %s %s on the %s side %s: %s\n", r.Case, what, r.Side, r.Status, r.Why)
		}
	}
	fmt.Fprintln(w, `
REAL, EMULATED: means over the rounds; CV: each side's run-to-run coefficient of variation.
ERROR: (emulated - real) / real; SPREAD: the standard deviation of that error round by
  round, in points. GOAL: the error the twin should stay within (throughput 10%, p95 20%).
VERDICT: ok within the goal; miss outside it; unresolved when the real device's own
  variation (REAL CV) is larger than the error, which then cannot be told from its noise.`)
	if failed > 0 {
		fmt.Fprintf(w, "%d runs failed: their logs are in %s/CASE/SIDE.log\n", failed, out)
	}
	_, err := fmt.Fprintf(w, "record: %s\n", strings.TrimSuffix(out, "/")+"/"+ResultFile)
	return err
}

// figureText prints a figure with four significant digits, never in exponent form.
func figureText(x float64) string {
	switch a := math.Abs(x); {
	case a >= 1000:
		return fmt.Sprintf("%.0f", x)
	case a >= 100:
		return fmt.Sprintf("%.1f", x)
	case a >= 10:
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.3f", x)
}
