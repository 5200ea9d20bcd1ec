package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"tierbench/internal/report/chart"
	"tierbench/internal/rundir"
)

func TestSummarise(t *testing.T) {
	cells := loadFixtureStudy(t)
	sum, err := Summarise(cells, fixtureMetrics, fixtureBaseline)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sum.Varying(), ","); got != "engine,users" {
		t.Errorf("varying factors %q, want engine,users", got)
	}
	if len(sum.Cells) != 6 {
		t.Fatalf("%d cells, want 6", len(sum.Cells))
	}
	for i, cs := range sum.Cells {
		c := cells[i]
		if cs.ID != c.CellID() {
			t.Errorf("cell %d is %q, want %q", i, cs.ID, c.CellID())
		}
		for _, m := range fixtureMetrics {
			ms := cs.Metrics[m.Key]
			var want []float64
			for _, r := range c.Runs {
				if r.Error == "" {
					want = append(want, r.Metrics[m.Key])
				}
			}
			if !reflect.DeepEqual(ms.Values, want) || ms.Stats.N != len(want) || ms.Stats.Mean != meanOf(want) {
				t.Errorf("%s %s: values %v mean %v, want %v mean %v", cs.ID, m.Key, ms.Values, ms.Stats.Mean, want, meanOf(want))
			}
			if cs.ID == fixtureBaseline {
				if ms.VsBaseline != nil {
					t.Errorf("the baseline is compared with itself")
				}
				continue
			}
			base := sum.Cells[0].Metrics[m.Key].Stats.Mean
			if d := ms.VsBaseline.DiffPct; math.Abs(d-100*(ms.Stats.Mean-base)/base) > 1e-9 {
				t.Errorf("%s %s: diff %v%%, want %v%%", cs.ID, m.Key, d, 100*(ms.Stats.Mean-base)/base)
			}
		}
	}
	pg8 := sum.Cells[5]
	if pg8.ID != "engine=postgres users=8" || pg8.Runs != 2 || pg8.Failed != 1 || len(pg8.Errors) != 1 ||
		!strings.Contains(pg8.Errors[0], "connection refused") || pg8.Metrics["tpm"].Stats.N != 1 {
		t.Errorf("the cell with a failed run: %+v", pg8)
	}

	for name, tc := range map[string]struct {
		cells    []Cell
		metrics  []Metric
		baseline string
		want     string
	}{
		"unknown baseline": {cells, fixtureMetrics, "engine=mysql", `the baseline "engine=mysql" is not a cell`},
		"duplicate cell":   {append(cells[:1:1], cells[0]), fixtureMetrics, "", `cells 1 and 2 are both "engine=sqlite users=2"`},
		"duplicate metric": {cells, append(fixtureMetrics[:1:1], fixtureMetrics[0]), "", `metric "tpm" is empty or given twice`},
		"NaN": {[]Cell{{ID: "x", Runs: []Run{{Repetition: 3, Metrics: map[string]float64{"tpm": math.NaN()}}}}}, fixtureMetrics, "",
			`cell "x" repetition 3: metric "tpm" is NaN`},
	} {
		if _, err := Summarise(tc.cells, tc.metrics, tc.baseline); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, tc.want)
		}
	}
}

