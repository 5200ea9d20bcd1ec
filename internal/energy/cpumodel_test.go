package energy

import (
	"strings"
	"testing"
)

func TestParseCPUWatts(t *testing.T) {
	if w, err := ParseCPUWatts("12.5, 125"); err != nil || w != (CPUWatts{12.5, 125}) {
		t.Errorf("12.5, 125: %v %v", w, err)
	}
	for _, c := range []struct{ text, why string }{
		{"", "no comma"}, {"125", "no comma"}, {"a,125", "idle is not a number"}, {"12,b", "max is not a number"},
		{"-1,10", "idle: -1 W is below 0"}, {"10,0", "max is not above 0"}, {"20,10", "idle is above max"},
		{"NaN,10", "idle: NaN is not a number of watts"}, {"1,Inf", "max: +Inf is not a number of watts"},
		// A figure near the largest float64 makes the joules infinite.
		{"1,1e308", "max: 1e+308 W is more than 100 kW"},
		{"12500,125000", "max: 125000 W is more than 100 kW"},
	} {
		_, err := ParseCPUWatts(c.text)
		if err == nil || !strings.HasPrefix(err.Error(), "--cpu-watts ") || !strings.Contains(err.Error(), "IDLE,MAX") ||
			!strings.Contains(err.Error(), c.why) {
			t.Errorf("ParseCPUWatts(%q): %v, want %q", c.text, err, c.why)
		}
	}
}

// TestModelWatts: the model at u = 0, 0.5 and 1, linear and CodeCarbon's cube.
func TestModelWatts(t *testing.T) {
	m := &CPUModel{IdleW: Exact(10), MaxW: Exact(110), Shape: ShapeLinear}
	for _, c := range []struct{ u, want float64 }{{0, 10}, {0.5, 60}, {1, 110}, {1.5, 110}, {-0.2, 10}} {
		if got := m.Watts(c.u); !near(got.Nominal, c.want) || got.Low != got.Nominal || got.High != got.Nominal {
			t.Errorf("linear at u=%g: %v, want %g", c.u, got, c.want)
		}
	}
	m.Shape = ShapeCodeCarbon
	for _, c := range []struct{ u, want float64 }{{0, 10}, {0.5, 10 + 100*0.125}, {1, 110}} {
		if got := m.Watts(c.u); !near(got.Nominal, c.want) {
			t.Errorf("codecarbon at u=%g: %v, want %g", c.u, got, c.want)
		}
	}
	if _, err := ParseShape("cubic"); err == nil {
		t.Error("ParseShape(cubic) accepted")
	}
}

// TestResolveCPU: a two-socket Xeon Gold 6130 (125 W TDP each) on bare metal, and a
// two-vCPU virtual machine whose hypervisor names only "AMD EPYC".
func TestResolveCPU(t *testing.T) {
	m, un := ResolveCPU("testdata/proc-xeon", nil, "")
	if un != nil {
		t.Fatal(un)
	}
	// TDP 250 W: idle 5, 10, 20% of it; full 60, 100, 100%.
	if m.VirtualMachine || m.Sockets != 2 || m.CPUs != 4 || m.Profile != "xeon gold 6130" ||
		m.IdleW != (Range{12.5, 25, 50}) || m.MaxW != (Range{150, 250, 250}) {
		t.Errorf("xeon: %+v", m)
	}
	if got := m.Watts(0.5); !near(got.Nominal, 137.5) || !near(got.Low, 81.25) || !near(got.High, 150) {
		t.Errorf("xeon at u=0.5: %v, want 137.5 [81.25-150]", got)
	}
	// CodeCarbon's TDP x (0.1 + 0.9 u^3) at u = 0.5: 250 x 0.2125.
	cc, _ := ResolveCPU("testdata/proc-xeon", nil, ShapeCodeCarbon)
	if got := cc.Watts(0.5); !near(got.Nominal, 53.125) {
		t.Errorf("codecarbon at u=0.5: %v, want 53.125", got)
	}

	// EPYC per thread: 7601 180/64 = 2.8125, 7742 225/128 = 1.7578125, 7763 280/128 =
	// 2.1875, 9654 360/192 = 1.875; median 2.03125. Two vCPUs: TDP 4.0625 W
	// [3.515625-5.625].
	vm, un := ResolveCPU("testdata/proc-epyc-vm", nil, "")
	if un != nil {
		t.Fatal(un)
	}
	if !vm.VirtualMachine || vm.CPUs != 2 || vm.Profile != "amd epyc" ||
		!near(vm.IdleW.Low, 0.05*3.515625) || !near(vm.IdleW.Nominal, 0.40625) || !near(vm.IdleW.High, 0.2*5.625) ||
		!near(vm.MaxW.Low, 0.6*3.515625) || !near(vm.MaxW.Nominal, 4.0625) || !near(vm.MaxW.High, 5.625) {
		t.Errorf("vm: %+v", vm)
	}
	if !strings.Contains(vm.Basis, "2 vCPUs") || !strings.Contains(vm.Source, "7601, 7742, 7763, 9654") {
		t.Errorf("vm basis %q, source %q", vm.Basis, vm.Source)
	}

	// Given watts win over the table and carry no band.
	given, un := ResolveCPU("testdata/proc-unknown", &CPUWatts{20, 90}, "")
	if un != nil || given.IdleW != Exact(20) || given.MaxW != Exact(90) || given.Profile != "--cpu-watts" {
		t.Errorf("--cpu-watts: %+v %v", given, un)
	}
	// A CPU not in the table, and no cpuinfo at all: unavailable, with what to do.
	if _, un := ResolveCPU("testdata/proc-unknown", nil, ""); un == nil || !strings.Contains(un.Why, `"Imaginary CPU 9000" is not in tierbench's CPU table: give --cpu-watts`) {
		t.Errorf("unknown CPU: %v", un)
	}
	if _, un := ResolveCPU(t.TempDir(), nil, ""); un == nil || !strings.Contains(un.Why, "--cpu-watts") {
		t.Errorf("no cpuinfo: %v", un)
	}
}

