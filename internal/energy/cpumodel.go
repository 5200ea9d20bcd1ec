package energy

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// CPUWatts is the power of the host's CPUs idle and fully used, as a user gives it
// (--cpu-watts IDLE,MAX), from a datasheet or a measurement of their own.
type CPUWatts struct {
	IdleW, MaxW float64
}

// ParseCPUWatts reads --cpu-watts: "IDLE,MAX" in watts, such as "12.5,125".
func ParseCPUWatts(text string) (CPUWatts, error) {
	bad := func(why string) error {
		return fmt.Errorf("--cpu-watts %q: %s: give the CPUs' idle and full watts as IDLE,MAX, such as 12.5,125", text, why)
	}
	idle, full, ok := strings.Cut(text, ",")
	if !ok {
		return CPUWatts{}, bad("no comma")
	}
	var w CPUWatts
	var err error
	if w.IdleW, err = strconv.ParseFloat(strings.TrimSpace(idle), 64); err != nil {
		return CPUWatts{}, bad("idle is not a number")
	}
	if w.MaxW, err = strconv.ParseFloat(strings.TrimSpace(full), 64); err != nil {
		return CPUWatts{}, bad("max is not a number")
	}
	if err := w.check(); err != nil {
		return CPUWatts{}, bad(err.Error())
	}
	return w, nil
}

// check says what is wrong with w, if anything: idle 0 or more, max above 0 and at
// least idle, both at most MaxWatts.
func (w CPUWatts) check() error {
	if err := checkWatts(w.IdleW); err != nil {
		return fmt.Errorf("idle: %v", err)
	}
	if err := checkWatts(w.MaxW); err != nil {
		return fmt.Errorf("max: %v", err)
	}
	switch {
	case w.MaxW <= 0:
		return errors.New("max is not above 0")
	case w.IdleW > w.MaxW:
		return errors.New("idle is above max")
	}
	return nil
}

// Shape is how CPU power rises with utilisation u between idle and full.
type Shape string

const (
	// ShapeLinear is P = P_idle + (P_max - P_idle) x u, the default: SPECpower's
	// measured servers rise close to linearly with load, and Cloud Carbon Footprint
	// uses them that way (docs/energy.md, "How other tools measure energy").
	ShapeLinear Shape = "linear"
	// ShapeCodeCarbon is P = P_idle + (P_max - P_idle) x u^3, which with the TDP
	// profile's idle of 10% is CodeCarbon's TDP x (0.1 + 0.9 u^3). The cube is the
	// dynamic power of a CPU that meets load by frequency scaling alone (P ~ f V^2,
	// V ~ f); it puts half load at 21% of the span where linear puts it at 50%. It is
	// offered to set tierbench's figures beside CodeCarbon's for the same run, not as
	// the better model.
	ShapeCodeCarbon Shape = "codecarbon"
)

// ParseShape reads a shape's name; "" is linear.
func ParseShape(text string) (Shape, error) {
	switch Shape(text) {
	case "", ShapeLinear:
		return ShapeLinear, nil
	case ShapeCodeCarbon:
		return ShapeCodeCarbon, nil
	}
	return "", fmt.Errorf("CPU power shape %q: give %s or %s", text, ShapeLinear, ShapeCodeCarbon)
}

// The TDP profile's idle and full watts as fractions of TDP, low, nominal and high.
// Nominal is CodeCarbon's (docs/energy.md, "The model": a socket idles near 10% of TDP
// and runs near TDP). The band is tierbench's judgement, stated so it can be argued
// with: an idle socket in deep C-states draws less than 10%, one kept awake by a busy
// uncore or disabled C-states more; sustained package power is capped at TDP (Intel's
// PL1, AMD's default PPT), and all-core loads that stall on memory stay well below it.
var (
	IdleFraction = Range{0.05, 0.10, 0.20}
	MaxFraction  = Range{0.60, 1.00, 1.00}
)

// CPUModel is the power model of the host's CPUs.
type CPUModel struct {
	// ModelName is /proc/cpuinfo's; Profile the table row it matched, or
	// "--cpu-watts".
	ModelName string `json:"model_name,omitempty"`
	Profile   string `json:"profile"`
	// VirtualMachine is set when cpuinfo has the hypervisor flag: the model then
	// counts the VM's share of the sockets, its vCPUs over the socket's threads.
	VirtualMachine bool `json:"virtual_machine"`
	CPUs           int  `json:"cpus"`
	Sockets        int  `json:"sockets"`
	// Basis says how the TDP was scaled to this host.
	Basis string `json:"basis"`
	IdleW Range  `json:"idle_w"`
	MaxW  Range  `json:"max_w"`
	Shape Shape  `json:"shape"`
	// Source says where the figures come from.
	Source string `json:"source"`
}

