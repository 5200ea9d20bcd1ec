package lifecycle

import (
	"errors"
	"fmt"

	"tierbench/internal/cost"
	"tierbench/internal/device"
	"tierbench/internal/energy"
	"tierbench/internal/result"
	"tierbench/internal/workload"
)

// headline is the window the cost and the SCI price: the energy section's last
// window (the last one the workload measured; the whole run without one), with the
// result's headline TPS and QphH@Size.
func headline(res any, en *energy.Section) (energy.WindowResult, float64, float64) {
	m := metricsOf(res)
	return en.Windows[len(en.Windows)-1], m["tps"], m["qphh_at_size"]
}

// metricsOf are the result's headline metrics by name.
func metricsOf(res any) map[string]float64 {
	out := map[string]float64{}
	if h, ok := res.(workload.Headliner); ok {
		for _, m := range h.HeadlineMetrics() {
			out[m.Name] = m.Value
		}
	}
	return out
}

// tierModels are the emulated tiers' models as placement built them for the storage
// section (placement.Placed.Models); none without the registry that says what each
// is billed for and what making it emitted.
func (r *Run) tierModels() map[string]device.Model {
	if r.cfg.Placement.Registry == nil {
		return nil
	}
	return r.placed.Models()
}

// cost prices the run (docs/cloud.md, "Cost"): the billed volumes of its emulated
// tiers and the host over the headline window. Nil when nothing is priced or billed.
func (r *Run) cost(res any, storage *result.Storage, en *energy.Section) *cost.Section {
	if r.cfg.Prices == nil || en == nil || len(en.Windows) == 0 {
		return nil
	}
	if storage == nil {
		storage = &result.Storage{}
	}
	var tiers []cost.TierVolumes
	models := r.tierModels()
	for _, t := range storage.Tiers {
		if m, ok := models[t.Name]; ok {
			if v := device.VolumesOf(m); len(v) > 0 {
				tiers = append(tiers, cost.TierVolumes{Tier: t.Name, Volumes: v})
			}
		}
	}
	w, tps, qphh := headline(res, en)
	return cost.Compute(r.cfg.Prices, tiers, cost.Work{Window: w.Label, Seconds: w.Seconds, TPS: tps, QphH: qphh})
}

// sci attaches the headline window's SCI to the energy section (docs/energy.md,
// "SCI"): the emulated devices' embodied carbon (each profile's figure) and the
// host's (given, or the default labelled so).
func (r *Run) sci(res any, storage *result.Storage, en *energy.Section) error {
	if en == nil || len(en.Windows) == 0 {
		return nil
	}
	var items []energy.Embodied
	var notCounted []string
	models := r.tierModels()
	if storage != nil {
		for _, t := range storage.Tiers {
			m, ok := models[t.Name]
			if !ok {
				if t.Kind == "directory" {
					notCounted = append(notCounted, fmt.Sprintf("tier %s: a real directory, whose device tierbench does not know", t.Name))
				}
				continue
			}
			emb, err := r.cfg.Placement.Registry.EmbodiedOf(m)
			if err != nil {
				return fmt.Errorf("energy: embodied carbon of tier %s: %w", t.Name, err)
			}
			for _, e := range emb {
				items = append(items, energy.Embodied{Name: t.Name + ": " + e.Device, Kg: e.Kg, LifeYears: e.LifeYears, Source: e.Source})
			}
		}
	}
	if h := r.cfg.HostEmbodied; h.Kg > 0 {
		items = append(items, h)
	} else {
		notCounted = append(notCounted, "host: --host-embodied-kg 0 leaves it out")
	}
	w, tps, _ := headline(res, en)
	err := en.AddSCI(w.Label, items, notCounted, tps)
	// TPC-Energy's metrics where they apply: the benchmark's result says over which
	// windows and per what.
	if rated, ok := res.(workload.EnergyRated); ok {
		if windows, metric, perf := rated.TPCEnergy(); perf > 0 {
			if windows == nil {
				windows = []string{w.Label}
			}
			err = errors.Join(err, en.AddTPCEnergy(windows, metric, perf))
		}
	}
	return err
}