func TestLookupCPU(t *testing.T) {
	for _, c := range []struct{ model, want string }{
		{"Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz", "xeon e5-2680 v4"},
		{"Intel(R) Xeon(R) CPU E5-2680 0 @ 2.70GHz", ""},  // the first E5-2680, not v4
		{"Intel(R) Xeon(R) Gold 6130T CPU @ 2.10GHz", ""}, // whole words only
		{"Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz", "core i7-8700"},
		{"AMD EPYC 7742 64-Core Processor", "amd epyc 7742"},
		{"AMD EPYC-Rome Processor", "amd epyc"}, // QEMU's name for its CPU model
		{"AMD EPYC 7B12", "amd epyc"},
		{"AMD EPYC", "amd epyc"},
		{"Apple M1", ""},
	} {
		p, ok := lookupCPU(c.model)
		if got := p.Match; got != c.want || ok != (c.want != "") {
			t.Errorf("lookupCPU(%q) = %q, %v, want %q", c.model, got, ok, c.want)
		}
	}
	for _, p := range CPUProfiles {
		if p.Source == "" || (len(p.Family) == 0 && (p.TDPW <= 0 || p.Threads <= 0)) {
			t.Errorf("row %q lacks a source, TDP or threads", p.Match)
		}
		for _, m := range p.Family {
			if q, ok := lookupCPU(m); !ok || q.Match != m {
				t.Errorf("family %q names %q, which is not a row", p.Match, m)
			}
		}
	}
}

// TestResolveDRAM: 16 GiB at 0.392 W/GB [5 W per 32 GB module to per 8 GB module];
// 8 modules at 5 W [3-8 W]; the user's figures without a band.
func TestResolveDRAM(t *testing.T) {
	m, un := ResolveDRAM("testdata/proc-epyc-vm", DRAMConfig{})
	if un != nil || m.GiB != 16 || !near(m.Watts.Nominal, 16*0.392) || !near(m.Watts.Low, 2.5) || !near(m.Watts.High, 10) {
		t.Errorf("per GB: %+v %v", m, un)
	}
	m, _ = ResolveDRAM("testdata/proc-epyc-vm", DRAMConfig{WattsPerGB: 0.5})
	if m.Watts != Exact(8) {
		t.Errorf("0.5 W/GB: %+v", m)
	}
	m, _ = ResolveDRAM("", DRAMConfig{DIMMs: 8})
	if m.Watts != (Range{24, 40, 64}) || m.DIMMs != 8 {
		t.Errorf("8 modules: %+v", m)
	}
	m, _ = ResolveDRAM("", DRAMConfig{DIMMs: 8, WattsPerDIMM: 4})
	if m.Watts != Exact(32) {
		t.Errorf("8 modules at 4 W: %+v", m)
	}
	if _, un := ResolveDRAM(t.TempDir(), DRAMConfig{}); un == nil {
		t.Error("no meminfo: no Unavailable")
	}
}

// TestCPUProfilesInRange: every row of the CPU table gives watts a socket can draw
// and threads it has; a family row names rows that exist.
func TestCPUProfilesInRange(t *testing.T) {
	rows := map[string]bool{}
	for _, p := range CPUProfiles {
		rows[p.Match] = true
	}
	for _, p := range CPUProfiles {
		if len(p.Family) > 0 {
			for _, m := range p.Family {
				if !rows[m] {
					t.Errorf("%s: family member %q is not a row", p.Match, m)
				}
			}
			continue
		}
		if err := checkWatts(p.TDPW); err != nil || p.TDPW <= 0 || p.Threads < 1 {
			t.Errorf("%s: TDP %g W (%v), %d threads", p.Match, p.TDPW, err, p.Threads)
		}
	}
}