// Watts is the model's power at utilisation u (clamped to 0..1).
func (m *CPUModel) Watts(u float64) Range {
	u = min(max(u, 0), 1)
	f := u
	if m.Shape == ShapeCodeCarbon {
		f = u * u * u
	}
	at := func(idle, full float64) float64 { return idle + (full-idle)*f }
	return Range{at(m.IdleW.Low, m.MaxW.Low), at(m.IdleW.Nominal, m.MaxW.Nominal), at(m.IdleW.High, m.MaxW.High)}
}

// Equation writes the model out: "P = 0.41 + (4.06 - 0.41) x u".
func (m *CPUModel) Equation() string {
	u := "u"
	if m.Shape == ShapeCodeCarbon {
		u = "u^3"
	}
	return fmt.Sprintf("P = %.3g + (%.3g - %.3g) x %s W", m.IdleW.Nominal, m.MaxW.Nominal, m.IdleW.Nominal, u)
}

// cpuModelWhat names the CPU model in an Unavailable.
const cpuModelWhat = "CPU power model"

// ResolveCPU builds the CPU model of the host whose proc file system is at procRoot
// ("" is /proc): from watts when given, else from the CPU table by cpuinfo's model
// name. A CPU that cannot be modelled is an Unavailable, not an error.
func ResolveCPU(procRoot string, watts *CPUWatts, shape Shape) (*CPUModel, *Unavailable) {
	if shape == "" {
		shape = ShapeLinear
	}
	m := &CPUModel{Shape: shape}
	infos, readErr := readCPUInfo(procRoot)
	if len(infos) > 0 {
		m.ModelName = infos[0].ModelName
		m.VirtualMachine = slices.Contains(infos[0].Flags, "hypervisor")
		m.CPUs = len(infos)
		ids := map[string]bool{}
		for _, c := range infos {
			ids[c.PhysicalID] = true
		}
		m.Sockets = len(ids)
	}
	if watts != nil {
		m.Profile, m.Basis = "--cpu-watts", "as given for the whole host"
		m.IdleW, m.MaxW = Exact(watts.IdleW), Exact(watts.MaxW)
		m.Source = "--cpu-watts (the user's figures: no band)"
		return m, nil
	}
	if readErr != nil {
		return nil, &Unavailable{cpuModelWhat, fmt.Sprintf("/proc/cpuinfo: %v: give --cpu-watts IDLE,MAX", readErr)}
	}
	if m.ModelName == "" {
		return nil, &Unavailable{cpuModelWhat, "/proc/cpuinfo names no CPU model: give --cpu-watts IDLE,MAX"}
	}
	p, ok := lookupCPU(m.ModelName)
	if !ok {
		return nil, &Unavailable{cpuModelWhat, fmt.Sprintf("%q is not in tierbench's CPU table: give --cpu-watts IDLE,MAX "+
			"(about 0.1 and 1 times the CPUs' TDP from the vendor's specification)", m.ModelName)}
	}
	m.Profile = p.Match
	var tdp Range
	pt := p.perThread()
	switch {
	case m.VirtualMachine:
		tdp = pt.Scale(float64(m.CPUs))
		m.Basis = fmt.Sprintf("%d vCPUs x %.3g W TDP per hardware thread (a virtual machine's share of the sockets)", m.CPUs, pt.Nominal)
	case len(p.Family) > 0:
		tdp = pt.Scale(float64(m.CPUs))
		m.Basis = fmt.Sprintf("%d hardware threads x %.3g W TDP per thread", m.CPUs, pt.Nominal)
	default:
		tdp = Exact(p.TDPW * float64(m.Sockets))
		m.Basis = fmt.Sprintf("%d socket(s) x %g W TDP", m.Sockets, p.TDPW)
	}
	m.IdleW = Range{IdleFraction.Low * tdp.Low, IdleFraction.Nominal * tdp.Nominal, IdleFraction.High * tdp.High}
	m.MaxW = Range{MaxFraction.Low * tdp.Low, MaxFraction.Nominal * tdp.Nominal, MaxFraction.High * tdp.High}
	tdpText := fmt.Sprintf("%g W TDP, %d threads", p.TDPW, p.Threads)
	if len(p.Family) > 0 {
		tdpText = fmt.Sprintf("TDP per thread %.3g W [%.3g-%.3g]", pt.Nominal, pt.Low, pt.High)
	}
	m.Source = fmt.Sprintf("%s (%s; %s); idle %g%% [%g-%g%%] and full %g%% [%g-%g%%] of TDP "+
		"(nominal: CodeCarbon, docs/energy.md; band: tierbench's)", p.Match, tdpText, p.Source,
		100*IdleFraction.Nominal, 100*IdleFraction.Low, 100*IdleFraction.High,
		100*MaxFraction.Nominal, 100*MaxFraction.Low, 100*MaxFraction.High)
	return m, nil
}

func readCPUInfo(procRoot string) ([]procfs.CPUInfo, error) {
	if procRoot == "" {
		procRoot = procfs.DefaultMountPoint
	}
	pfs, err := procfs.NewFS(procRoot)
	if err != nil {
		return nil, err
	}
	return pfs.CPUInfo()
}
