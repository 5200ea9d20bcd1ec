package device

import (
	"fmt"
	"strings"
)

// Embodied carbon: what making a device emitted, for the energy section's SCI
// (docs/energy.md, "SCI"). Every class carries three fields, overridable like any
// other (hdd-7200(embodied=30kg) on a command line, a profile's own figure in a file):
//
//   - embodied_kg: per device (an HDD's embodied carbon hardly grows with its
//     capacity: platters, motor and casing are the same);
//   - embodied_tb_ratio_kg: per TB of capacity (an SSD's grows with its flash);
//   - life_years: the life its embodied carbon is spread over.
//
// The class defaults below are published life-cycle figures with their sources; a
// cloud volume's are per TB of its size times its replicas (cloud.go).

// EmbodiedItem is one device's embodied carbon, as the storage section records it.
type EmbodiedItem struct {
	Device    string  `json:"device"`
	Kg        float64 `json:"kg_co2e"`
	LifeYears float64 `json:"life_years"`
	Source    string  `json:"source"`
}

// Sources of the class defaults, read 2026-11-28.
const (
	tannuNairSSD = "Tannu and Nair, \"The Dirty Secret of SSDs: Embodied Carbon\" (HotCarbon 2022, arXiv 2207.10793): " +
		"manufacturing a GB of flash emits about 0.16 kg CO2e, 160 kg a TB"
	tannuNairHDD = "Tannu and Nair (HotCarbon 2022) give about 20 kg CO2e for a 1 TB HDD, and Seagate's published figure for " +
		"the 18 TB Exos X20 is 1.2 kg a TB, 21.6 kg a drive (both as quoted by Pure Storage, blog.purestorage.com, " +
		"\"How Do the Embodied Carbon Dioxide Equivalents of Flash Compare to HDDs?\"): per drive, since it hardly grows with capacity"
	driveLife = "Seagate's \"Decarbonizing Data\" report counts a five-year life cycle for drives (as reported by Blocks & Files, 2025-06-16)"
)

// embodiedDefaults are each class's figures; a class not listed has none of its own
// (a composite counts the devices inside it).
var embodiedDefaults = map[string]struct{ kg, tb Figure }{
	"hdd": {kg: Figure{Value: 20, Source: tannuNairHDD}},
	"ssd": {tb: Figure{Value: 160, Source: tannuNairSSD}},
}

// embodiedFields are the embodied-carbon fields of a class, with its defaults.
func embodiedFields(class string) []field {
	d := embodiedDefaults[class]
	return []field{
		{key: "embodied_kg", def: d.kg, help: "kg CO2e of making one device"},
		{key: "embodied_tb_ratio_kg", def: d.tb, help: "kg CO2e of making it per TB of capacity"},
		{key: "life_years", above: true, max: 100, def: Figure{Value: 5, Source: driveLife}, help: "the life its embodied carbon is spread over"},
	}
}

// embodiedSource says where a device's embodied figure came from.
func embodiedSource(p *Profile, basis string) string {
	var parts []string
	if f := p.Fields["embodied_kg"]; f.Value != 0 {
		parts = append(parts, fmt.Sprintf("%g kg a device (%s)", f.Value, f.Source))
	}
	if f := p.Fields["embodied_tb_ratio_kg"]; f.Value != 0 {
		parts = append(parts, fmt.Sprintf("%g kg a TB (%s) x %s", f.Value, f.Source, basis))
	}
	parts = append(parts, fmt.Sprintf("over %g years (%s)", p.Num("life_years"), p.Fields["life_years"].Source))
	return strings.Join(parts, "; ")
}

// EmbodiedOf lists the embodied carbon of the devices in m, which r built: each leaf
// device's (a RAID's every member), and a cloud volume's own share of its provider's
// drives in place of the device that stands for them. Devices without a figure are left
// out.
func (r *Registry) EmbodiedOf(m Model) ([]EmbodiedItem, error) {
	var out []EmbodiedItem
	var walk func(Model) error
	walk = func(mm Model) error {
		if c, ok := mm.(*Cloud); ok {
			if c.embodied.Kg > 0 {
				out = append(out, c.embodied)
			}
			return nil
		}
		p, err := r.Resolve(mm.Name())
		if err != nil {
			return err
		}
		if comp, ok := mm.(Composite); ok {
			// A composite's own figure (an array's controller, say), then its devices'.
			if kg := p.Num("embodied_kg"); kg > 0 {
				out = append(out, EmbodiedItem{Device: mm.Name(), Kg: kg, LifeYears: p.Num("life_years"), Source: embodiedSource(p, "")})
			}
			for _, in := range comp.Members() {
				if err := walk(in); err != nil {
					return err
				}
			}
			return nil
		}
		tb := float64(capacityOf(mm)) / 1e12
		kg := p.Num("embodied_kg") + p.Num("embodied_tb_ratio_kg")*tb
		if kg > 0 {
			out = append(out, EmbodiedItem{Device: mm.Name(), Kg: kg, LifeYears: p.Num("life_years"),
				Source: embodiedSource(p, fmt.Sprintf("%.4g TB", tb))})
		}
		return nil
	}
	err := walk(m)
	return out, err
}
