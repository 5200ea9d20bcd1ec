package lifecycle

import (
	"tierbench/internal/cost"
	"tierbench/internal/device"
	"tierbench/internal/energy"
	"tierbench/internal/result"
)

// cost prices the run (docs/cloud.md, "Cost"): the billed volumes of its emulated
// tiers and the host, over the energy section's measured window (the last one the
// workload marked; the whole run without one), with the result's headline TPS or
// QphH@Size. Nil when nothing is priced or billed.
func (r *Run) cost(res any, storage *result.Storage, en *energy.Section) *cost.Section {
	if r.cfg.Prices == nil || en == nil || len(en.Windows) == 0 {
		return nil
	}
	var tiers []cost.TierVolumes
	if reg := r.cfg.Placement.Registry; storage != nil && reg != nil {
		for _, t := range storage.Tiers {
			if t.Spec == "" {
				continue
			}
			m, err := reg.Build(t.Spec)
			if err != nil {
				continue // the tier ran on it: a spec that no longer builds has nothing to bill
			}
			if v := device.VolumesOf(m); len(v) > 0 {
				tiers = append(tiers, cost.TierVolumes{Tier: t.Name, Volumes: v})
			}
		}
	}
	w := en.Windows[len(en.Windows)-1]
	work := cost.Work{Window: w.Label, Seconds: w.Seconds}
	if h, ok := res.(interface{ HeadlineMetrics() []result.Metric }); ok {
		for _, m := range h.HeadlineMetrics() {
			switch m.Name {
			case "tps":
				work.TPS = m.Value
			case "qphh_at_size":
				work.QphH = m.Value
			}
		}
	}
	return cost.Compute(r.cfg.Prices, tiers, work)
}
