package study

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"tierbench/internal/host"
	"tierbench/internal/report"
	"tierbench/internal/report/stats"
	"tierbench/internal/result"
)

// HostSummary is what a study's report says of the machines its runs ran on
// (docs/cluster.md): each host, and with several, host as a blocking factor: each
// host's effect on each headline metric, and each comparison with the baseline
// made within hosts.
type HostSummary struct {
	Hosts []HostRow `json:"hosts"`
	// Effects are, per headline metric, each host's effect in % against the
	// average host, cell for cell (stats.BlockEffects); absent with one host, or
	// when the hosts share no cell (Unlinked).
	Effects  map[string]map[string]float64 `json:"effects,omitempty"`
	Unlinked bool                          `json:"unlinked,omitempty"`
	// Within are the comparisons with the baseline made within hosts.
	Within []WithinHost `json:"within_host,omitempty"`
}

// HostRow is one machine of a study.
type HostRow struct {
	Name string `json:"name"`
	// Runs counts its runs that finished ok; Cells the cells they are of.
	Runs  int        `json:"runs"`
	Cells int        `json:"cells"`
	Info  *host.Info `json:"info,omitempty"`
}

// WithinHost is a cell compared with its baseline within hosts, for one metric.
type WithinHost struct {
	Metric  string        `json:"metric"`
	Cell    string        `json:"cell"`
	Against string        `json:"against"`
	Test    stats.Blocked `json:"test"`
	// CellHosts and BaseHosts are where each side's runs ran.
	CellHosts []string `json:"cell_hosts"`
	BaseHosts []string `json:"baseline_hosts"`
}

// hostKey names the host a run ran on; "" when it is not recorded.
func hostKey(r *RunRecord) string {
	if r.Host == nil {
		return ""
	}
	return r.Host.Key()
}