func TestSummaryTable(t *testing.T) {
	_, sum, _ := sampleDocument(t)
	tbl, err := sum.Table("new_order_p95_ms")
	if err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, c := range tbl.Columns {
		heads = append(heads, c.Heading())
	}
	want := "engine|users|n|mean (ms)|SD (ms)|min (ms)|max (ms)|95% CI low (ms)|95% CI high (ms)|vs baseline (%)|p (Welch)|significant"
	if strings.Join(heads, "|") != want {
		t.Errorf("columns %q, want %q", strings.Join(heads, "|"), want)
	}
	for i, row := range tbl.Rows {
		cs := sum.Cells[i]
		st := cs.Metrics["new_order_p95_ms"].Stats
		for j, v := range []float64{st.Mean, st.SD, st.Min, st.Max, st.CILow, st.CIHigh} {
			e := row[3+j]
			if math.IsNaN(v) {
				if e.Value != nil || e.Text != Missing {
					t.Errorf("%s column %d: %+v, want missing", cs.ID, 3+j, e)
				}
			} else if e.Value == nil || *e.Value != v || e.Text != chart.FormatNumber(v) {
				t.Errorf("%s column %d: %+v, want %v", cs.ID, 3+j, e, v)
			}
		}
		diff, sig := row[9], row[11]
		switch cmp := cs.Metrics["new_order_p95_ms"].VsBaseline; {
		case cmp == nil:
			if diff.Text != "baseline" || diff.Class != ClassBaseline {
				t.Errorf("baseline row: %+v", diff)
			}
		case math.IsNaN(cmp.P):
			if sig.Text != "untestable" || diff.Class != "" {
				t.Errorf("%s: one repetition: %+v %+v, want untestable", cs.ID, diff, sig)
			}
		case cmp.Significant:
			// Latency: lower is better.
			wantClass := ClassBetter
			if cmp.DiffPct > 0 {
				wantClass = ClassWorse
			}
			if sig.Text != "yes" || diff.Class != wantClass || diff.Text != strconv.FormatFloat(cmp.DiffPct, 'f', 2, 64)+"%" && diff.Text != "+"+strconv.FormatFloat(cmp.DiffPct, 'f', 2, 64)+"%" {
				t.Errorf("%s: %+v %+v, want significant %s %.2f%%", cs.ID, diff, sig, wantClass, cmp.DiffPct)
			}
		default:
			if sig.Text != "no" || diff.Class != "" {
				t.Errorf("%s: %+v %+v, want not significant", cs.ID, diff, sig)
			}
		}
	}
	if row := tbl.Rows[5]; row[2].Text != "1 (1 failed)" || *row[2].Value != 1 {
		t.Errorf("n of the cell with a failed run: %+v", row[2])
	}
	if !strings.Contains(tbl.Note, "Failed repetitions (1) are left out") {
		t.Errorf("note %q does not mention the failed run", tbl.Note)
	}
	if _, err := sum.Table("qphh"); err == nil {
		t.Error("a table of an unknown metric")
	}
}

func TestSummaryChart(t *testing.T) {
	_, sum, _ := sampleDocument(t)
	line, err := sum.Chart(ChartSpec{Metric: "tpm", X: "users"})
	if err != nil {
		t.Fatal(err)
	}
	if line.Kind != chart.Line || line.Name != "tpm-vs-users" || len(line.Series) != 2 ||
		line.Series[0].Name != "engine=sqlite" || line.Series[1].Name != "engine=postgres" {
		t.Fatalf("line chart %+v", line)
	}
	for si, s := range line.Series {
		for i, p := range s.Points {
			cs := sum.Cells[si*3+i]
			st := cs.Metrics["tpm"].Stats
			u, _ := strconv.ParseFloat(cs.Factors[1].Value, 64)
			if p.X != u || p.Y != st.Mean || (st.N >= 2) != p.HasCI() || p.HasCI() && (*p.Low != st.CILow || *p.High != st.CIHigh) {
				t.Errorf("%s: point %+v, want users %v mean %v CI %v..%v", cs.ID, p, u, st.Mean, st.CILow, st.CIHigh)
			}
		}
	}
	bars, err := sum.Chart(ChartSpec{Metric: "tpm", X: "engine"})
	if err != nil {
		t.Fatal(err)
	}
	if bars.Kind != chart.Bar || !reflect.DeepEqual(bars.Categories, []string{"sqlite", "postgres"}) || len(bars.Series) != 3 || bars.Series[2].Name != "users=8" {
		t.Errorf("bar chart %+v", bars)
	}
	if _, err := sum.Chart(ChartSpec{Metric: "tpm", X: "engine", Kind: chart.Line}); err == nil {
		t.Error("a line over engine names")
	}
	if _, err := sum.Chart(ChartSpec{Metric: "tpm", X: "warehouses"}); err == nil || !strings.Contains(err.Error(), `no factor "warehouses"`) {
		t.Errorf("unknown factor: %v", err)
	}
}

func TestWriteCellsCSV(t *testing.T) {
	cells := loadFixtureStudy(t)
	var buf bytes.Buffer
	if err := WriteCellsCSV(&buf, cells, fixtureMetrics); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := "cell,engine,users,repetition,status,error,dir,tpm,new_order_p50_ms,new_order_p95_ms,new_order_p99_ms,device_energy_j,device_co2_g"
	if strings.Join(recs[0], ",") != want {
		t.Errorf("header %q, want %q", strings.Join(recs[0], ","), want)
	}
	if len(recs) != 13 {
		t.Fatalf("%d records, want a header and 12 runs", len(recs))
	}
	i := 1
	for _, c := range cells {
		for _, r := range c.Runs {
			rec := recs[i]
			i++
			if rec[0] != c.CellID() || rec[1] != c.Factor("engine") || rec[3] != strconv.Itoa(r.Repetition) || rec[6] != r.Dir {
				t.Errorf("record %v for %s repetition %d", rec, c.CellID(), r.Repetition)
			}
			if r.Error != "" {
				if rec[4] != "failed" || rec[5] != r.Error || rec[7] != "" {
					t.Errorf("failed run: %v", rec)
				}
				continue
			}
			for j, m := range fixtureMetrics {
				if v, err := strconv.ParseFloat(rec[7+j], 64); err != nil || v != r.Metrics[m.Key] {
					t.Errorf("%s repetition %d %s: %q, want %v", c.CellID(), r.Repetition, m.Key, rec[7+j], r.Metrics[m.Key])
				}
			}
		}
	}
}

