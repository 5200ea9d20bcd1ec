package monitor

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"tierbench/internal/engine"
)

// WriteLines prints a few lines for people on window ws of summary s (the run's when
// ws is nil): the host's CPU, memory and pressure, the server's and tierbench's CPU,
// each disk and emulated device, the engine's commits, hit ratio and waits, and what
// could not be measured.
func WriteLines(w io.Writer, s *Summary, ws *WindowSummary) {
	if s == nil {
		return
	}
	if ws == nil {
		ws = s.Run
	}
	if ws == nil {
		return
	}
	where := ""
	if s.File != "" {
		where = "; " + s.File
	}
	fmt.Fprintf(w, "monitoring, %s: %.1f s, %d samples every %s%s\n", ws.Label, ws.CoveredS, ws.Samples, seconds(s.IntervalS), where)
	if line := hostLine(ws); line != "" {
		fmt.Fprintln(w, "  host: "+line)
	}
	if line := processLine(ws); line != "" {
		fmt.Fprintln(w, "  processes: "+line)
	}
	for _, line := range diskLines(s, ws) {
		fmt.Fprintln(w, "  "+line)
	}
	if line := engineLine(ws); line != "" {
		fmt.Fprintln(w, "  engine: "+line)
	}
	for _, u := range s.NotSampled {
		fmt.Fprintf(w, "  not sampled: %s: %s\n", u.What, u.Why)
	}
	for _, src := range s.Sources {
		for _, u := range src.Unavailable {
			fmt.Fprintf(w, "  not available: %s: %s\n", u.What, u.Why)
		}
		if src.Errors > 0 {
			fmt.Fprintf(w, "  %s: %d of %d readings failed, the first: %s\n", src.Name, src.Errors, src.Errors+src.Reads, src.FirstError)
		}
	}
}

func seconds(s float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%g", s), ".0") + " s"
}

func hostLine(ws *WindowSummary) string {
	busy, ok := ws.Share("host.cpu.all.busy_s", "host.cpu.all.total_s")
	if !ok {
		return ""
	}
	share := func(mode string) float64 {
		v, _ := ws.Share("host.cpu.all."+mode+"_s", "host.cpu.all.total_s")
		return v
	}
	cpus, _ := ws.Mean("host.cpus")
	line := fmt.Sprintf("CPU %.0f%% busy of %.0f (user %.0f, system %.0f, irq %.0f, iowait %.0f, steal %.0f)",
		busy, cpus, share("user"), share("system"), share("irq"), share("iowait"), share("steal"))
	if run, ok := ws.Mean("host.procs_running"); ok {
		line += fmt.Sprintf(", %.1f runnable", run)
	}
	if avail, ok := ws.Mean("host.mem.available_mib"); ok {
		total, _ := ws.Mean("host.mem.total_mib")
		cache, _ := ws.Mean("host.mem.page_cache_mib")
		line += fmt.Sprintf("; memory %.1f GiB available of %.1f, page cache %.1f GiB", avail/1024, total/1024, cache/1024)
	}
	var psi []string
	for _, res := range psiResources {
		if v, ok := ws.Mean("host.psi." + res + ".some_pct"); ok {
			psi = append(psi, fmt.Sprintf("%s %.0f%%", res, v))
		}
	}
	if len(psi) > 0 {
		line += "; pressure (some) " + strings.Join(psi, " ")
	}
	return line
}

func processLine(ws *WindowSummary) string {
	var parts []string
	for _, who := range []string{"server", "tierbench"} {
		base := "proc." + who
		cpu, ok := ws.Counters[base+".cpu_s"]
		if !ok {
			continue
		}
		part := fmt.Sprintf("%s %.2f cores", who, cpu.PerS)
		if rss, ok := ws.Series[base+".rss_mib"]; ok {
			part += fmt.Sprintf(" (%.0f MiB", rss.Max)
			if n, ok := ws.Series[base+".processes"]; ok && n.Max > 1 {
				part += fmt.Sprintf(", %.0f processes", n.Max)
			}
			part += ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

func diskLines(s *Summary, ws *WindowSummary) []string {
	holds := map[string][]string{}
	for _, p := range s.Storage {
		for _, d := range p.Disks {
			holds[d] = append(holds[d], p.Label)
		}
	}
	var lines []string
	for _, kind := range []string{"disk", "emu"} {
		var names []string
		for name := range ws.Counters {
			if rest, ok := strings.CutPrefix(name, kind+"."); ok && strings.HasSuffix(rest, ".reads") {
				names = append(names, strings.TrimSuffix(rest, ".reads"))
			}
		}
		sort.Strings(names)
		for _, n := range names {
			base := kind + "." + n
			rate := func(c string) float64 { return ws.Counters[base+"."+c].PerS }
			delta := func(c string) float64 { return ws.Counters[base+"."+c].Delta }
			title := "tier " + n
			wait := "latency_s"
			if kind == "disk" {
				title, wait = "disk "+n, "rw_wait_s"
				if h := holds[n]; len(h) > 0 {
					title += " (" + strings.Join(h, ", ") + ")"
				}
			}
			// An emulated device's await counts its flushes, as emu.<tier>.await_ms does.
			requests := delta("reads") + delta("writes") + delta("flushes")
			if kind == "disk" {
				requests = delta("reads") + delta("writes")
			}
			line := fmt.Sprintf("%s: %.0f reads/s %.0f writes/s, %.2f/%.2f MB/s read/written, util %.0f%%, await %.2f ms",
				title, rate("reads"), rate("writes"), rate("read_bytes")/1e6, rate("write_bytes")/1e6,
				min(100, 100*rate("busy_s")), perIO(delta(wait), requests))
			if kind == "disk" {
				line += fmt.Sprintf(", queue %.2f", rate("queue_s"))
			} else if q, ok := ws.Series[base+".queue_depth"]; ok {
				line += fmt.Sprintf(", queue %.2f", q.Mean)
			}
			lines = append(lines, line)
		}
	}
	return lines
}

func engineLine(ws *WindowSummary) string {
	var parts []string
	if c, ok := ws.Counters["engine."+engine.StatCommits]; ok {
		parts = append(parts, fmt.Sprintf("%.0f commits/s", c.PerS))
	}
	if hit, ok := ws.BufferHitPct(); ok {
		parts = append(parts, fmt.Sprintf("buffer hits %.1f%%", hit))
	}
	active, okActive := ws.Mean("engine." + engine.StatSessionsActive)
	if okActive {
		parts = append(parts, fmt.Sprintf("%.1f sessions active", active))
	}
	if waits, ok := ws.Mean("engine." + engine.StatLockWaits); ok {
		parts = append(parts, fmt.Sprintf("%.1f waiting for locks", waits))
	}
	line := strings.Join(parts, ", ")
	if top := topWaits(ws, active); top != "" {
		line += "; of active sessions: " + top
	}
	return line
}

// topWaits lists the three commonest things active sessions waited on, with their
// share of the active sessions.
func topWaits(ws *WindowSummary, active float64) string {
	if active <= 0 {
		return ""
	}
	type wait struct {
		name string
		mean float64
	}
	var waits []wait
	for _, name := range ws.Names("engine." + engine.StatWaitPrefix) {
		if m := ws.Series[name].Mean; m > 0 {
			waits = append(waits, wait{strings.TrimPrefix(name, "engine."+engine.StatWaitPrefix), m})
		}
	}
	sort.SliceStable(waits, func(i, j int) bool { return waits[i].mean > waits[j].mean })
	var parts []string
	for i, w := range waits {
		if i == 3 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", w.name, 100*w.mean/active))
	}
	return strings.Join(parts, ", ")
}
