package energy

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecorderRAPL follows the fake counters through a wrap. Package 0 starts 1 J
// below the top of its range and reads 2 J after wrapping: 3 J in the first second,
// with package 1's 5 J, 8 W. Then 6 J and 4 J over 2 s: 5 W. The run: 18 J in 3 s,
// 6 W on average, 8 W at the peak. DRAM 0 wraps too: 0.5 J to the top, 1.5 J after.
func TestRecorderRAPL(t *testing.T) {
	sys := fakeSys(t)
	const maxUJ = 262143328850
	setUJ(t, sys, "intel-rapl:0", maxUJ-1_000_000)
	setUJ(t, sys, "intel-rapl:1", 5_000_000)
	const dramMax = 65712999613 // dram zones have a range of their own
	setUJ(t, sys, "intel-rapl:0:1", dramMax-500_000)
	setUJ(t, sys, "intel-rapl:1:1", 0)
	rec, err := New(Config{SysRoot: sys, ProcRoot: "testdata/proc-xeon"})
	if err != nil {
		t.Fatal(err)
	}
	rec.Sample(at(0), math.NaN())
	setUJ(t, sys, "intel-rapl:0", 2_000_000)
	setUJ(t, sys, "intel-rapl:1", 10_000_000)
	setUJ(t, sys, "intel-rapl:0:1", 1_500_000) // wrapped: 0.5 J + 1.5 J
	setUJ(t, sys, "intel-rapl:1:1", 1_000_000)
	if w := rec.Sample(at(1), 0.5); !near(w["cpu"], 8) || !near(w["dram"], 3) {
		t.Errorf("watts of the first second %v, want cpu 8, dram 3", w)
	}
	setUJ(t, sys, "intel-rapl:0", 8_000_000)
	setUJ(t, sys, "intel-rapl:1", 14_000_000)
	setUJ(t, sys, "intel-rapl:0:1", 2_500_000)
	setUJ(t, sys, "intel-rapl:1:1", 2_000_000)
	rec.Sample(at(3), 0.5)
	sec, err := rec.Finish(Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	cpu := figure(t, sec, "run", "cpu")
	if cpu.Method != MethodRAPL || !cpu.Measured || !near(cpu.Joules, 18) || !near(cpu.JoulesLow, 18) ||
		!near(cpu.AvgW, 6) || !near(cpu.PeakW, 8) || cpu.IdleJ != nil {
		t.Errorf("cpu %+v, want RAPL 18 J, 6 W average, 8 W peak", cpu)
	}
	if !strings.HasPrefix(cpu.Source, "RAPL package-0, package-1 (") {
		t.Errorf("cpu source %q", cpu.Source)
	}
	// dram: 3 J in the first second, 2 J in the next two.
	dram := figure(t, sec, "run", "dram")
	if dram.Method != MethodRAPL || !near(dram.Joules, 5) || !near(dram.PeakW, 3) {
		t.Errorf("dram %+v, want RAPL 5 J, 3 W peak", dram)
	}
	total := figure(t, sec, "run", "total")
	if !total.Measured || !near(total.Joules, 23) || !near(total.PeakW, 11) {
		t.Errorf("total %+v, want measured 23 J, 11 W peak", total)
	}
	for _, c := range sec.Components {
		if c.CPU != nil || c.DRAM != nil {
			t.Errorf("component %s carries a model beside RAPL", c.Name)
		}
	}
}

// TestRecorderRAPLReadError: a read that fails leaves no step; the next read spans
// the gap, so no energy is lost.
func TestRecorderRAPLReadError(t *testing.T) {
	sys := fakeSys(t)
	rec, err := New(Config{SysRoot: sys, ProcRoot: "testdata/proc-xeon"})
	if err != nil {
		t.Fatal(err)
	}
	setUJ(t, sys, "intel-rapl:0", 0)
	setUJ(t, sys, "intel-rapl:1", 0)
	rec.Sample(at(0), math.NaN())
	p := filepath.Join(sys, "class", "powercap", "intel-rapl:1", "energy_uj")
	if err := os.WriteFile(p, []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if w := rec.Sample(at(1), 0.5); len(w) != 1 || w["dram"] != 0 {
		t.Errorf("watts after a failed package read %v: want dram's alone (idle counters: 0 W)", w)
	}
	setUJ(t, sys, "intel-rapl:0", 4_000_000)
	setUJ(t, sys, "intel-rapl:1", 2_000_000)
	rec.Sample(at(2), 0.5)
	sec, _ := rec.Finish(Inputs{})
	cpu := figure(t, sec, "run", "cpu")
	if !near(cpu.Joules, 6) || !near(cpu.CoveredS, 2) || !near(cpu.PeakW, 3) {
		t.Errorf("cpu %+v, want 6 J over the 2 s, 3 W", cpu)
	}
	if c := sec.Components[0]; len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "1 RAPL reads failed") {
		t.Errorf("notes %v", c.Notes)
	}
}

// TestRecorderRAPLMisread: numbers from the counters are checked like any other. A
// counter above its range is a failed read, and the next read spans the gap, as after
// any failed read. A counter a microjoule back would be a whole range of 262 kJ in a
// second if read as a wrap, 262 kW: that interval is left uncovered and said,
// instead of counting kilojoules the CPU never drew.
func TestRecorderRAPLMisread(t *testing.T) {
	for _, c := range []struct {
		name              string
		pkg0, next        uint64
		joules, coveredS  float64
		cpuNote, firstErr string
	}{
		// 2 J of package 0 and 1 J of package 1 from 0 s to 2 s.
		{"above the range", 262143328851, 3_000_000, 3, 2, "",
			"1 RAPL reads failed (the next read spans the gap), the first: package-0: energy_uj 262143328851 is above max_energy_range_uj 262143328850"},
		// 2 J of package 0 and 1 J of package 1 in the second second alone.
		{"a microjoule back", 999_999, 2_999_999, 3, 1, "covers 1.0 s of the window's 2.0 s",
			"1 intervals between RAPL reads were left uncovered: their counters' increase was no power a CPU draws (a misread), the first: package-0, package-1 over 1s: 262143 W is more than 100 kW"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sys := fakeSys(t)
			rec, err := New(Config{SysRoot: sys, ProcRoot: "testdata/proc-xeon"})
			if err != nil {
				t.Fatal(err)
			}
			setUJ(t, sys, "intel-rapl:0", 1_000_000)
			setUJ(t, sys, "intel-rapl:1", 0)
			rec.Sample(at(0), math.NaN())
			setUJ(t, sys, "intel-rapl:0", c.pkg0)
			rec.Sample(at(1), 0.5)
			setUJ(t, sys, "intel-rapl:0", c.next)
			setUJ(t, sys, "intel-rapl:1", 1_000_000)
			rec.Sample(at(2), 0.5)
			sec, _ := rec.Finish(Inputs{})
			cpu := figure(t, sec, "run", "cpu")
			if !near(cpu.Joules, c.joules) || !near(cpu.CoveredS, c.coveredS) || !strings.Contains(cpu.Note, c.cpuNote) {
				t.Errorf("cpu %+v, want %g J over %g s", cpu, c.joules, c.coveredS)
			}
			if n := sec.Components[0].Notes; len(n) != 1 || !strings.Contains(n[0], c.firstErr) {
				t.Errorf("notes %v, want %q", n, c.firstErr)
			}
		})
	}
}