func TestSummaryJSON(t *testing.T) {
	_, sum, _ := sampleDocument(t)
	path := filepath.Join(t.TempDir(), "summary.json")
	if err := sum.WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Baseline string `json:"baseline"`
		Cells    []struct {
			ID      string `json:"id"`
			Failed  int    `json:"failed"`
			Metrics map[string]struct {
				Values []float64 `json:"values"`
				Stats  struct {
					N    int      `json:"n"`
					Mean *float64 `json:"mean"`
					SD   *float64 `json:"sd"`
				} `json:"stats"`
				VsBaseline *struct {
					P *float64 `json:"p"`
				} `json:"vs_baseline"`
			} `json:"metrics"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Baseline != fixtureBaseline || len(back.Cells) != 6 {
		t.Fatalf("summary.json: baseline %q, %d cells", back.Baseline, len(back.Cells))
	}
	for i, c := range back.Cells {
		m := c.Metrics["tpm"]
		st := sum.Cells[i].Metrics["tpm"].Stats
		if *m.Stats.Mean != st.Mean || (m.Stats.SD == nil) != math.IsNaN(st.SD) {
			t.Errorf("%s: mean %v sd %v, want %v %v", c.ID, *m.Stats.Mean, m.Stats.SD, st.Mean, st.SD)
		}
	}
	if pg8 := back.Cells[5].Metrics["tpm"]; pg8.Stats.SD != nil || pg8.VsBaseline == nil || pg8.VsBaseline.P != nil {
		t.Errorf("one repetition: SD and p must be null, got %+v", pg8)
	}
}

var (
	tableRE = regexp.MustCompile(`(?s)<table data-table="([^"]+)">(.*?)</table>`)
	cellRE  = regexp.MustCompile(`<td(?: class="([^"]*)")?(?: data-value="([^"]*)")?>([^<]*)</td>`)
	jsonRE  = regexp.MustCompile(`<script type="application/json" class="chart-data" data-chart="([^"]+)">(.*?)</script>`)
)

// pageTables is every table of a page: name -> rows -> (data-value, text).
func pageTables(page string) map[string][][][2]string {
	out := map[string][][][2]string{}
	for _, m := range tableRE.FindAllStringSubmatch(page, -1) {
		var rows [][][2]string
		for _, tr := range strings.Split(m[2], "<tr>")[2:] { // after the heading row
			var row [][2]string
			for _, td := range cellRE.FindAllStringSubmatch(tr, -1) {
				row = append(row, [2]string{td[2], html.UnescapeString(td[3])})
			}
			rows = append(rows, row)
		}
		out[m[1]] = rows
	}
	return out
}

