package energy

import (
	"fmt"
	"path/filepath"
	"time"
)

// component is one source of energy as Finish integrates it.
type component struct {
	info Component
	// series are the nominal, low and high watts (the same series thrice when
	// measured); nil for a constant or a device.
	series [3]*Series
	// watts is a constant component's power.
	watts Range
	// idleW is the CPU model's idle power, for the idle part of its energy.
	idleW  *float64
	device *Device
	// inHost marks cpu, dram and base: what a host meter contains.
	inHost bool
	// meterScope is a meter's scope ("" for anything else).
	meterScope Scope
}

// energy is c's energy over [from, to] within window w, how much of it c covers, and
// the part drawn idle where known.
func (c *component) energy(w Window, from, to time.Time) (j Range, covered float64, idle *float64) {
	sec := to.Sub(from).Seconds()
	switch {
	case c.device != nil:
		d := c.device
		watts := d.Joules / d.Seconds
		if wj, ok := w.DeviceJoules[d.Name]; ok {
			watts = wj / w.End.Sub(w.Start).Seconds()
		}
		idleJ := d.IdleJoules / d.Seconds * sec
		return Exact(watts * sec), sec, &idleJ
	case c.series[0] == nil:
		idleJ := c.watts.Nominal * sec
		return c.watts.Scale(sec), sec, &idleJ
	}
	for i, s := range c.series {
		var v float64
		v, cov := s.Integrate(from, to)
		switch i {
		case 0:
			j.Nominal, covered = v, cov
		case 1:
			j.Low = v
		case 2:
			j.High = v
		}
	}
	if c.idleW != nil {
		idleJ := *c.idleW * covered
		idle = &idleJ
	}
	return j, covered, idle
}

// components lists what Finish integrates: cpu, dram, base, the devices, the meters;
// with what could not be had, what the user gave no figure for, and the meter files
// that could not be read.
func (r *Recorder) components(devices []Device) (comps []*component, unavailable, notCounted []Unavailable, errs []error) {
	powercap := filepath.Join(r.cfg.SysRoot, "class", "powercap")
	switch {
	case r.rapl != nil:
		c := &component{inHost: true, info: Component{Name: "cpu", Method: MethodRAPL, Measured: true,
			Source: fmt.Sprintf("RAPL %s (%s)", zoneNames(r.rapl.packages), powercap)}}
		c.series = [3]*Series{r.cpu[0], r.cpu[0], r.cpu[0]}
		if r.raplErrors > 0 {
			c.info.Notes = append(c.info.Notes, fmt.Sprintf("%d RAPL reads failed (the next read spans the gap), the first: %s", r.raplErrors, r.raplFirst))
		}
		if r.raplBad > 0 {
			c.info.Notes = append(c.info.Notes, fmt.Sprintf("%d intervals between RAPL reads were left uncovered: their counters' increase was no power a CPU draws (a misread), the first: %s", r.raplBad, r.raplBadFirst))
		}
		if r.raplSlow > 0 {
			c.info.Notes = append(c.info.Notes, fmt.Sprintf("%d intervals between RAPL reads were longer than %s: a counter that wrapped twice in one is undercounted", r.raplSlow, MaxSampleInterval))
		}
		comps = append(comps, c)
	case r.cpuModel != nil:
		m := r.cpuModel
		c := &component{inHost: true, idleW: &m.IdleW.Nominal, info: Component{Name: "cpu", Method: MethodModel,
			Source: fmt.Sprintf("%s at the measured CPU utilisation u; %s; %s", m.Equation(), m.Basis, m.Source), CPU: m}}
		c.series = r.cpu
		if r.noUtil > 0 {
			c.info.Notes = append(c.info.Notes, fmt.Sprintf("%d sampling intervals had no utilisation: not covered", r.noUtil))
		}
		comps = append(comps, c)
	}
	switch {
	case r.rapl != nil && len(r.rapl.drams) > 0:
		c := &component{inHost: true, info: Component{Name: "dram", Method: MethodRAPL, Measured: true,
			Source: fmt.Sprintf("RAPL %s (%s)", zoneNames(r.rapl.drams), powercap)}}
		c.series = [3]*Series{r.dram[0], r.dram[0], r.dram[0]}
		comps = append(comps, c)
	case r.dramModel != nil:
		m := r.dramModel
		comps = append(comps, &component{inHost: true, watts: m.Watts, info: Component{Name: "dram", Method: MethodModel,
			Source: fmt.Sprintf("%s = %.3g W, constant; %s", m.Basis, m.Watts.Nominal, m.Source), DRAM: m}})
	}
	if r.cfg.BaseWatts > 0 {
		comps = append(comps, &component{inHost: true, watts: Exact(r.cfg.BaseWatts), info: Component{Name: "base",
			Method: MethodConstant, Source: fmt.Sprintf("--base-watts %g: motherboard, fans, NIC, power-supply loss", r.cfg.BaseWatts)}})
	} else {
		notCounted = append(notCounted, Unavailable{"base power (motherboard, fans, NIC, power-supply loss)", baseWhy})
	}
	for i := range devices {
		d := &devices[i]
		name := "storage:" + d.Name
		if d.Seconds <= 0 {
			unavailable = append(unavailable, Unavailable{name, "the storage section gives no time for the device"})
			continue
		}
		src := d.Source
		if d.Spec != "" {
			src = d.Spec + ": " + src
		}
		comps = append(comps, &component{device: d, info: Component{Name: name, Method: MethodDatasheet, Source: src}})
	}
	for _, m := range r.meters {
		c, un, err := r.meterComponent(m)
		if err != nil {
			errs = append(errs, err)
		}
		if un != nil {
			unavailable = append(unavailable, *un)
			continue
		}
		comps = append(comps, c)
	}
	return comps, unavailable, notCounted, errs
}

// meterComponent reads a meter file (again: it may have grown during the run) or
// takes a command's readings.
func (r *Recorder) meterComponent(m *meter) (*component, *Unavailable, error) {
	name := m.cfg.name()
	var rs []Reading
	var src, note string
	var spacing float64
	if m.cmd != nil {
		var longest time.Duration
		rs, longest, note = m.cmd.result()
		src = fmt.Sprintf("command %q polled each sample", m.cfg.Command)
		if len(rs) == 0 {
			return nil, &Unavailable{name, "no reading: " + note}, nil
		}
		spacing = longest.Seconds()
	} else {
		var err error
		var torn *TornMeterLine
		if rs, torn, err = ReadMeterFile(m.cfg.File); err != nil {
			return nil, &Unavailable{name, err.Error()}, err
		}
		if torn != nil {
			note = torn.String()
		}
		src = m.cfg.File
		if m.cfg.Offset != 0 {
			src += fmt.Sprintf(" (times shifted by %s)", m.cfg.Offset)
			for i := range rs {
				rs[i].Time = rs[i].Time.Add(m.cfg.Offset)
			}
		}
	}
	s, used := readingsSeries(rs, spacing)
	how := "(median)"
	if spacing > 0 {
		how = "(the longest between two successful polls in a row)"
	}
	src += fmt.Sprintf(": %d readings, every %.3g s %s, %s to %s", len(rs), used, how,
		rs[0].Time.Format(time.RFC3339Nano), rs[len(rs)-1].Time.Format(time.RFC3339Nano))
	c := &component{meterScope: m.cfg.Scope, info: Component{Name: name, Method: MethodMeter, Measured: true, Source: src, Scope: m.cfg.Scope}}
	c.series = [3]*Series{s, s, s}
	if note != "" {
		c.info.Notes = append(c.info.Notes, note)
	}
	return c, nil, nil
}
