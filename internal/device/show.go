package device

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Shown is one device spec as `tierbench device show` prints it: its profile's every
// field with its value and source, the figures of its model, its caps, what a provider
// bills it for, its power and its embodied carbon.
type Shown struct {
	Spec        string         `json:"spec"`
	Name        string         `json:"profile"`
	Class       string         `json:"class"`
	Description string         `json:"description,omitempty"`
	Origin      string         `json:"origin"`
	Source      string         `json:"source,omitempty"`
	Fields      []ShownField   `json:"fields"`
	Figures     ListingFigures `json:"figures"`
	Volumes     []Volume       `json:"volumes,omitempty"`
	Power       Power          `json:"power"`
	Embodied    []EmbodiedItem `json:"embodied,omitempty"`
}

// ShownField is one field of the profile, in its class's order.
type ShownField struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source,omitempty"`
}

// Show describes spec: its resolved profile, with the spec's fields applied, and its
// model.
func (r *Registry) Show(spec string) (*Shown, error) {
	p, err := r.Resolve(spec)
	if err != nil {
		return nil, err
	}
	m, err := r.Build(spec)
	if err != nil {
		return nil, err
	}
	f, err := r.Characterize(spec)
	if err != nil {
		return nil, err
	}
	s := &Shown{Spec: spec, Name: p.Name, Class: p.Class, Description: p.Description, Origin: p.Origin, Source: p.Source,
		Power: powerOf(m), Volumes: VolumesOf(m),
		Figures: ListingFigures{RandRead8KQD1us: float64(f.RandRead8KQD1.Nanoseconds()) / 1e3, RandRead4KQD1IOPS: f.RandRead4KQD1IOPS,
			RandRead4KQD32IOPS: f.RandRead4KQD32IOPS, SeqReadMBps: f.SeqReadMBps}}
	if c, ok := CapsOf(m); ok {
		s.Figures.Caps = &c
	}
	if s.Embodied, err = r.EmbodiedOf(m); err != nil {
		return nil, err
	}
	for _, fd := range classes[p.Class].fields {
		fig := p.Fields[fd.key]
		v := fig.Text
		if fd.kind != kindChoice && fd.kind != kindSpec {
			v = fmt.Sprintf("%g", fig.Value)
			if fd.kind == kindBool {
				v = fmt.Sprint(fig.Value != 0)
			}
		}
		s.Fields = append(s.Fields, ShownField{Key: fd.key, Value: v, Source: fig.Source})
	}
	return s, nil
}

// WriteJSON writes s as JSON.
func (s *Shown) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteText writes s for people: what it is, its caps and figures, what it is billed
// for, its power and embodied carbon, then every field with its source.
func (s *Shown) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: profile %s, class %s", s.Spec, s.Name, s.Class)
	if s.Description != "" {
		fmt.Fprintf(w, " (%s)", s.Description)
	}
	fmt.Fprintln(w)
	if s.Source != "" {
		fmt.Fprintf(w, "source: %s\n", s.Source)
	}
	if c := s.Figures.Caps; c != nil {
		fmt.Fprintf(w, "caps: %s; network round trip %g us; each token bucket holds %g ms of its rate\n", c.Text(), c.NetworkUs, c.BucketMs)
	}
	f := s.Figures
	fmt.Fprintf(w, "model: random 8 KiB read at queue depth 1 %s; random 4 KiB reads %.0f IOPS at queue depth 1, %.0f at 32; sequential 1 MiB reads %.0f MB/s\n",
		LatencyText(f.RandRead8KQD1us), f.RandRead4KQD1IOPS, f.RandRead4KQD32IOPS, f.SeqReadMBps)
	for _, v := range s.Volumes {
		fmt.Fprintf(w, "billed as: %s, %g GiB, %g IOPS, %g %s, %g replicas\n", v.Profile, v.SizeGiB, v.IOPS, v.Throughput, v.ThroughputUnit, v.Replicas)
	}
	fmt.Fprintf(w, "power: %.4g W idle, %.4g W active, scope %s\n", s.Power.IdleW, s.Power.ActiveW, s.Power.Scope)
	for _, e := range s.Embodied {
		fmt.Fprintf(w, "embodied: %s: %.4g kg CO2e over %g years (%s)\n", e.Device, e.Kg, e.LifeYears, e.Source)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIELD\tVALUE\tSOURCE")
	for _, fd := range s.Fields {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", fd.Key, fd.Value, strings.ReplaceAll(fd.Source, "\t", " "))
	}
	return tw.Flush()
}
