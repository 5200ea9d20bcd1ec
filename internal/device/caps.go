package device

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Caps are the provisioned limits of a capped device (a cloud volume, limit(...)), as
// `device list` and `device show` print them and calibration checks them.
type Caps struct {
	// IOPS are operations a second and MBps decimal megabytes a second (0: no cap).
	IOPS float64 `json:"iops,omitempty"`
	MBps float64 `json:"mb_per_s,omitempty"`
	// IOSizeKiB counts as one operation (0: each request is one); sequential requests
	// of at least MergeMinKiB continue one when Merge; WholeIO charges throughput per
	// operation at IOSizeKiB.
	IOSizeKiB   float64 `json:"io_size_kib,omitempty"`
	Merge       bool    `json:"merge_sequential,omitempty"`
	MergeMinKiB float64 `json:"merge_min_kib,omitempty"`
	WholeIO     bool    `json:"charge_whole_io,omitempty"`
	// BurstIOPS and BurstMBps hold while the credit buckets (CreditOps operations,
	// CreditMiB MiB) last; the buckets start full.
	BurstIOPS float64 `json:"burst_iops,omitempty"`
	BurstMBps float64 `json:"burst_mb_per_s,omitempty"`
	CreditOps float64 `json:"credit_ios,omitempty"`
	CreditMiB float64 `json:"credit_mib,omitempty"`
	// NetworkUs is the round trip added to every request; BucketMs each bucket's depth.
	NetworkUs float64 `json:"network_us,omitempty"`
	BucketMs  float64 `json:"bucket_ms,omitempty"`
}

// Capped is a model with provisioned caps.
type Capped interface {
	Caps() Caps
}

// Caps are the Limit's caps.
func (l *Limit) Caps() Caps {
	c := l.cfg
	return Caps{
		IOPS: c.IOPS, MBps: c.BytesPS / 1e6,
		IOSizeKiB: float64(c.IOSize) / 1024, Merge: c.Merge, MergeMinKiB: float64(c.MergeMin) / 1024, WholeIO: c.WholeIO,
		BurstIOPS: c.BurstIOPS, BurstMBps: c.BurstBytesPS / 1e6, CreditOps: c.CreditOps, CreditMiB: c.CreditBytes / (1 << 20),
		NetworkUs: float64(c.Network.Nanoseconds()) / 1e3, BucketMs: float64(c.Bucket.Nanoseconds()) / 1e6,
	}
}

// CapsOf are the caps of the first capped device in m (m itself, or a device inside a
// composite: a page cache over a cloud volume).
func CapsOf(m Model) (Caps, bool) {
	var caps Caps
	found := false
	Walk(m, func(_ int, mm Model) {
		if c, ok := mm.(Capped); ok && !found {
			caps, found = c.Caps(), true
		}
	})
	return caps, found
}

// RequestRate is the most requests a second of size bytes the caps pass: random
// requests, or sequential ones that merge (a sequential run counts its bytes, not its
// requests, in operations), at the burst caps while credits last or at the baseline.
// +Inf when nothing caps them.
func (c Caps) RequestRate(size int64, sequential, burst bool) float64 {
	iops, mbps := c.IOPS, c.MBps
	if burst {
		if c.BurstIOPS > 0 && c.CreditOps > 0 {
			iops = c.BurstIOPS
		}
		if c.BurstMBps > 0 && c.CreditMiB > 0 {
			mbps = c.BurstMBps
		}
	}
	ops := 1.0
	if io := c.IOSizeKiB * 1024; io > 0 {
		n := float64(size) / io
		if sequential && c.Merge && float64(size) >= c.MergeMinKiB*1024 {
			ops = n
		} else {
			ops = math.Max(math.Ceil(n), 1)
		}
	}
	bytes := float64(size)
	if c.WholeIO && c.IOSizeKiB > 0 {
		bytes = ops * c.IOSizeKiB * 1024
	}
	rate := math.Inf(1)
	if iops > 0 {
		rate = iops / ops
	}
	if mbps > 0 && bytes > 0 {
		rate = math.Min(rate, mbps*1e6/bytes)
	}
	return rate
}

// Text is the caps for people: "3000 IOPS, 131.1 MB/s, 256 KiB an operation".
func (c Caps) Text() string {
	var parts []string
	if c.IOPS > 0 {
		parts = append(parts, fmt.Sprintf("%.0f IOPS", c.IOPS))
	}
	if c.MBps > 0 {
		parts = append(parts, fmt.Sprintf("%.4g MB/s", c.MBps))
	}
	if c.IOSizeKiB > 0 {
		p := fmt.Sprintf("%g KiB an operation", c.IOSizeKiB)
		if c.Merge {
			p += ", sequential merged"
		}
		if c.WholeIO {
			p += ", charged whole"
		}
		parts = append(parts, p)
	}
	if c.BurstIOPS > 0 && c.CreditOps > 0 {
		parts = append(parts, fmt.Sprintf("burst %.0f IOPS for %.3g million I/O credits", c.BurstIOPS, c.CreditOps/1e6))
	}
	if c.BurstMBps > 0 && c.CreditMiB > 0 {
		parts = append(parts, fmt.Sprintf("burst %.4g MB/s for %.4g GiB of credits", c.BurstMBps, c.CreditMiB/1024))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// capsOfSpec are the caps of the device spec builds, if it has any.
func capsOfSpec(r *Registry, spec string) (Caps, bool) {
	m, err := r.Build(spec)
	if err != nil {
		return Caps{}, false
	}
	return CapsOf(m)
}

// writeCapsBlock prints the caps of the capped profiles of a listing, under its table.
func writeCapsBlock(w io.Writer, list []Listing) {
	first := true
	for _, d := range list {
		c := d.Figures.Caps
		if c == nil {
			continue
		}
		if first {
			fmt.Fprintln(w, "\nCaps of the capped profiles, at their profile's size (tierbench device show NAME for the provider's rules, each with its source):")
			first = false
		}
		size := ""
		if f, ok := d.Fields["size_gib"]; ok {
			size = fmt.Sprintf(" %g GiB", f.Value)
		}
		fmt.Fprintf(w, "  %s%s: %s; network round trip %g us\n", d.Name, size, c.Text(), c.NetworkUs)
	}
}
