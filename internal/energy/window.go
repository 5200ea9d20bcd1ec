package energy

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// grid is the window's edges with the samples between them: the intervals peaks are
// taken over and the chart draws. An interval shorter than half the typical one joins
// its neighbour: the samples at window marks come a few milliseconds after a tick,
// and the utilisation of so short an interval is a jiffy or none (100% or 0%), so
// its average would be a peak of nothing.
func (r *Recorder) grid(from, to time.Time) []time.Time {
	g := []time.Time{from}
	i := sort.Search(len(r.samples), func(i int) bool { return r.samples[i].After(from) })
	for ; i < len(r.samples) && r.samples[i].Before(to); i++ {
		g = append(g, r.samples[i])
	}
	g = append(g, to)
	short := typicalInterval(g) / 2
	merged := []time.Time{from}
	for _, t := range g[1 : len(g)-1] {
		if t.Sub(merged[len(merged)-1]) >= short {
			merged = append(merged, t)
		}
	}
	if n := len(merged); n > 1 && to.Sub(merged[n-1]) < short {
		merged = merged[:n-1]
	}
	return append(merged, to)
}

// typicalInterval is the length of the interval between edges in which the middle
// instant of the whole falls when the intervals are sorted by length: a median
// weighted by time, which the few milliseconds between a tick and a mark do not move.
func typicalInterval(edges []time.Time) time.Duration {
	ls := make([]time.Duration, 0, len(edges)-1)
	var total time.Duration
	for k := 1; k < len(edges); k++ {
		ls = append(ls, edges[k].Sub(edges[k-1]))
		total += ls[len(ls)-1]
	}
	slices.Sort(ls)
	var sum time.Duration
	for _, l := range ls {
		if sum += l; 2*sum >= total {
			return l
		}
	}
	return 0
}

// figures is one component's integration over a window, interval by interval.
type figures struct {
	c       *component
	j       Range
	covered float64
	idle    *float64
	perJ    []float64 // nominal joules of each grid interval
	perCov  []float64
}

