package cost

import (
	"fmt"
	"io"
	"math"

	"tierbench/internal/device"
)

// Section is a result's `cost` section: what the run's priced volumes and host cost
// over its headline window, and per unit of work. Every figure recomputes from the
// section alone (Recompute).
type Section struct {
	// Window is the energy section's window priced (the one with the run's
	// transactions or QphH@Size, else the whole run) and Seconds its length.
	Window        string       `json:"window"`
	Seconds       float64      `json:"seconds"`
	HoursPerMonth float64      `json:"hours_per_month"`
	Volumes       []VolumeCost `json:"volumes,omitempty"`
	// Unpriced are the billed volumes the table has no price for: their cost is not in
	// the totals.
	Unpriced []string `json:"unpriced,omitempty"`
	Host     *Host    `json:"host,omitempty"`
	// StorageUSD and HostUSD are the run's share of the monthly and hourly prices;
	// USD their sum.
	StorageUSD float64 `json:"storage_usd"`
	HostUSD    float64 `json:"host_usd"`
	USD        float64 `json:"usd"`
	// USDPerMonth is the priced configuration's monthly price (storage and host).
	USDPerMonth float64 `json:"usd_per_month"`
	// TPS is the window's transactions a second (the result's headline TPS);
	// USDPerMillionTransactions is USD / (TPS x Seconds) x 1e6.
	TPS                       float64 `json:"tps,omitempty"`
	USDPerMillionTransactions float64 `json:"usd_per_million_transactions,omitempty"`
	// QphH is the window's QphH@Size; USDPerKQphH TPC-H's price/performance: three
	// years of the configuration's price (36 months) over QphH@Size / 1000.
	QphH        float64 `json:"qphh,omitempty"`
	USDPerKQphH float64 `json:"usd_per_kqphh,omitempty"`
}

// VolumeCost is one tier's billed volume with its price.
type VolumeCost struct {
	Tier        string        `json:"tier"`
	Volume      device.Volume `json:"volume"`
	Price       Price         `json:"price"`
	USDPerMonth float64       `json:"usd_per_month"`
	USD         float64       `json:"usd"`
}

// PriceYears is the life TPC's price/performance prices a configuration over
// (TPC Pricing Specification: three-year cost of ownership).
const PriceYears = 3

// TierVolumes are one tier's billed volumes.
type TierVolumes struct {
	Tier    string
	Volumes []device.Volume
}

// Work is the headline window's length and the rates of work in it.
type Work struct {
	Window  string
	Seconds float64
	TPS     float64
	QphH    float64
}

// Monthly is what v costs a month at p: its size, and its provisioned IOPS and
// throughput above what the storage includes.
func Monthly(v device.Volume, p Price) float64 {
	return v.SizeGiB*p.GiBMonth + IOPSMonthly(v.IOPS, p) +
		math.Max(v.Throughput-p.ThroughputFree, 0)*p.ThroughputMonth
}

// IOPSMonthly is what iops provisioned IOPS cost a month at p: those above IOPSFree
// at IOPSMonth, or, with tiers, each tier's IOPS at its price (a tier runs from the
// previous tier's UpTo to its own; the included IOPS are free in whichever tier they
// fall).
func IOPSMonthly(iops float64, p Price) float64 {
	if len(p.IOPSTiers) == 0 {
		return math.Max(iops-p.IOPSFree, 0) * p.IOPSMonth
	}
	var usd, from float64
	for _, t := range p.IOPSTiers {
		to := iops
		if t.UpTo > 0 {
			to = math.Min(iops, t.UpTo)
		}
		usd += math.Max(to-math.Max(from, p.IOPSFree), 0) * t.IOPSMonth
		if t.UpTo <= 0 || iops <= t.UpTo {
			break
		}
		from = t.UpTo
	}
	return usd
}

// Compute prices the tiers' volumes and the table's host over w; nil when nothing is
// priced or billed (no cloud volume and no host price).
func Compute(t *Table, tiers []TierVolumes, w Work) *Section {
	s := &Section{Window: w.Window, Seconds: w.Seconds, HoursPerMonth: HoursPerMonth, Host: t.Host,
		TPS: w.TPS, QphH: w.QphH}
	for _, tv := range tiers {
		for _, v := range tv.Volumes {
			p, ok := t.Price(v.Profile)
			if !ok {
				s.Unpriced = append(s.Unpriced, fmt.Sprintf("%s (%s): no price for profile %s: give one in a --prices file", tv.Tier, v.Profile, v.Profile))
				continue
			}
			s.Volumes = append(s.Volumes, VolumeCost{Tier: tv.Tier, Volume: v, Price: p, USDPerMonth: Monthly(v, p)})
		}
	}
	if len(s.Volumes) == 0 && len(s.Unpriced) == 0 && s.Host == nil {
		return nil
	}
	s.fill()
	return s
}

// fill works out the totals from the section's own figures.
func (s *Section) fill() {
	hours := s.Seconds / 3600
	s.StorageUSD, s.USDPerMonth = 0, 0
	for i := range s.Volumes {
		v := &s.Volumes[i]
		v.USDPerMonth = Monthly(v.Volume, v.Price)
		v.USD = v.USDPerMonth * hours / s.HoursPerMonth
		s.StorageUSD += v.USD
		s.USDPerMonth += v.USDPerMonth
	}
	s.HostUSD = 0
	if s.Host != nil {
		s.HostUSD = s.Host.USDPerHour * hours
		s.USDPerMonth += s.Host.USDPerHour * s.HoursPerMonth
	}
	s.USD = s.StorageUSD + s.HostUSD
	s.USDPerMillionTransactions, s.USDPerKQphH = 0, 0
	if n := s.TPS * s.Seconds; n > 0 {
		s.USDPerMillionTransactions = s.USD / n * 1e6
	}
	if s.QphH > 0 {
		s.USDPerKQphH = s.USDPerMonth * 12 * PriceYears / (s.QphH / 1000)
	}
}

// Recompute is s with every total worked out again from its volumes, prices, host,
// seconds and counts: what a reader of result.json alone gets.
func Recompute(s Section) Section {
	s.Volumes = append([]VolumeCost(nil), s.Volumes...)
	s.fill()
	return s
}

// WriteSummary prints the section for people, one line.
func WriteSummary(w io.Writer, s *Section) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "\nCost (%s window, %.1f s): $%.6f storage + $%.6f host = $%.6f; configuration $%.2f a month",
		s.Window, s.Seconds, s.StorageUSD, s.HostUSD, s.USD, s.USDPerMonth)
	if s.USDPerMillionTransactions > 0 {
		fmt.Fprintf(w, "; $%.4g per million transactions", s.USDPerMillionTransactions)
	}
	if s.USDPerKQphH > 0 {
		fmt.Fprintf(w, "; $%.4g per kQphH@Size over %d years", s.USDPerKQphH, PriceYears)
	}
	fmt.Fprintln(w)
	for _, u := range s.Unpriced {
		fmt.Fprintf(w, "  not priced: %s\n", u)
	}
}
