package device

import "time"

// Power is what a profile says a device draws. Scope "device" is a bare device (a disk,
// an SSD); scope "system" is a whole storage system measured at the wall (enclosure,
// controllers, fans), as the SAN study measured its arrays: a system figure replaces the
// sum of the members' figures.
type Power struct {
	IdleW   float64 `json:"idle_w"`
	ActiveW float64 `json:"active_w"`
	Scope   string  `json:"scope"` // "device" or "system"
	Source  string  `json:"source,omitempty"`
}

// Energy in joules of a device that was up for total and busy for busy:
// E = P_idle*T + (P_active - P_idle)*T_busy (docs/energy.md, "The model").
func (p Power) Energy(total, busy time.Duration) float64 {
	return p.IdleW*total.Seconds() + (p.ActiveW-p.IdleW)*busy.Seconds()
}

// Energy returns the joules a model used over a run of length total. A model whose
// power has scope "system" counts its own figures with its own busy time; any other
// composite counts its own watts (a SAN link, say; often zero) plus its members'; a leaf
// counts its own.
func Energy(m Model, total time.Duration) float64 {
	var e float64
	p := powerOf(m)
	e += p.Energy(total, m.Stats().Busy)
	if p.Scope == "system" {
		return e
	}
	if c, ok := m.(Composite); ok {
		for _, mm := range c.Members() {
			e += Energy(mm, total)
		}
	}
	return e
}

func powerOf(m Model) Power {
	if p, ok := m.(Powered); ok {
		return p.Power()
	}
	return Power{}
}