// TestDocumentHTML checks the page without a browser: each chart's JSON is the chart,
// its data table holds the chart's numbers, each metric table the summary's, and the
// page loads nothing from elsewhere.
func TestDocumentHTML(t *testing.T) {
	doc, sum, _ := sampleDocument(t)
	b, err := doc.HTML()
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	// The SVG namespaces are names, not addresses the browser loads.
	bare := strings.NewReplacer(`xmlns="http://www.w3.org/2000/svg"`, "", `xmlns:xlink="http://www.w3.org/1999/xlink"`, "").Replace(page)
	for _, bad := range []string{"http://", "https://", "<link", "src=", "@import", "figures/"} {
		if strings.Contains(bare, bad) {
			t.Errorf("the page contains %q: it must stand alone", bad)
		}
	}
	if n := strings.Count(page, `<svg class="chart"`); n != len(doc.Charts()) {
		t.Errorf("%d inline SVGs, want %d", n, len(doc.Charts()))
	}
	tables := pageTables(page)
	scripts := jsonRE.FindAllStringSubmatch(page, -1)
	if len(scripts) != len(doc.Charts()) {
		t.Fatalf("%d chart data scripts, want %d", len(scripts), len(doc.Charts()))
	}
	for i, c := range doc.Charts() {
		var back chart.Chart
		if err := json.Unmarshal([]byte(scripts[i][2]), &back); err != nil || scripts[i][1] != c.Name {
			t.Fatalf("chart %s: data script %q: %v", c.Name, scripts[i][1], err)
		}
		if !reflect.DeepEqual(&back, c) {
			t.Errorf("chart %s: the page's data differ from the chart's", c.Name)
		}
		data := c.Data()
		rows := tables[c.Name]
		if len(rows) != len(data.Rows) {
			t.Fatalf("chart %s: %d data rows in the page, want %d", c.Name, len(rows), len(data.Rows))
		}
		for r, dr := range data.Rows {
			if rows[r][0][1] != dr.X {
				t.Errorf("chart %s row %d: x %q, want %q", c.Name, r, rows[r][0][1], dr.X)
			}
			for j, v := range dr.Values {
				got := rows[r][j+1]
				if math.IsNaN(v) {
					if got != [2]string{"", Missing} {
						t.Errorf("chart %s row %d column %d: %q, want missing", c.Name, r, j, got)
					}
				} else if f, err := strconv.ParseFloat(got[0], 64); err != nil || f != v || got[1] != chart.FormatNumber(v) {
					t.Errorf("chart %s row %d column %d: %q, want %v", c.Name, r, j, got, v)
				}
			}
		}
	}
	for _, m := range fixtureMetrics {
		rows := tables[m.Key]
		for i, cs := range sum.Cells {
			st := cs.Metrics[m.Key].Stats
			if f, err := strconv.ParseFloat(rows[i][3][0], 64); err != nil || f != st.Mean {
				t.Errorf("table %s, %s: mean %q, want %v", m.Key, cs.ID, rows[i][3][0], st.Mean)
			}
		}
	}
}

func TestDocumentWrite(t *testing.T) {
	doc, _, _ := sampleDocument(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, rundir.ReportFile), []byte("an earlier report"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := doc.Write(dir); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, rundir.ReportFile))
	if err != nil || !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) {
		t.Fatalf("report.html: %.40q, %v", page, err)
	}
	for _, c := range doc.Charts() {
		svg, err := os.ReadFile(filepath.Join(dir, rundir.FiguresDir, c.Name+".svg"))
		if err != nil || !bytes.Contains(svg, []byte("<svg ")) {
			t.Errorf("%s.svg: %v", c.Name, err)
		}
		png, err := os.ReadFile(filepath.Join(dir, rundir.FiguresDir, c.Name+".png"))
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Errorf("%s.png: %v", c.Name, err)
		}
		if !bytes.Contains(page, []byte(`href="figures/`+c.Name+`.png"`)) {
			t.Errorf("report.html does not link %s.png", c.Name)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// A directory that cannot be created: an error naming it, nothing written.
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	if err := doc.Write(filepath.Join(blocker, "out")); err == nil || !strings.Contains(err.Error(), blocker) {
		t.Errorf("writing under a file: %v", err)
	}
}

