package study

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/energy"
)

// fakeCPUWhy is why a fake run's total lacks the CPU.
const fakeCPUWhy = `"Imaginary CPU 9000" is not in tierbench's CPU table: give --cpu-watts IDLE,MAX`

// fakeEnergy is a fake run's energy section: DRAM and, unless noCPU, the CPU, 10 J per
// user each; base power is never counted.
func fakeEnergy(users int, noCPU bool) *energy.Section {
	run := energy.WindowResult{Label: "run", Missing: []energy.Unavailable{{What: "base", Why: "give --base-watts"}}}
	run.Components = []energy.Figures{{Name: "dram", Joules: 10 * float64(users), InTotal: true}}
	if noCPU {
		run.Missing = append([]energy.Unavailable{{What: "cpu", Why: fakeCPUWhy}}, run.Missing...)
	} else {
		run.Components = append(run.Components, energy.Figures{Name: "cpu", Joules: 10 * float64(users), InTotal: true})
	}
	for _, c := range run.Components {
		run.Total.Joules += c.Joules
	}
	return &energy.Section{Windows: []energy.WindowResult{run}}
}

// TestReportEnergyMissing: a study whose runs' totals lack base power in every run
// and the CPU's in the cells of 2 users labels its energy so, and says in the energy
// section what each total leaves out, where and why, instead of calling DRAM alone
// the whole system's energy.
func TestReportEnergyMissing(t *testing.T) {
	p := mustExpand(t, fakeStudy, "")
	out := t.TempDir()
	if _, err := fakeRunner(p, out, fakeEnergyEnv+"=users=2").Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	rep := loadReport(t, out)
	labels := map[string]string{}
	for _, m := range rep.Metrics {
		labels[m.Key] = m.Label
	}
	if l := labels["energy_j"]; l != "energy of the run (without base; without cpu in some runs)" {
		t.Errorf("energy label %q", l)
	}
	if l := labels["co2_g"]; l != "CO2 of the run (without base; without cpu in some runs)" {
		t.Errorf("CO2 label %q", l)
	}
	if err := rep.Write(out); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	want := "The totals are not the whole system&#39;s: they leave out base in every run (give --base-watts); " +
		"cpu in cells users=2,think=0s, users=2,think=10ms (&#34;Imaginary CPU 9000&#34; is not in tierbench&#39;s CPU table: give --cpu-watts IDLE,MAX)."
	if !strings.Contains(string(html), want) {
		t.Errorf("report.html does not say what the totals leave out:\nwant %s", want)
	}

	// With nothing missing the label says so.
	var whole energyMissing
	whole.add("a", nil)
	if l := whole.label("energy of the run"); l != "energy of the run (whole system)" || whole.text() != "" {
		t.Errorf("nothing missing: %q, %q", l, whole.text())
	}
}
