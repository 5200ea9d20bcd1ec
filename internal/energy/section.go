package energy

import (
	"encoding/json"
	"math"
	"time"
)

// ModelText is Section.Model: how the figures are made (docs/energy.md, "The model").
const ModelText = "E = E_cpu + E_dram + E_base + sum of E_device + E_extra meters; a host meter that covers a window " +
	"replaces cpu, dram and base, which it contains. Joules integrate each component's watts over the window: " +
	"flat between samples for RAPL (counter deltas) and the CPU model (P_idle + (P_max - P_idle) x u at each " +
	"interval's utilisation u), trapezoids between meter readings, constants for DRAM and base, and each " +
	"device's mount-to-unmount average for storage unless the window's own energy is given. Peak W is the highest " +
	"average over one sampling interval (one shorter than half the typical interval, at a window mark, joins its " +
	"neighbour). Modelled figures carry low and high ends from their inputs' bands, " +
	"summed as correlated. CO2 = kWh x grid intensity"

// Section is the energy section of a result: what each component drew in each
// window, measured or modelled, from what source.
type Section struct {
	GridIntensity       float64 `json:"grid_intensity_g_per_kwh"`
	GridIntensitySource string  `json:"grid_intensity_source"`
	Model               string  `json:"model"`
	// Components describe each component once; the windows give their figures.
	Components []Component `json:"components"`
	// Unavailable is what this host could not measure or model, and why.
	Unavailable []Unavailable `json:"unavailable,omitempty"`
	// NotCounted is what the user gave no figure for (base power).
	NotCounted []Unavailable  `json:"not_counted,omitempty"`
	Windows    []WindowResult `json:"windows"`
	// Chart is watts over the run window, for charts.
	Chart *Chart `json:"chart,omitempty"`
}

// Component describes one source of energy.
type Component struct {
	// Name: cpu, dram, base, storage:TIER, or a meter's name.
	Name     string `json:"name"`
	Method   Method `json:"method"`
	Measured bool   `json:"measured"`
	Source   string `json:"source"`
	// CPU and DRAM are the models behind modelled cpu and dram components.
	CPU  *CPUModel  `json:"cpu_model,omitempty"`
	DRAM *DRAMModel `json:"dram_model,omitempty"`
	// Scope is a meter's: host or extra.
	Scope Scope `json:"scope,omitempty"`
	// Notes are what went wrong while measuring (failed reads or polls) and what was
	// not covered.
	Notes []string `json:"notes,omitempty"`
}

// Figures are one component's (or the total's) figures over one window.
type Figures struct {
	Name     string `json:"name"`
	Method   Method `json:"method,omitempty"`
	Measured bool   `json:"measured"`
	Source   string `json:"source"`
	// Joules is the nominal figure, JoulesLow and JoulesHigh its band (equal for a
	// measured figure).
	Joules     float64 `json:"joules"`
	JoulesLow  float64 `json:"joules_low"`
	JoulesHigh float64 `json:"joules_high"`
	Wh         float64 `json:"wh"`
	// IdleJ is the part of Joules drawn idle, where known (models, devices); Joules -
	// IdleJ is the dynamic energy the workload added.
	IdleJ *float64 `json:"idle_j,omitempty"`
	// AvgW is Joules over the seconds covered; PeakW the highest average over one
	// sampling interval.
	AvgW  float64 `json:"avg_w"`
	PeakW float64 `json:"peak_w"`
	CO2g  float64 `json:"co2_g"`
	// JPerQuery and JPerTransaction divide Joules by the window's counts.
	JPerQuery       float64 `json:"j_per_query,omitempty"`
	JPerTransaction float64 `json:"j_per_transaction,omitempty"`
	// CoveredS is how much of the window the figures cover: less than the window
	// when a meter's readings or the utilisation samples stop short.
	CoveredS float64 `json:"covered_s"`
	// InTotal says whether the figure is counted in the window's total, and Note why
	// not (or what it lacks).
	InTotal bool   `json:"in_total"`
	Note    string `json:"note,omitempty"`
}

// WindowResult is one window's energy.
type WindowResult struct {
	Label        string    `json:"label"`
	Start        time.Time `json:"start"`
	End          time.Time `json:"end"`
	Seconds      float64   `json:"seconds"`
	Queries      int64     `json:"queries,omitempty"`
	Transactions int64     `json:"transactions,omitempty"`
	Components   []Figures `json:"components"`
	Total        Figures   `json:"total"`
	// Missing are the parts of the whole system the total leaves out, or covers in
	// part, and why: cpu, dram and base (unless a host meter in the total stands for
	// them) and the emulated devices. Empty when the total is the whole system's.
	Missing []Unavailable `json:"missing,omitempty"`
	// QphH and WattsPerKQphH: the total's average watts per thousand QphH@Size
	// (docs/energy.md; TPC-Energy's metric, which asks for measured power at the wall).
	QphH          float64 `json:"qphh,omitempty"`
	WattsPerKQphH float64 `json:"watts_per_kqphh,omitempty"`
}

// Window returns the window labelled label, or nil.
func (s *Section) Window(label string) *WindowResult {
	for i := range s.Windows {
		if s.Windows[i].Label == label {
			return &s.Windows[i]
		}
	}
	return nil
}

// Chart is watts over time: one point per sampling interval, or per group of them on
// a long run (at most MaxChartPoints), each the interval's average.
type Chart struct {
	Start time.Time `json:"start"`
	// EndS is each point's interval end in seconds since Start.
	EndS   []float64     `json:"end_s"`
	Series []ChartSeries `json:"series"`
}

// ChartSeries is one component's watts, or the total's ("total"); Watts is null
// where the component covers none of an interval.
type ChartSeries struct {
	Name     string `json:"name"`
	Measured bool   `json:"measured"`
	InTotal  bool   `json:"in_total"`
	Watts    Floats `json:"watts"`
}

// MaxChartPoints bounds a chart's points, so that an hour's run sampled every second
// keeps result.json small.
const MaxChartPoints = 600

// Floats is a list of numbers whose NaNs are JSON nulls.
type Floats []float64

func (f Floats) MarshalJSON() ([]byte, error) {
	out := make([]*float64, len(f))
	for i := range f {
		if !math.IsNaN(f[i]) && !math.IsInf(f[i], 0) {
			out[i] = &f[i]
		}
	}
	return json.Marshal(out)
}

func (f *Floats) UnmarshalJSON(b []byte) error {
	var in []*float64
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*f = make(Floats, len(in))
	for i, v := range in {
		(*f)[i] = math.NaN()
		if v != nil {
			(*f)[i] = *v
		}
	}
	return nil
}