// TestDocumentNonFinite: a NaN or an infinity in a chart's points (a figure missing
// from a run) neither fails the report nor blanks it: the page and the figures are
// written, each chart without what is no number, its note saying what was left out.
// Before, the report failed whole ("x and y must be finite numbers").
func TestDocumentNonFinite(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	line := chart.New(chart.Line, "tps", "TPS", chart.Axis{Label: "users"}, chart.Axis{Label: "TPS", Unit: "tx/s"}).
		Add("sqlite", chart.XY(1, 10), chart.XY(2, nan), chart.XYCI(4, 30, 20, inf)).
		Add("postgres", chart.XY(1, 12), chart.XY(2, 22))
	bars := chart.NewBars("energy", "Energy", []string{"a", "b"}, chart.Axis{Label: "cell"}, chart.Axis{Label: "energy", Unit: "J"}, false).
		Add("run", chart.XY(0, inf), chart.XY(1, 5))
	area := chart.New(chart.StackedArea, "watts", "Watts", chart.Axis{Label: "time", Unit: "s"}, chart.Axis{Label: "power", Unit: "W"}).
		Add("cpu", chart.XY(0, 1), chart.XY(1, nan), chart.XY(2, 3)).
		Add("dram", chart.XY(0, 2), chart.XY(1, 2), chart.XY(2, 2))
	doc := New("missing figures")
	doc.Section("s").AddChart(line).AddChart(bars).AddChart(area)
	dir := t.TempDir()
	if err := doc.Write(dir); err != nil {
		t.Fatalf("a NaN in a chart fails the report: %v", err)
	}
	page, err := os.ReadFile(filepath.Join(dir, rundir.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	scripts := jsonRE.FindAllStringSubmatch(string(page), -1)
	if len(scripts) != 3 {
		t.Fatalf("%d chart data scripts, want 3", len(scripts))
	}
	for _, tc := range []struct {
		name   string
		points map[string][][2]float64
		note   string
	}{
		{"tps", map[string][][2]float64{"sqlite": {{1, 10}, {4, 30}}, "postgres": {{1, 12}, {2, 22}}},
			"1 point(s) with no number (NaN or infinite) left out: sqlite at x 2 (y NaN); 1 error bar(s) whose ends were no number left out."},
		{"energy", map[string][][2]float64{"run": {{1, 5}}},
			"1 point(s) with no number (NaN or infinite) left out: run at a (y +Inf)."},
		{"watts", map[string][][2]float64{"cpu": {{0, 1}, {2, 3}}, "dram": {{0, 2}, {2, 2}}},
			"2 point(s) with no number (NaN or infinite) left out: cpu at x 1 (y NaN), dram at x 1 (y 2)."},
	} {
		var back chart.Chart
		for _, sc := range scripts {
			if sc[1] == tc.name {
				if err := json.Unmarshal([]byte(sc[2]), &back); err != nil {
					t.Fatalf("chart %s: %v", tc.name, err)
				}
			}
		}
		got := map[string][][2]float64{}
		for _, s := range back.Series {
			for _, p := range s.Points {
				got[s.Name] = append(got[s.Name], [2]float64{p.X, p.Y})
				if p.HasCI() {
					t.Errorf("chart %s, %s: an error bar is left at x %v", tc.name, s.Name, p.X)
				}
			}
		}
		if !reflect.DeepEqual(got, tc.points) || back.Note != tc.note {
			t.Errorf("chart %s: points %v, note %q\nwant %v, %q", tc.name, got, back.Note, tc.points, tc.note)
		}
		if !strings.Contains(string(page), html.EscapeString(tc.note)) {
			t.Errorf("the page does not show chart %s's note", tc.name)
		}
		if _, err := os.Stat(filepath.Join(dir, rundir.FiguresDir, tc.name+".png")); err != nil {
			t.Errorf("figure %s: %v", tc.name, err)
		}
	}
	// Rendering again finds nothing more to leave out: the notes are said once.
	if _, err := doc.HTML(); err != nil || line.LeaveOutNonFinite() != 0 || strings.Count(line.Note, "left out") != 2 {
		t.Errorf("a second rendering: %v, note %q", err, line.Note)
	}
}

func TestDocumentValidate(t *testing.T) {
	c := chart.New(chart.Line, "same", "A", chart.Axis{}, chart.Axis{}).Add("s", chart.XY(1, 1))
	doc := New("dup")
	doc.Section("a").AddChart(c).AddChart(c)
	if _, err := doc.HTML(); err == nil || !strings.Contains(err.Error(), `two charts are named "same"`) {
		t.Errorf("duplicate charts: %v", err)
	}
	doc = New("rows")
	doc.Section("a").AddTable(NewTable("t", "T", Column{Label: "a"}, Column{Label: "b"}).AddRow(Text("x")))
	if _, err := doc.HTML(); err == nil || !strings.Contains(err.Error(), "row 1 has 1 cells for 2 columns") {
		t.Errorf("short row: %v", err)
	}
	doc = New("bad chart")
	doc.Section("a").AddChart(chart.New(chart.Line, "x", "X", chart.Axis{}, chart.Axis{}))
	if _, err := doc.HTML(); err == nil || !strings.Contains(err.Error(), "no series") {
		t.Errorf("invalid chart: %v", err)
	}
}

func TestTableEscapesAndCSV(t *testing.T) {
	a, b := 0.1, 0.2 // variables: a constant 0.1+0.2 is exactly 0.3
	tbl := NewTable("t", "T", Column{Label: "name"}, Column{Label: "value", Unit: "ms"}).
		AddRow(Text(`<script>alert("x")</script>`), Number(a+b)).
		AddRow(Text("none"), Number(math.NaN()))
	doc := New(`A & B`)
	doc.Section("s").AddTable(tbl)
	page, err := doc.HTML()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(page, []byte("<script>alert")) || !bytes.Contains(page, []byte("<title>A &amp; B</title>")) {
		t.Error("text is not escaped")
	}
	if !bytes.Contains(page, []byte(`<td class="num" data-value="0.30000000000000004">0.3</td>`)) {
		t.Errorf("the exact value and the shown text: %s", page)
	}
	var buf bytes.Buffer
	if err := tbl.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	want := "name,value (ms)\n\"<script>alert(\"\"x\"\")</script>\",0.30000000000000004\nnone,\n"
	if buf.String() != want {
		t.Errorf("CSV %q, want %q", buf.String(), want)
	}
}
