package energy

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultGridIntensity is the CO2 intensity of electricity used when none is given,
// in grams of CO2 per kWh: the world average CodeCarbon falls back to.
const DefaultGridIntensity = 475.0

// GridIntensitySource names where DefaultGridIntensity comes from.
const GridIntensitySource = "world average, CodeCarbon's fallback (Our World in Data / Ember)"

// MaxGridIntensity bounds --grid-intensity: no fuel emits more than lignite, about
// 1.2 kg of CO2 per kWh over its life, so a larger figure is in other units (grams
// per MWh?).
const MaxGridIntensity = 2000.0

// CheckGridIntensity checks a grid's CO2 intensity in grams per kWh: 0 to
// MaxGridIntensity.
func CheckGridIntensity(gPerKWh float64) error {
	if !finite(gPerKWh) || gPerKWh < 0 || gPerKWh > MaxGridIntensity {
		return fmt.Errorf("--grid-intensity %v: give grams of CO2 per kWh, 0 to %g (e.g. 475 world, 369.5 USA, 56 France)", gPerKWh, MaxGridIntensity)
	}
	return nil
}

// GridSource says where a grid intensity came from: DefaultGridIntensity's source for
// the default, the flag that set it otherwise.
func GridSource(gPerKWh float64) string {
	if gPerKWh == DefaultGridIntensity {
		return GridIntensitySource
	}
	return "--grid-intensity"
}

// CO2Grams is the CO2 of joules of electricity at gPerKWh grams per kWh.
func CO2Grams(joules, gPerKWh float64) float64 {
	return joules / 3.6e6 * gPerKWh
}

// Method says how a component's energy was obtained.
type Method string

const (
	// MethodRAPL is measured by the CPU's own energy counters (powercap).
	MethodRAPL Method = "rapl"
	// MethodMeter is measured by an external meter: a lab meter's file or a polled
	// command such as ipmitool.
	MethodMeter Method = "meter"
	// MethodModel is modelled from the host's measured CPU utilisation or its memory.
	MethodModel Method = "model"
	// MethodDatasheet is modelled from a device's datasheet watts and its busy time
	// (the storage section's emulated devices).
	MethodDatasheet Method = "datasheet"
	// MethodConstant is a constant the user gave (base power).
	MethodConstant Method = "constant"
)

// Measured reports whether the method measures rather than models.
func (m Method) Measured() bool { return m == MethodRAPL || m == MethodMeter }

// Range is a modelled figure with its uncertainty: Nominal is the figure reported,
// Low and High the ends of the band its inputs allow. A measured figure has all three
// equal.
type Range struct {
	Low     float64 `json:"low"`
	Nominal float64 `json:"nominal"`
	High    float64 `json:"high"`
}

// Exact is a Range without a band.
func Exact(v float64) Range { return Range{v, v, v} }

// Scale multiplies every end of r by k.
func (r Range) Scale(k float64) Range { return Range{r.Low * k, r.Nominal * k, r.High * k} }

// Add is r + o, end by end (the bands of modelled inputs are taken as correlated:
// the low ends together, the high ends together).
func (r Range) Add(o Range) Range {
	return Range{r.Low + o.Low, r.Nominal + o.Nominal, r.High + o.High}
}

func (r Range) String() string {
	if r.Low == r.Nominal && r.High == r.Nominal {
		return fmt.Sprintf("%.3g", r.Nominal)
	}
	return fmt.Sprintf("%.3g [%.3g-%.3g]", r.Nominal, r.Low, r.High)
}

// Unavailable is something this host cannot measure, and why; it is not an error
// (a virtual machine has no RAPL).
type Unavailable struct {
	What string `json:"what"`
	Why  string `json:"why"`
}

// finite reports whether v is a usable number.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// MaxWatts bounds every power tierbench is given: a meter's reading, --cpu-watts,
// --base-watts. 100 kW is more than a full rack of servers draws, so a larger figure
// is a reading in another unit (milliwatts) or a misread; near the largest float64
// it would also make the joules infinite, which result.json cannot hold.
const MaxWatts = 100e3

// checkWatts says what is wrong with w as a power, if anything: it must be a finite
// number from 0 to MaxWatts.
func checkWatts(w float64) error {
	switch {
	case !finite(w):
		return fmt.Errorf("%v is not a number of watts", w)
	case w < 0:
		return fmt.Errorf("%g W is below 0", w)
	case w > MaxWatts:
		return fmt.Errorf("%.6g W is more than %g kW, more than a rack of servers draws", w, MaxWatts/1e3)
	}
	return nil
}

// parseWatts reads a number of watts, 0 to MaxWatts.
func parseWatts(text string) (float64, error) {
	w, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil {
		return 0, fmt.Errorf("watts %q: give a number of watts, 0 to %g", text, MaxWatts)
	}
	if err := checkWatts(w); err != nil {
		return 0, fmt.Errorf("watts %q: %v: give a number of watts, 0 to %g", text, err, MaxWatts)
	}
	return w, nil
}