func (r *Recorder) window(comps []*component, w Window) WindowResult {
	T := w.End.Sub(w.Start).Seconds()
	res := WindowResult{Label: w.Label, Start: w.Start, End: w.End, Seconds: T,
		Queries: w.Queries, Transactions: w.Transactions, QphH: w.QphH}
	grid := r.grid(w.Start, w.End)
	full := func(covered float64) bool { return covered >= T*(1-1e-9) }
	var rows []*figures
	var host *figures // the host meter in the total
	for _, c := range comps {
		f := &figures{c: c}
		f.j, f.covered, f.idle = c.energy(w, w.Start, w.End)
		for k := 1; k < len(grid); k++ {
			j, cov, _ := c.energy(w, grid[k-1], grid[k])
			f.perJ, f.perCov = append(f.perJ, j.Nominal), append(f.perCov, cov)
		}
		if host == nil && c.meterScope == ScopeHost && full(f.covered) {
			host = f
		}
		rows = append(rows, f)
	}
	total := Figures{Name: "total", Measured: true}
	var parts []string
	idleKnown := true
	var idleSum float64
	inTotal := make([]bool, len(rows))
	for i, f := range rows {
		c := f.c
		fig := Figures{Name: c.info.Name, Method: c.info.Method, Measured: c.info.Measured, Source: c.info.Source,
			Joules: f.j.Nominal, JoulesLow: f.j.Low, JoulesHigh: f.j.High, IdleJ: f.idle, CoveredS: f.covered}
		fig.InTotal = true
		switch {
		case c.inHost && host != nil:
			fig.InTotal = false
			fig.Note = fmt.Sprintf("contained in %s's reading, which is in the total", host.c.info.Name)
		case c.meterScope == ScopeHost && f != host && host != nil:
			fig.InTotal = false
			fig.Note = fmt.Sprintf("another host meter, %s, is in the total", host.c.info.Name)
		case c.meterScope != "" && !full(f.covered):
			fig.InTotal = false
			fig.Note = coverage(f.covered, T) + ": its joules are for that part only, and not in the total"
		case !full(f.covered):
			fig.Note = coverage(f.covered, T) + ": the total counts what it covers"
		case c.device != nil:
			if _, ok := w.DeviceJoules[c.device.Name]; !ok {
				fig.Note = fmt.Sprintf("apportioned: the device's mount-to-unmount average, %.3g W, over the window", c.device.Joules/c.device.Seconds)
			}
		}
		r.finishFigures(&fig, w, f, grid)
		res.Components = append(res.Components, fig)
		if !fig.InTotal {
			continue
		}
		inTotal[i] = true
		total.Joules += fig.Joules
		total.JoulesLow += fig.JoulesLow
		total.JoulesHigh += fig.JoulesHigh
		total.Measured = total.Measured && fig.Measured
		if fig.IdleJ == nil {
			idleKnown = false
		} else {
			idleSum += *fig.IdleJ
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", fig.Name, fig.Method))
		if !full(f.covered) {
			total.Note = strings.TrimPrefix(total.Note+"; "+fig.Name+" "+coverage(f.covered, T), "; ")
		}
	}
	total.InTotal = true
	total.Measured = total.Measured && len(parts) > 0
	total.Source = strings.Join(parts, " + ")
	if len(parts) == 0 {
		total.Source = "nothing could be measured or modelled"
	}
	if idleKnown && len(parts) > 0 {
		total.IdleJ = &idleSum
	}
	total.CoveredS = T
	if total.Note != "" {
		total.Note += ": the total counts what each covers"
	}
	total.AvgW = total.Joules / T
	for k := 1; k < len(grid); k++ {
		if l := grid[k].Sub(grid[k-1]).Seconds(); l > 0 {
			var j float64
			for i, f := range rows {
				if inTotal[i] {
					j += f.perJ[k-1]
				}
			}
			total.PeakW = max(total.PeakW, j/l)
		}
	}
	r.counts(&total, w)
	res.Total = total
	res.Missing = r.missing(res.Components, host != nil, T)
	if w.QphH > 0 {
		res.WattsPerKQphH, _ = WattsPerKQphH(total.AvgW, w.QphH)
	}
	return res
}

// baseWhy is why base power is not counted.
const baseWhy = "give --base-watts"

// hostParts are what a host meter in the total stands for.
var hostParts = []string{"cpu", "dram", "base"}

// missing lists the parts of the whole system (cpu, dram and base, or a host meter in
// their place; the emulated devices; the equipment outside the host that meters were
// given for) that a window's total leaves out or covers in part, with why.
func (r *Recorder) missing(figs []Figures, hostMeter bool, T float64) []Unavailable {
	var out []Unavailable
	if !hostMeter {
		for _, part := range hostParts {
			i := slices.IndexFunc(figs, func(f Figures) bool { return f.Name == part && f.InTotal })
			switch {
			case i >= 0 && figs[i].CoveredS < T*(1-1e-9):
				out = append(out, Unavailable{part, coverage(figs[i].CoveredS, T)})
			case i >= 0:
			case part == "cpu":
				out = append(out, Unavailable{part, r.cpuWhy})
			case part == "dram":
				out = append(out, Unavailable{part, r.dramWhy})
			default:
				out = append(out, Unavailable{part, baseWhy})
			}
		}
	}
	extra := map[string]bool{}
	for _, m := range r.meters {
		if m.cfg.Scope == ScopeExtra {
			extra[m.cfg.name()] = true
		}
	}
	for _, f := range figs {
		if extra[f.Name] && !f.InTotal {
			out = append(out, Unavailable{f.Name, f.Note})
		}
	}
	for _, u := range r.partsUnavailable {
		if strings.HasPrefix(u.What, "storage:") || extra[u.What] {
			out = append(out, u)
		}
	}
	return out
}

// finishFigures fills in what follows from the joules: Wh, average and peak watts,
// CO2 and per-query figures.
func (r *Recorder) finishFigures(fig *Figures, w Window, f *figures, grid []time.Time) {
	if fig.CoveredS > 0 {
		fig.AvgW = fig.Joules / fig.CoveredS
	}
	for k := range f.perJ {
		if f.perCov[k] > 0 {
			fig.PeakW = max(fig.PeakW, f.perJ[k]/f.perCov[k])
		}
	}
	r.counts(fig, w)
}

// counts fills in Wh, CO2 and the per-query and per-transaction joules.
func (r *Recorder) counts(fig *Figures, w Window) {
	fig.Wh = fig.Joules / 3600
	fig.CO2g = CO2Grams(fig.Joules, r.cfg.GridIntensity)
	if w.Queries > 0 {
		fig.JPerQuery = fig.Joules / float64(w.Queries)
	}
	if w.Transactions > 0 {
		fig.JPerTransaction = fig.Joules / float64(w.Transactions)
	}
}

func coverage(covered, total float64) string {
	return fmt.Sprintf("covers %.1f s of the window's %.1f s (%.0f%%)", covered, total, 100*covered/total)
}

// chart draws the run window: its sampling intervals, grouped when there are more
// than MaxChartPoints.
func (r *Recorder) chart(comps []*component, run WindowResult) *Chart {
	grid := r.grid(run.Start, run.End)
	step := (len(grid) - 1 + MaxChartPoints - 1) / MaxChartPoints
	var edges []time.Time
	for k := 0; k < len(grid)-1; k += step {
		edges = append(edges, grid[k])
	}
	edges = append(edges, grid[len(grid)-1])
	ch := &Chart{Start: run.Start}
	for k := 1; k < len(edges); k++ {
		ch.EndS = append(ch.EndS, edges[k].Sub(run.Start).Seconds())
	}
	w := Window{Label: run.Label, Start: run.Start, End: run.End}
	total := make(Floats, len(edges)-1)
	for i, c := range comps {
		fig := run.Components[i]
		s := ChartSeries{Name: c.info.Name, Measured: c.info.Measured, InTotal: fig.InTotal, Watts: make(Floats, len(edges)-1)}
		for k := 1; k < len(edges); k++ {
			j, cov, _ := c.energy(w, edges[k-1], edges[k])
			s.Watts[k-1] = math.NaN()
			if cov > 0 {
				s.Watts[k-1] = j.Nominal / cov
			}
			if fig.InTotal {
				if cov > 0 {
					total[k-1] += j.Nominal / edges[k].Sub(edges[k-1]).Seconds()
				} else {
					total[k-1] = math.NaN()
				}
			}
		}
		ch.Series = append(ch.Series, s)
	}
	ch.Series = append(ch.Series, ChartSeries{Name: "total", Measured: run.Total.Measured, InTotal: true, Watts: total})
	return ch
}
