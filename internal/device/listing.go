package device

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
)

// Listing is one profile as `tierbench device list` shows it: what it is, its power,
// its fields with their sources, and figures computed from its model.
type Listing struct {
	Name        string            `json:"name"`
	Class       string            `json:"class"`
	Description string            `json:"description,omitempty"`
	Origin      string            `json:"origin"`
	Source      string            `json:"source,omitempty"`
	Power       Power             `json:"power"`
	Figures     ListingFigures    `json:"figures"`
	Fields      map[string]Figure `json:"fields"`
}

// ListingFigures are a profile's Figures in the listing's units.
type ListingFigures struct {
	RandRead8KQD1us    float64 `json:"rand_read_8k_qd1_us"`
	RandRead4KQD1IOPS  float64 `json:"rand_read_4k_qd1_iops"`
	RandRead4KQD32IOPS float64 `json:"rand_read_4k_qd32_iops"`
	SeqReadMBps        float64 `json:"seq_read_1m_qd1_mbps"`
	// Caps are a capped device's provisioned limits (a cloud volume at its profile's
	// size); nil for a device without caps.
	Caps *Caps `json:"caps,omitempty"`
}

// List lists every profile of r with the figures of its model (Characterize).
func List(r *Registry) ([]Listing, error) {
	var list []Listing
	for _, p := range r.Profiles() {
		f, err := r.Characterize(p.Name)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", p.Name, err)
		}
		lf := ListingFigures{
			RandRead8KQD1us:    float64(f.RandRead8KQD1.Nanoseconds()) / 1e3,
			RandRead4KQD1IOPS:  f.RandRead4KQD1IOPS,
			RandRead4KQD32IOPS: f.RandRead4KQD32IOPS,
			SeqReadMBps:        f.SeqReadMBps,
		}
		if caps, ok := capsOfSpec(r, p.Name); ok {
			lf.Caps = &caps
		}
		list = append(list, Listing{
			Name: p.Name, Class: p.Class, Description: p.Description,
			Origin: p.Origin, Source: p.Source, Power: p.Power(), Fields: p.Fields,
			Figures: lf,
		})
	}
	return list, nil
}

// WriteListingJSON writes list and the classes (Classes) as one JSON object.
func WriteListingJSON(w io.Writer, list []Listing) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Profiles []Listing   `json:"profiles"`
		Classes  []ClassInfo `json:"classes"`
	}{list, Classes()})
}

// WriteListingTable writes list as a table for people, then the composites and how
// to spell them.
func WriteListingTable(w io.Writer, list []Listing) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCLASS\t8K READ QD1\t4K IOPS QD1\t4K IOPS QD32\tSEQ MB/s\tIDLE W\tACTIVE W\tPOWER OF\tORIGIN\tSOURCE")
	for _, d := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.4g\t%.4g\t%s\t%s\t%s\n",
			d.Name, d.Class, LatencyText(d.Figures.RandRead8KQD1us),
			d.Figures.RandRead4KQD1IOPS, d.Figures.RandRead4KQD32IOPS, d.Figures.SeqReadMBps,
			d.Power.IdleW, d.Power.ActiveW, d.Power.Scope, filepath.Base(d.Origin), d.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeCapsBlock(w, list)
	fmt.Fprintln(w, "\nComposites wrap any profile (quote specs in a shell: parentheses are shell syntax):")
	for _, c := range Classes() {
		if c.Composite {
			fmt.Fprintf(w, "  %-10s %s\n             %s\n", c.Name, c.Help, c.Syntax)
		}
	}
	_, err := fmt.Fprintln(w, "\nAny profile's fields can be set the same way, e.g. hdd-7200(write_cache=off).")
	return err
}

// LatencyText is a latency in microseconds for people: 22.2 us, 8.35 ms.
func LatencyText(us float64) string {
	if us >= 1000 {
		return fmt.Sprintf("%.2f ms", us/1000)
	}
	return fmt.Sprintf("%.1f us", us)
}