// hostSummary makes the report's HostSummary of the runs (the report's cells with
// their runs' hosts and values) and the headline metrics.
func (b *reportBuilder) hostSummary(rep *Report) *HostSummary {
	hs := &HostSummary{}
	rows := map[string]*HostRow{}
	cellsOf := map[string]map[string]bool{}
	for _, c := range b.rec.Cells {
		for _, r := range b.res.CellRuns(c.ID) {
			k := hostKey(r)
			if k == "" {
				k = "unknown"
			}
			row := rows[k]
			if row == nil {
				row = &HostRow{Name: k, Info: r.Host}
				rows[k], cellsOf[k] = row, map[string]bool{}
			}
			if r.Status == result.StatusOK {
				row.Runs++
				cellsOf[k][c.ID] = true
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(rows)) {
		rows[k].Cells = len(cellsOf[k])
		hs.Hosts = append(hs.Hosts, *rows[k])
	}
	if len(hs.Hosts) < 2 {
		return hs
	}
	byID := map[string]report.Cell{}
	for _, c := range b.cells {
		byID[c.ID] = c
	}
	values := func(c report.Cell, key string) (vs []float64, hosts []string) {
		for _, r := range c.Runs {
			if v, ok := r.Metrics[key]; ok && !r.Failed() {
				vs, hosts = append(vs, v), append(hosts, orUnknown(r.Host))
			}
		}
		return vs, hosts
	}
	hs.Effects = map[string]map[string]float64{}
	for _, m := range rep.Metrics {
		if !rep.headline[m.Key] {
			continue
		}
		var obs []stats.Observation
		for _, c := range b.cells {
			vs, hosts := values(c, m.Key)
			for i, v := range vs {
				obs = append(obs, stats.Observation{Group: c.ID, Block: hosts[i], Value: v})
			}
		}
		if eff, ok := stats.BlockEffects(obs); ok {
			hs.Effects[m.Key] = eff
		} else if len(obs) > 0 {
			hs.Unlinked = true
		}
		for _, cs := range b.sum.Cells {
			if cs.Against == "" || cs.Against == cs.ID {
				continue
			}
			xv, xh := values(byID[cs.ID], m.Key)
			bv, bh := values(byID[cs.Against], m.Key)
			if len(xv) == 0 || len(bv) == 0 {
				continue
			}
			hs.Within = append(hs.Within, WithinHost{Metric: m.Key, Cell: cs.ID, Against: cs.Against,
				Test: stats.BlockedCompare(bv, xv, bh, xh), CellHosts: distinct(xh), BaseHosts: distinct(bh)})
		}
	}
	if len(hs.Effects) == 0 {
		hs.Effects = nil
	}
	return hs
}

func orUnknown(h string) string {
	if h == "" {
		return "unknown"
	}
	return h
}

func distinct(xs []string) []string {
	out := slices.Clone(xs)
	sort.Strings(out)
	return slices.Compact(out)
}

// HostFindings are the report's words on the hosts, when the runs ran on several:
// each comparison with the baseline made within hosts, each host's effect, and a
// warning for each comparison that could only be made across hosts.
func (r *Report) HostFindings() []string {
	hs := r.Hosts
	if hs == nil || len(hs.Hosts) < 2 {
		return nil
	}
	var out, warn []string
	byID := r.cellsByID()
	for _, m := range r.Metrics {
		if !r.headline[m.Key] {
			continue
		}
		if eff := hs.Effects[m.Key]; eff != nil {
			out = append(out, fmt.Sprintf("%s between hosts: %s", m.Label, effectsText(eff)))
		}
		for _, w := range hs.Within {
			if w.Metric != m.Key {
				continue
			}
			differ, at, base := r.pairWords(byID[w.Cell], byID[w.Against])
			if w.Test.Shared == 0 {
				warn = append(warn, fmt.Sprintf("warning: %s: %s%s is compared with %s across hosts only (it ran on %s, its baseline on %s): the difference includes the machines'; run each block on one host (--shard K/N blocks by host, `study tasks --hosts N`)",
					m.Label, differ, at, base, strings.Join(w.CellHosts, ", "), strings.Join(w.BaseHosts, ", ")))
				continue
			}
			b := w.Test
			out = append(out, fmt.Sprintf("%s within hosts: %s (%s, %s)", m.Label, differenceWords(m, differ, b.DiffPct, base, at),
				plural(b.Shared, "host"), testWords(b.P, b.Significant, "too few runs a host, or no spread")))
		}
	}
	if hs.Unlinked {
		out = append(out, "hosts: no cell ran on more than one of them, so a host's effect cannot be told apart from its cells'")
	}
	return append(out, warn...)
}

// effectsText is "node-a -4.65%, node-b +4.88% against the average host, cell for
// cell (spread 10.00%)": the spread is the highest host over the lowest.
func effectsText(eff map[string]float64) string {
	names := slices.Sorted(maps.Keys(eff))
	parts := make([]string, len(names))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %+.2f%%", n, eff[n])
		lo, hi = math.Min(lo, eff[n]), math.Max(hi, eff[n])
	}
	return fmt.Sprintf("%s against the average host, cell for cell (spread %.2f%%: the highest host over the lowest)",
		strings.Join(parts, ", "), 100*((100+hi)/(100+lo)-1))
}

// hostSection adds the report's Hosts section: every machine with what it is,
// and with several, each host's effect, each comparison within hosts, and the
// warnings.
func (r *Report) hostSection(doc *report.Document) {
	hs := r.Hosts
	if hs == nil || len(hs.Hosts) == 0 {
		return
	}
	sec := doc.Section("Hosts")
	t := report.NewTable("hosts", "The machines the runs ran on", report.Column{Label: "host"}, report.Column{Label: "runs ok"},
		report.Column{Label: "cells"}, report.Column{Label: "machine"}, report.Column{Label: "disks under the runs"})
	for _, h := range hs.Hosts {
		t.AddRow(report.Text(h.Name), report.Number(float64(h.Runs)), report.Number(float64(h.Cells)),
			report.Text(strings.TrimPrefix(h.Info.Summary(), h.Info.Key()+": ")), report.Text(disksText(h.Info)))
	}
	sec.AddTable(t)
	if len(hs.Hosts) < 2 {
		return
	}
	sec.AddText("Host is a blocking factor: each comparison with the baseline is made within hosts (the additive model value = host + cell, fitted by least squares), so that a faster machine is not taken for a faster cell.")
	if len(hs.Effects) > 0 {
		cols := []report.Column{{Label: "host"}}
		var keys []string
		for _, m := range r.Metrics {
			if _, ok := hs.Effects[m.Key]; ok {
				keys = append(keys, m.Key)
				cols = append(cols, report.Column{Label: m.Key, Unit: "% vs the average host"})
			}
		}
		et := report.NewTable("host_effects", "Between hosts: each host's effect, cell for cell", cols...)
		for _, h := range hs.Hosts {
			row := []report.Entry{report.Text(h.Name)}
			for _, k := range keys {
				v, ok := hs.Effects[k][h.Name]
				if !ok {
					v = math.NaN()
				}
				row = append(row, report.Percent(v))
			}
			et.AddRow(row...)
		}
		et.Note = "From the fit of log(value) = cell + host over every run that finished ok: a host's runs against what the average host's would be, for the same cells."
		sec.AddTable(et)
	}
	wt := report.NewTable("within_host", "Against the baseline, within hosts", report.Column{Label: "metric"}, report.Column{Label: "cell"},
		report.Column{Label: "baseline"}, report.Column{Label: "within hosts", Unit: "%"}, report.Column{Label: "p"},
		report.Column{Label: "hosts shared"}, report.Column{Label: "cell's hosts"}, report.Column{Label: "baseline's hosts"})
	for _, w := range hs.Within {
		d := report.Percent(w.Test.DiffPct)
		if w.Test.Shared == 0 {
			d = report.Text("across hosts only")
			d.Class = report.ClassWorse
		}
		wt.AddRow(report.Text(w.Metric), report.Text(w.Cell), report.Text(w.Against), d, report.PValue(w.Test.P),
			report.Number(float64(w.Test.Shared)), report.Text(strings.Join(w.CellHosts, ", ")), report.Text(strings.Join(w.BaseHosts, ", ")))
	}
	sec.AddTable(wt)
	if fs := r.HostFindings(); len(fs) > 0 {
		sec.AddPre(strings.Join(fs, "\n"))
	}
}

// disksText lists the disks under a host's runs: "/ (ext4 on vda, SSD, 256.0 GiB)".
func disksText(h *host.Info) string {
	if h == nil {
		return ""
	}
	var parts []string
	for _, d := range h.Disks {
		s := d.Mount + " (" + d.FS
		if d.Device != "" {
			s += " on " + d.Device
			if d.Model != "" {
				s += " " + d.Model
			}
			if d.Rotational != nil {
				s += map[bool]string{true: ", spinning", false: ", SSD"}[*d.Rotational]
			}
			if d.SizeBytes > 0 {
				s += fmt.Sprintf(", %.1f GiB", float64(d.SizeBytes)/(1<<30))
			}
		} else if d.Source != "" {
			s += " " + d.Source
		}
		parts = append(parts, s+")")
	}
	return strings.Join(parts, "; ")
}

// hostsItem is the report plan's line on the hosts: "node-a (4 runs), node-b (4)".
func (b *reportBuilder) hostsItem() string {
	count := map[string]int{}
	for _, r := range b.res.Runs {
		count[orUnknown(hostKey(r))]++
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(count)) {
		parts = append(parts, fmt.Sprintf("%s (%s)", k, plural(count[k], "run")))
	}
	return strings.Join(parts, ", ")
}

// missingItem is the report plan's line on the tasks not run: "" when none.
func (b *reportBuilder) missingItem() string {
	if len(b.res.Missing) == 0 {
		return ""
	}
	return fmt.Sprintf("%d of the %d tasks have not run: %s", len(b.res.Missing), len(b.rec.Cells)*b.rec.Repetitions, missingText(b.res.Missing, 20))
}
