package energy

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// modelRecorder records 3 s of a host without RAPL: --cpu-watts 10,110 at u = 0,
// 0.5, 1 in its three seconds, 16 GiB of memory, 20 W of base power.
func modelRecorder(t *testing.T, meters ...MeterConfig) *Recorder {
	t.Helper()
	rec, err := New(Config{SysRoot: noSys(t), ProcRoot: "testdata/proc-epyc-vm", CPUWatts: &CPUWatts{10, 110},
		BaseWatts: 20, Meters: meters})
	if err != nil {
		t.Fatal(err)
	}
	rec.Sample(at(0), math.NaN())
	rec.Sample(at(1), 0)
	rec.Sample(at(2), 0.5)
	rec.Sample(at(3), 1)
	return rec
}

// hdd is the storage section's device: 840 J from mount to unmount over 100 s, 750 J
// of it idle: 8.4 W on average, 7.5 W idle.
var hdd = Device{Name: "data", Spec: "hdd-7200", Joules: 840, IdleJoules: 750, Seconds: 100, Source: "profile hdd-7200"}

// TestRecorderModel checks every figure of a modelled run by hand.
//
//	cpu:  10 + 60 + 110 W over 1 s each = 180 J, 30 J of it idle; peak 110 W
//	dram: 16 GiB x 0.392 W/GB = 6.272 W x 3 s = 18.816 J [7.5-30]
//	base: 20 W x 3 s = 60 J
//	storage:data: 8.4 W x 3 s = 25.2 J, 22.5 J idle
//	total: 284.016 J [272.7-295.2], 94.672 W average; peak 110 + 6.272 + 20 + 8.4
func TestRecorderModel(t *testing.T) {
	rec := modelRecorder(t)
	sec, err := rec.Finish(Inputs{Devices: []Device{hdd},
		Windows: []Window{{Label: "run", Start: at(0), End: at(3), Queries: 4, Transactions: 8}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name                string
		method              Method
		j, low, high, idleJ float64
		avg, peak           float64
	}{
		{"cpu", MethodModel, 180, 180, 180, 30, 60, 110},
		{"dram", MethodModel, 18.816, 7.5, 30, 18.816, 6.272, 6.272},
		{"base", MethodConstant, 60, 60, 60, 60, 20, 20},
		{"storage:data", MethodDatasheet, 25.2, 25.2, 25.2, 22.5, 8.4, 8.4},
		{"total", "", 284.016, 272.7, 295.2, 131.316, 94.672, 144.672},
	} {
		f := figure(t, sec, "run", c.name)
		if f.Method != c.method || f.Measured || !near(f.Joules, c.j) || !near(f.JoulesLow, c.low) || !near(f.JoulesHigh, c.high) ||
			f.IdleJ == nil || !near(*f.IdleJ, c.idleJ) || !near(f.AvgW, c.avg) || !near(f.PeakW, c.peak) || !f.InTotal {
			t.Errorf("%s: %+v\nwant %s %g J [%g-%g], %g J idle, %g W average, %g W peak", c.name, f, c.method, c.j, c.low, c.high, c.idleJ, c.avg, c.peak)
		}
		if !near(f.Wh, c.j/3600) || !near(f.CO2g, c.j/3.6e6*475) || !near(f.JPerQuery, c.j/4) || !near(f.JPerTransaction, c.j/8) {
			t.Errorf("%s: %g Wh, %g g, %g J/query, %g J/transaction", c.name, f.Wh, f.CO2g, f.JPerQuery, f.JPerTransaction)
		}
	}
	if f := figure(t, sec, "run", "storage:data"); !strings.Contains(f.Note, "apportioned") {
		t.Errorf("device note %q", f.Note)
	}
	if len(sec.Unavailable) != 1 || !strings.Contains(sec.Unavailable[0].Why, "no /sys/class/powercap") {
		t.Errorf("unavailable %v, want RAPL's reason", sec.Unavailable)
	}
	if sec.GridIntensity != 475 || sec.GridIntensitySource != GridIntensitySource {
		t.Errorf("grid %g %q", sec.GridIntensity, sec.GridIntensitySource)
	}
}

// TestRecorderWindows: a window inside the run, a device whose energy in it is
// known, and Watts/KQphH@Size.
func TestRecorderWindows(t *testing.T) {
	rec := modelRecorder(t)
	sec, err := rec.Finish(Inputs{Devices: []Device{hdd}, Windows: []Window{{Label: "power", Start: at(1.5), End: at(3),
		Queries: 22, QphH: 1000, DeviceJoules: map[string]float64{"data": 30}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.Windows) != 2 || sec.Windows[0].Label != "run" || sec.Windows[0].Seconds != 3 {
		t.Fatalf("windows %+v, want the run made from the samples, then power", sec.Windows)
	}
	// cpu: 60 W x 0.5 s + 110 W x 1 s = 140 J; dram 6.272 x 1.5; base 30 J; the device
	// 30 J as given (20 W). Total 209.408 J over 1.5 s: 139.605 W; per KQphH (1 KQphH)
	// the same.
	if f := figure(t, sec, "power", "cpu"); !near(f.Joules, 140) || !near(f.PeakW, 110) {
		t.Errorf("cpu %+v", f)
	}
	if f := figure(t, sec, "power", "storage:data"); !near(f.Joules, 30) || f.Note != "" {
		t.Errorf("device %+v", f)
	}
	w := sec.Window("power")
	if !near(w.Total.Joules, 209.408) || !near(w.WattsPerKQphH, 209.408/1.5) || !near(w.Total.JPerQuery, 209.408/22) {
		t.Errorf("power window total %+v, %g Watts/KQphH", w.Total, w.WattsPerKQphH)
	}
	if _, err := rec.Finish(Inputs{Windows: []Window{{Label: "backwards", Start: at(2), End: at(1)}}}); err == nil ||
		!strings.Contains(err.Error(), `window "backwards" ends`) {
		t.Errorf("a window that ends before it starts: %v", err)
	}
}

// writeMeter writes readings at t0 + each second given, of watts each.
func writeMeter(t *testing.T, secs []float64, watts []float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("time,watts\n")
	for i, s := range secs {
		fmt.Fprintf(&b, "%s,%g\n", at(s).Format(time.RFC3339Nano), watts[i])
	}
	p := filepath.Join(t.TempDir(), "meter.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRecorderHostMeter: a wall meter reading 200 W every second from before the run
// to after it covers the run: it is the host in the total (600 J), and cpu, dram and
// base, which it contains, are shown but not counted. The device is outside it.
func TestRecorderHostMeter(t *testing.T) {
	file := writeMeter(t, []float64{-0.5, 0.5, 1.5, 2.5, 3.5}, []float64{200, 200, 200, 200, 200})
	rec := modelRecorder(t, MeterConfig{Name: "wall", File: file})
	sec, err := rec.Finish(Inputs{Devices: []Device{hdd}})
	if err != nil {
		t.Fatal(err)
	}
	wall := figure(t, sec, "run", "wall")
	if !wall.Measured || wall.Method != MethodMeter || !near(wall.Joules, 600) || !wall.InTotal || !near(wall.CoveredS, 3) {
		t.Errorf("wall %+v", wall)
	}
	for _, name := range []string{"cpu", "dram", "base"} {
		if f := figure(t, sec, "run", name); f.InTotal || !strings.Contains(f.Note, "contained in wall's reading") {
			t.Errorf("%s: %+v", name, f)
		}
	}
	total := figure(t, sec, "run", "total")
	if !near(total.Joules, 625.2) || total.Measured || total.Source != "storage:data (datasheet) + wall (meter)" || total.IdleJ != nil {
		t.Errorf("total %+v, want 600 + 25.2 J", total)
	}
	// The same meter seen as equipment outside the host adds to the modelled total.
	rec = modelRecorder(t, MeterConfig{Name: "array", File: file, Scope: ScopeExtra})
	sec, _ = rec.Finish(Inputs{})
	if total := figure(t, sec, "run", "total"); !near(total.Joules, 180+18.816+60+600) {
		t.Errorf("total with an extra meter %+v", total)
	}
}

// TestRecorderMeterTornLine: a meter file read while its logger writes ends in part
// of a reading: 123.4 W at 3.5 s cut to "12". Read as 12 W it would bring the run's
// last half second down to a trapezoid from 200 W to 106 W (576.5 J). Only the complete
// lines count: 200 W every second from -0.5 s to 2.5 s, held half a second past the
// last, cover the run at 200 W: 600 J, and the meter says its last line was left out.
func TestRecorderMeterTornLine(t *testing.T) {
	file := writeMeter(t, []float64{-0.5, 0.5, 1.5, 2.5}, []float64{200, 200, 200, 200})
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%s,12", at(3.5).Format(time.RFC3339Nano))
	f.Close()
	rec := modelRecorder(t, MeterConfig{Name: "wall", File: file})
	sec, err := rec.Finish(Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	wall := figure(t, sec, "run", "wall")
	if !near(wall.Joules, 600) || !near(wall.CoveredS, 3) || !wall.InTotal {
		t.Errorf("wall %+v, want 600 J over the whole run", wall)
	}
	var notes []string
	for _, c := range sec.Components {
		if c.Name == "wall" {
			notes = c.Notes
		}
	}
	want := fmt.Sprintf("%s: its last line 6 (%q) has no end", file, at(3.5).Format(time.RFC3339Nano)+",12")
	if len(notes) != 1 || !strings.HasPrefix(notes[0], want) || !strings.Contains(notes[0], "the 5 complete lines before it are used") {
		t.Errorf("notes %q, want one beginning %q", notes, want)
	}
}

// TestRecorderMeterPartial: readings from 1 s to 2 s into a 3 s run, every 0.5 s,
// of 100, 200, 300 W. Held 0.5 s each side they cover 0.5 s to 2.5 s: 2 s of 3.
// Joules: 100 x 0.5 + 75 + 125 + 300 x 0.5 = 400 J, kept and said, not in the total.
// Peak: the sampling interval 2-3 s has 300 W over the half second covered.
func TestRecorderMeterPartial(t *testing.T) {
	file := writeMeter(t, []float64{1, 1.5, 2}, []float64{100, 200, 300})
	rec := modelRecorder(t, MeterConfig{File: file})
	sec, err := rec.Finish(Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	m := figure(t, sec, "run", "meter")
	if !near(m.Joules, 400) || !near(m.CoveredS, 2) || !near(m.AvgW, 200) || !near(m.PeakW, 300) || m.InTotal ||
		m.Note != "covers 2.0 s of the window's 3.0 s (67%): its joules are for that part only, and not in the total" {
		t.Errorf("meter %+v", m)
	}
	if cpu := figure(t, sec, "run", "cpu"); !cpu.InTotal {
		t.Errorf("cpu left out beside a meter that does not cover the run: %+v", cpu)
	}
	if total := figure(t, sec, "run", "total"); !near(total.Joules, 180+18.816+60) {
		t.Errorf("total %+v", total)
	}
}

// TestRecorderMeterBadFile: a meter file with a bad line fails New when it exists
// before the run; one that turns bad during the run fails Finish, which keeps
// everything else.
func TestRecorderMeterBadFile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("time,watts\n1714564800,200\n1714564801,two hundred\n"), 0o644)
	_, err := New(Config{SysRoot: noSys(t), ProcRoot: "testdata/proc-epyc-vm", Meters: []MeterConfig{{File: bad}}})
	var fe *MeterFileError
	if !errors.As(err, &fe) || fe.Line != 3 {
		t.Fatalf("New with a bad meter file: %v", err)
	}

	later := filepath.Join(t.TempDir(), "later.csv")
	rec := modelRecorder(t, MeterConfig{File: later})
	os.WriteFile(later, []byte("1714564800 200\n1714564801\n"), 0o644)
	sec, err := rec.Finish(Inputs{})
	if !errors.As(err, &fe) || fe.Line != 2 || !strings.HasPrefix(err.Error(), "--power-meter "+later+":2: ") {
		t.Fatalf("Finish: %v", err)
	}
	if sec == nil || !near(figure(t, sec, "run", "cpu").Joules, 180) {
		t.Fatalf("the section was not kept: %+v", sec)
	}
	found := false
	for _, u := range sec.Unavailable {
		found = found || (u.What == "meter" && strings.Contains(u.Why, ":2:"))
	}
	if !found {
		t.Errorf("unavailable %v does not name the meter", sec.Unavailable)
	}
}

// TestRecorderMeterCommand polls a command standing in for ipmitool, at real times:
// the figures are measured, from the command, and a constant 150 W averages 150 W.
func TestRecorderMeterCommand(t *testing.T) {
	cmd := "echo '    Instantaneous power reading:   150 Watts'"
	rec, err := New(Config{SysRoot: noSys(t), ProcRoot: "testdata/proc-epyc-vm", Meters: []MeterConfig{{Command: cmd}}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i := range 4 {
		rec.Sample(start.Add(time.Duration(i)*50*time.Millisecond), 0.5)
		rec.meters[0].cmd.wg.Wait() // let each poll finish, so that each sample has a reading
	}
	sec, err := rec.Finish(Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	m := figure(t, sec, "run", "meter")
	if !m.Measured || m.Method != MethodMeter || !strings.Contains(m.Source, cmd) || m.CoveredS <= 0 || !near(m.AvgW, 150) {
		t.Errorf("meter %+v", m)
	}
	if rs, _, _ := rec.meters[0].cmd.result(); len(rs) != 5 {
		t.Errorf("%d readings, want the check's and one per sample", len(rs))
	}

	_, err = New(Config{SysRoot: noSys(t), Meters: []MeterConfig{{Command: "echo no BMC >&2; exit 1"}}})
	var ce *MeterCommandError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "exit status 1: no BMC") {
		t.Errorf("a failing command: %v", err)
	}
}

func TestNewBadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{GridIntensity: -1}, "--grid-intensity -1"},
		{Config{GridIntensity: math.NaN()}, "--grid-intensity NaN"},
		{Config{GridIntensity: 475000}, "--grid-intensity 475000: give grams of CO2 per kWh, 0 to 2000"},
		{Config{BaseWatts: -5}, "--base-watts -5"},
		{Config{BaseWatts: math.Inf(1)}, "--base-watts +Inf: +Inf is not a number of watts"},
		{Config{BaseWatts: 1e308}, "--base-watts 1e+308: 1e+308 W is more than 100 kW"},
		{Config{CPUWatts: &CPUWatts{10, 1e308}}, "--cpu-watts 10,1e+308: max: 1e+308 W is more than 100 kW"},
		{Config{CPUWatts: &CPUWatts{20, 10}}, "--cpu-watts 20,10: idle is above max"},
		{Config{DRAM: DRAMConfig{DIMMs: -1}}, "DRAM modules -1"},
		{Config{DRAM: DRAMConfig{WattsPerGB: math.NaN()}}, "DRAM watts per GB NaN"},
		{Config{CPUShape: "cubic"}, `CPU power shape "cubic"`},
		{Config{Meters: []MeterConfig{{}}}, "one of the two"},
		{Config{Meters: []MeterConfig{{File: "a", Command: "b"}}}, "one of the two"},
		{Config{Meters: []MeterConfig{{Name: "cpu", File: "a"}}}, "the name is taken"},
		{Config{Meters: []MeterConfig{{File: "a", Scope: "rack"}}}, `scope "rack"`},
	} {
		c.cfg.SysRoot = noSys(t)
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestGridIntensityZero: a grid the user says emits nothing is 0 g/kWh, not the
// default; 0 without a source is the default.
func TestGridIntensityZero(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want float64
	}{
		{Config{GridIntensity: 0, GridIntensitySource: GridSource(0)}, 0},
		{Config{}, DefaultGridIntensity},
	} {
		c.cfg.SysRoot, c.cfg.ProcRoot, c.cfg.BaseWatts = noSys(t), "testdata/proc-epyc-vm", 100
		rec, err := New(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		rec.Sample(at(0), math.NaN())
		rec.Sample(at(36), 0.5)
		sec, _ := rec.Finish(Inputs{})
		// base: 100 W x 36 s = 1 Wh; CO2 = 1/1000 kWh x the grid.
		if base := figure(t, sec, "run", "base"); sec.GridIntensity != c.want || !near(base.CO2g, c.want/1000) {
			t.Errorf("%+v: grid %g, base %g g CO2; want %g g/kWh", c.cfg, sec.GridIntensity, base.CO2g, c.want)
		}
	}
}

// TestChart: one point per sampling interval, energy-preserving groups on a long run,
// and null where a component covers nothing.
func TestChart(t *testing.T) {
	rec := modelRecorder(t)
	sec, _ := rec.Finish(Inputs{})
	ch := sec.Chart
	if len(ch.EndS) != 3 || ch.EndS[2] != 3 {
		t.Fatalf("chart ends %v", ch.EndS)
	}
	last := ch.Series[len(ch.Series)-1]
	if last.Name != "total" || !near(last.Watts[0], 10+6.272+20) || !near(last.Watts[2], 110+6.272+20) {
		t.Errorf("total series %+v", last)
	}

	long, err := New(Config{SysRoot: noSys(t), ProcRoot: "testdata/proc-epyc-vm", CPUWatts: &CPUWatts{10, 110}})
	if err != nil {
		t.Fatal(err)
	}
	long.Sample(at(0), math.NaN())
	for i := 1; i < 1500; i++ {
		u := float64(i%10) / 10
		if i == 700 {
			u = math.NaN() // an interval without utilisation: cpu covers nothing there
		}
		long.Sample(at(float64(i)), u)
	}
	sec, _ = long.Finish(Inputs{})
	ch = sec.Chart
	// 1499 intervals in groups of 3: 500 points, the last a single interval.
	if len(ch.EndS) != 500 || ch.EndS[499] != 1499 {
		t.Fatalf("%d points ending at %g", len(ch.EndS), ch.EndS[len(ch.EndS)-1])
	}
	cpu := ch.Series[0]
	var j float64
	prev := 0.0
	for k, w := range cpu.Watts {
		if !math.IsNaN(w) {
			j += w * (ch.EndS[k] - prev)
		}
		prev = ch.EndS[k]
	}
	run := figure(t, sec, "run", "cpu")
	// The group holding the missing interval averages over what it covers, so the
	// chart's sum differs from the run's joules by at most that point's share.
	if math.Abs(j-run.Joules) > 110 {
		t.Errorf("chart holds %g J, the run %g J", j, run.Joules)
	}
	b, err := json.Marshal(sec.Chart)
	if err != nil || !strings.Contains(string(b), `"watts":[`) {
		t.Fatalf("chart JSON: %v %s", err, b[:min(len(b), 200)])
	}
}

// TestFloatsJSON: NaN is null in JSON and back.
func TestFloatsJSON(t *testing.T) {
	b, err := json.Marshal(Floats{1.5, math.NaN(), 2})
	if err != nil || string(b) != "[1.5,null,2]" {
		t.Fatalf("%s %v", b, err)
	}
	var f Floats
	if err := json.Unmarshal(b, &f); err != nil || len(f) != 3 || f[0] != 1.5 || !math.IsNaN(f[1]) || f[2] != 2 {
		t.Errorf("%v %v", f, err)
	}
}

// figure returns the component named name of window label, failing the test if absent.
func figure(t *testing.T, s *Section, label, name string) Figures {
	t.Helper()
	w := s.Window(label)
	if w == nil {
		t.Fatalf("no window %q", label)
	}
	if name == "total" {
		return w.Total
	}
	for _, f := range w.Components {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("window %q has no component %q: %+v", label, name, w.Components)
	return Figures{}
}

// TestMissing: a window's total says which parts of the whole system it leaves out.
// On a host whose CPU is not in the table, without --cpu-watts or --base-watts, the
// total is DRAM plus storage: cpu and base are missing, with why. A host meter that
// covers the window stands for cpu, dram and base; an emulated device without a time
// and a meter of equipment outside the host that covers part of the window are
// missing too; with everything given, nothing is.
func TestMissing(t *testing.T) {
	unknown, err := New(Config{SysRoot: noSys(t), ProcRoot: "testdata/proc-unknown"})
	if err != nil {
		t.Fatal(err)
	}
	unknown.Sample(at(0), math.NaN())
	unknown.Sample(at(3), 0.5)
	sec, _ := unknown.Finish(Inputs{Devices: []Device{hdd, {Name: "wal", Spec: "nvme"}}})
	run := sec.Window("run")
	want := []Unavailable{
		{"cpu", `"Imaginary CPU 9000" is not in tierbench's CPU table: give --cpu-watts IDLE,MAX (about 0.1 and 1 times the CPUs' TDP from the vendor's specification)`},
		{"base", "give --base-watts"},
		{"storage:wal", "the storage section gives no time for the device"},
	}
	if fmt.Sprint(run.Missing) != fmt.Sprint(want) {
		t.Errorf("missing %q\nwant %q", run.Missing, want)
	}
	if got := MissingText(sec, run, "see below"); got != "cpu (see below), base (see below), storage:wal (see below)" {
		t.Errorf("text %q", got)
	}

	// The model covers 1 s to 3 s of the run (the first interval has no utilisation),
	// a wall meter all of it, and an array meter 1 s to 2 s.
	wall := writeMeter(t, []float64{-0.5, 0.5, 1.5, 2.5, 3.5}, []float64{200, 200, 200, 200, 200})
	array := writeMeter(t, []float64{1, 1.5, 2}, []float64{100, 100, 100})
	for _, c := range []struct {
		name   string
		meters []MeterConfig
		want   string
	}{
		{"model and base", nil, "[{cpu covers 2.0 s of the window's 3.0 s (67%)}]"},
		{"a wall meter", []MeterConfig{{Name: "wall", File: wall}}, "[]"},
		{"an array meter", []MeterConfig{{Name: "wall", File: wall}, {Name: "array", File: array, Scope: ScopeExtra}},
			"[{array covers 2.0 s of the window's 3.0 s (67%): its joules are for that part only, and not in the total}]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec, err := New(Config{SysRoot: noSys(t), ProcRoot: "testdata/proc-epyc-vm", CPUWatts: &CPUWatts{10, 110},
				BaseWatts: 20, Meters: c.meters})
			if err != nil {
				t.Fatal(err)
			}
			rec.Sample(at(0), math.NaN())
			rec.Sample(at(1), math.NaN())
			rec.Sample(at(2), 0.5)
			rec.Sample(at(3), 1)
			sec, _ := rec.Finish(Inputs{Devices: []Device{hdd}})
			if got := fmt.Sprint(sec.Window("run").Missing); got != c.want {
				t.Errorf("missing %s, want %s", got, c.want)
			}
		})
	}
}

// TestPeakAtMarks: the samples at window marks come a few milliseconds after a tick,
// and the utilisation of so short an interval is a jiffy or none: 100% here. Such an
// interval joins its neighbour for the peak, which is then an average over about a
// second, not 110 W over 2 ms. With --cpu-watts 10,110: 110 W over 0-0.002 s, 60 W
// over each second to 2.002 s, 110 W over 2.002-2.01 s. Intervals: 0-1.002 s (60.22 J)
// and 1.002-2.01 s (60 + 0.88 J): peak 60.88 / 1.008 W; the joules are all counted,
// 121.1 J.
func TestPeakAtMarks(t *testing.T) {
	rec, err := New(Config{SysRoot: noSys(t), ProcRoot: "testdata/proc-epyc-vm", CPUWatts: &CPUWatts{10, 110}})
	if err != nil {
		t.Fatal(err)
	}
	rec.Sample(at(0), math.NaN())
	for _, s := range []struct{ at, u float64 }{{0.002, 1}, {1.002, 0.5}, {2.002, 0.5}, {2.005, 1}, {2.01, 1}} {
		rec.Sample(at(s.at), s.u)
	}
	sec, _ := rec.Finish(Inputs{})
	cpu := figure(t, sec, "run", "cpu")
	if !near(cpu.PeakW, 60.88/1.008) || !near(cpu.Joules, 121.1) {
		t.Errorf("cpu peak %g W, %g J; want %g W, 121.1 J", cpu.PeakW, cpu.Joules, 60.88/1.008)
	}
	if ch := sec.Chart; len(ch.EndS) != 2 || !near(ch.EndS[0], 1.002) || !near(ch.Series[0].Watts[1], 60.88/1.008) {
		t.Errorf("chart %v %v: want the same two intervals", ch.EndS, ch.Series[0].Watts)
	}
}
