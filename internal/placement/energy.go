package placement

import (
	"fmt"

	"tierbench/internal/energy"
)

// EnergyDevices gives each emulated device's modelled energy to package energy, which
// counts it as one component of the whole system's: the figures are the storage
// section's own, not recomputed.
func (s *Storage) EnergyDevices() []energy.Device {
	if s == nil {
		return nil
	}
	var out []energy.Device
	for _, t := range s.Tiers {
		if t.Device == nil {
			continue
		}
		src := "E = P_idle x T + (P_active - P_idle) x T_busy from mount to unmount"
		if p := t.Profile; p != nil {
			watts := fmt.Sprintf("%g W idle, %g W active", p.Power.IdleW, p.Power.ActiveW)
			if p.Power.Source != "" {
				watts += " (" + p.Power.Source + ")"
			}
			if len(p.Members) > 0 {
				watts = fmt.Sprintf("its %d powered devices' watts", len(p.Members))
			}
			src = fmt.Sprintf("profile %s, %s; %s", p.Name, watts, src)
		}
		d := t.Device
		out = append(out, energy.Device{Name: t.Name, Spec: t.Spec, Joules: d.EnergyJ, IdleJoules: d.IdleEnergyJ,
			Seconds: d.ElapsedS, Source: src})
	}
	return out
}
