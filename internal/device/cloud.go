package device

import (
	"fmt"
	"math"
	"strings"
)

// Cloud is a provider's block volume (docs/cloud.md): the limit mechanism (limit.go)
// with the figures a volume type's rules give for a size, IOPS and throughput, around a
// device that stands for the provider's drives, and the volume's share of the
// provider's power and embodied carbon (its replicas).
//
// A cloud profile (profiles/aws-gp3.yaml, ...) holds the provider's rules as fields,
// each with the provider's words as its source, and the size, IOPS and throughput a
// user sets like any field: aws-gp3(size=500GiB,iops=6000,throughput=250). What the
// provider does not allow is refused with the rule's source:
//
//   - size within size_min_gib and size_max_gib;
//   - provisioned IOPS (iops_provisioned): iops_min to iops_max, and at most
//     iops_gib_ratio_max per GiB of size, or iops_free when that is more (a small gp3
//     volume still has its 3,000);
//   - derived IOPS: iops_base + iops_gib_ratio x size, within iops_min and iops_max
//     (giving iops= is refused: the size sets them);
//   - throughput likewise, in throughput_unit (MiB/s or MB/s, as the provider writes
//     it), provisioned (at most throughput_iops_ratio_max per provisioned IOPS, or
//     throughput_free) or derived (throughput_base + throughput_gib_ratio x size +
//     throughput_iops_ratio x IOPS, within throughput_min and throughput_max);
//   - a burst (st1): burst_throughput_gib_ratio x size up to burst_throughput_max while
//     a credit bucket of burst_credit_gib_ratio MiB a GiB lasts.
//
// Its watts are power_tb_ratio_w per TB of size times replicas, for the whole time,
// with scope system (the provider's drives draw what they draw whether this volume
// reads or not); the inner device's own watts are not counted.
type Cloud struct {
	*Limit
	volume   Volume
	embodied EmbodiedItem
}

// Volume is what a provider bills a volume for: its size, provisioned IOPS and
// throughput, under the name of its profile (the price table's key).
type Volume struct {
	Profile        string  `json:"profile"`
	SizeGiB        float64 `json:"size_gib"`
	IOPS           float64 `json:"iops"`
	Throughput     float64 `json:"throughput"`
	ThroughputUnit string  `json:"throughput_unit"`
	Replicas       float64 `json:"replicas"`
}

// Volumer is a model that is a billed volume.
type Volumer interface {
	Volume() Volume
}

// Volume is what the volume is billed for.
func (c *Cloud) Volume() Volume { return c.volume }

// VolumesOf lists the billed volumes in m, depth first.
func VolumesOf(m Model) []Volume {
	var out []Volume
	Walk(m, func(_ int, mm Model) {
		if v, ok := mm.(Volumer); ok {
			out = append(out, v.Volume())
		}
	})
	return out
}

func cloudClass() *class {
	num := func(key, help string) field { return field{key: key, help: help} }
	return &class{
		name:      "cloud",
		help:      "a provider's block volume: a volume type's rules, caps and network round trip (profiles aws-gp3, gcp-pd-ssd, ...)",
		syntax:    "aws-gp3(size=500GiB,iops=6000,throughput=250)",
		composite: true,
		fields: []field{
			{key: "inner", kind: kindSpec, required: true, help: "the device that stands for the provider's drives"},
			{key: "size_gib", required: true, above: true, help: "the volume's size"},
			num("iops", "provisioned IOPS (types that provision them)"),
			num("throughput", "provisioned throughput in throughput_unit (types that provision it)"),
			{key: "throughput_unit", kind: kindChoice, choices: []string{"MiB/s", "MB/s"}, def: Figure{Text: "MiB/s"}, help: "the unit the provider gives throughput in"},
			{key: "size_min_gib", required: true, above: true, help: "the smallest volume the type allows"},
			{key: "size_max_gib", required: true, above: true, help: "the largest volume the type allows"},
			{key: "iops_provisioned", kind: kindBool, help: "the user provisions IOPS (else the size sets them)"},
			num("iops_free", "IOPS included with the storage"),
			num("iops_min", "the least IOPS"),
			num("iops_max", "the most IOPS (0: no cap)"),
			num("iops_gib_ratio_max", "provisioned IOPS allowed per GiB of size (0: no ratio)"),
			num("iops_base", "derived IOPS: the baseline"),
			num("iops_gib_ratio", "derived IOPS: added per GiB of size"),
			{key: "throughput_provisioned", kind: kindBool, help: "the user provisions throughput (else it is derived)"},
			num("throughput_free", "throughput included with the storage"),
			num("throughput_min", "the least throughput"),
			num("throughput_max", "the most throughput (0: no cap)"),
			num("throughput_iops_ratio_max", "provisioned throughput allowed per provisioned IOPS (0: no ratio)"),
			num("throughput_base", "derived throughput: the baseline"),
			num("throughput_gib_ratio", "derived throughput: added per GiB of size"),
			num("throughput_iops_ratio", "derived throughput: added per IOPS"),
			num("burst_throughput_gib_ratio", "burst throughput per GiB of size while credits last (0: no burst)"),
			num("burst_throughput_max", "the most burst throughput"),
			num("burst_credit_gib_ratio", "MiB of throughput credit per GiB of size (the credit bucket)"),
			num("io_size_kib", "the I/O size that counts as one operation (0: each request is one)"),
			{key: "merge_sequential", kind: kindBool, help: "sequential requests continue one operation"},
			num("merge_min_kib", "sequential requests smaller than this are not merged"),
			{key: "charge_whole_io", kind: kindBool, help: "throughput is charged per operation at io_size"},
			{key: "network_us", required: true, help: "network round trip added to every request"},
			{key: "bucket_ms", above: true, def: Figure{Value: 1, Source: bucketSource}, help: "depth of each token bucket, in time at its rate"},
			{key: "replicas", min: 1, def: Figure{Value: 1, Source: "assumption: one copy"}, help: "copies the provider keeps, for power and embodied carbon"},
			num("power_tb_ratio_w", "watts per TB of size of the provider's drives, per replica"),
		},
		check: checkCloud,
		build: func(b *builder, p *Profile, name string) (Model, error) {
			f, err := cloudFiguresOf(p)
			if err != nil {
				return nil, err
			}
			inner, err := b.build(p.Text("inner"))
			if err != nil {
				return nil, err
			}
			cfg := LimitConfig{
				IOPS: f.iops, BytesPS: f.mbps * 1e6,
				IOSize: kib(p.Num("io_size_kib")), MergeMin: kib(p.Num("merge_min_kib")),
				Merge: p.Bool("merge_sequential"), WholeIO: p.Bool("charge_whole_io"),
				Bucket: msDur(p.Num("bucket_ms")), Network: usDur(p.Num("network_us")),
				Capacity: int64(math.Round(f.size * (1 << 30))),
			}
			if f.burstMBps > 0 {
				cfg.BurstBytesPS, cfg.CreditBytes = f.burstMBps*1e6, f.creditMiB*(1<<20)
			}
			c := &Cloud{
				Limit: NewLimit(name, p.Power(), inner, cfg),
				volume: Volume{Profile: p.Name, SizeGiB: f.size, IOPS: f.iops, Throughput: f.throughput,
					ThroughputUnit: p.Text("throughput_unit"), Replicas: p.Num("replicas")},
			}
			tb := f.size * (1 << 30) / 1e12 * p.Num("replicas")
			c.embodied = EmbodiedItem{Device: name, Kg: p.Num("embodied_kg") + p.Num("embodied_tb_ratio_kg")*tb,
				LifeYears: p.Num("life_years"), Source: embodiedSource(p, fmt.Sprintf("%.4g TB x %g replicas", tb/p.Num("replicas"), p.Num("replicas")))}
			return c, nil
		},
	}
}

// cloudFigures are what a volume type's rules give for a profile's size, IOPS and
// throughput: the caps in IOPS and decimal MB/s, throughput also in the provider's
// unit, and the burst.
type cloudFigures struct {
	size, iops, throughput, mbps float64
	burstMBps, creditMiB         float64
}

// perUnit is bytes a second in a throughput unit.
func perUnit(unit string) float64 {
	if unit == "MB/s" {
		return 1e6
	}
	return 1 << 20
}

// checkCloud refuses what the provider does not allow (quoting the rule's source) and
// sets the volume's watts from its size when the profile gives none.
func checkCloud(p *Profile) error {
	if p.Num("size_min_gib") > p.Num("size_max_gib") {
		return p.order("size_min_gib", "size_max_gib")
	}
	if _, err := cloudFiguresOf(p); err != nil {
		return err
	}
	if idle := p.Fields["idle_w"]; !p.given("idle_w") || strings.HasPrefix(idle.Source, sizePowerPrefix) {
		tb := p.Num("size_gib") * (1 << 30) / 1e12
		w := p.Num("power_tb_ratio_w") * tb * p.Num("replicas")
		src := fmt.Sprintf("%s%g W per TB (%s) x %.4g TB x %g replicas (%s)", sizePowerPrefix, p.Num("power_tb_ratio_w"), p.Fields["power_tb_ratio_w"].Source,
			tb, p.Num("replicas"), p.Fields["replicas"].Source)
		p.Fields["idle_w"] = Figure{Value: w, Source: src}
		p.Fields["active_w"] = Figure{Value: w, Source: src}
		p.Fields["power_scope"] = Figure{Text: "system", Source: "a volume's share of the provider's drives draws the same idle or busy"}
	}
	return nil
}

// sizePowerPrefix begins the source of watts computed from a volume's size, so that
// a spec that changes the size computes them again.
const sizePowerPrefix = "from the volume's size: "

// ruleError refuses a value with the provider's rule: the source of the field that
// sets the limit.
func ruleError(p *Profile, key, rule string, format string, args ...any) error {
	src := p.Fields[rule].Source
	if src == "" {
		src = "tierbench default"
	}
	return fmtErr(p, key, "%s (%s)", fmt.Sprintf(format, args...), src)
}

// given reports whether a field was set (in a file, on a command line), not left at
// the class's default.
func (p *Profile) given(key string) bool {
	f := p.Fields[key]
	return f.Line > 0 || (f.Source != "" && f.Source != "tierbench default")
}

func cloudFiguresOf(p *Profile) (cloudFigures, error) {
	f := cloudFigures{size: p.Num("size_gib")}
	if f.size < p.Num("size_min_gib") {
		return f, ruleError(p, "size_gib", "size_min_gib", "a volume of %g GiB is smaller than the type allows, %g GiB", f.size, p.Num("size_min_gib"))
	}
	if f.size > p.Num("size_max_gib") {
		return f, ruleError(p, "size_gib", "size_max_gib", "a volume of %g GiB is larger than the type allows, %g GiB", f.size, p.Num("size_max_gib"))
	}
	var err error
	if f.iops, err = cloudIOPS(p, f.size); err != nil {
		return f, err
	}
	if f.throughput, err = cloudThroughput(p, f.size, f.iops); err != nil {
		return f, err
	}
	unit := perUnit(p.Text("throughput_unit"))
	f.mbps = f.throughput * unit / 1e6
	if r := p.Num("burst_throughput_gib_ratio"); r > 0 {
		burst := r * f.size
		if m := p.Num("burst_throughput_max"); m > 0 {
			burst = math.Min(burst, m)
		}
		f.burstMBps = math.Max(burst*unit/1e6, f.mbps)
		f.creditMiB = p.Num("burst_credit_gib_ratio") * f.size
	}
	return f, nil
}

// cloudIOPS is the volume's IOPS: provisioned within the rules, or derived from size.
func cloudIOPS(p *Profile, size float64) (float64, error) {
	iops := p.Num("iops")
	if !p.Bool("iops_provisioned") {
		if p.given("iops") && iops != 0 {
			return 0, ruleError(p, "iops", "iops_gib_ratio", "iops=%g: this type's IOPS follow its size (%g + %g a GiB); give size= instead", iops, p.Num("iops_base"), p.Num("iops_gib_ratio"))
		}
		return clamp(p.Num("iops_base")+p.Num("iops_gib_ratio")*size, p.Num("iops_min"), p.Num("iops_max")), nil
	}
	if iops < p.Num("iops_min") {
		return 0, ruleError(p, "iops", "iops_min", "iops=%g is below the least this type allows, %g", iops, p.Num("iops_min"))
	}
	if m := p.Num("iops_max"); m > 0 && iops > m {
		return 0, ruleError(p, "iops", "iops_max", "iops=%g is above the most this type allows, %g", iops, m)
	}
	if r := p.Num("iops_gib_ratio_max"); r > 0 {
		allowed := math.Max(p.Num("iops_free"), r*size)
		if iops > allowed {
			return 0, ruleError(p, "iops", "iops_gib_ratio_max", "iops=%g on %g GiB is above %g IOPS a GiB (at most %g): give a larger size= or fewer iops=", iops, size, r, allowed)
		}
	}
	return iops, nil
}

// cloudThroughput is the volume's throughput in its unit: provisioned within the
// rules, or derived from size and IOPS.
func cloudThroughput(p *Profile, size, iops float64) (float64, error) {
	thr := p.Num("throughput")
	unit := p.Text("throughput_unit")
	if !p.Bool("throughput_provisioned") {
		if p.given("throughput") && thr != 0 {
			return 0, ruleError(p, "throughput", "throughput_gib_ratio", "throughput=%g: this type's throughput follows its size and IOPS; give size= (and iops=, where the type provisions them) instead", thr)
		}
		return clamp(p.Num("throughput_base")+p.Num("throughput_gib_ratio")*size+p.Num("throughput_iops_ratio")*iops,
			p.Num("throughput_min"), p.Num("throughput_max")), nil
	}
	if thr < p.Num("throughput_min") {
		return 0, ruleError(p, "throughput", "throughput_min", "throughput=%g %s is below the least this type allows, %g %s", thr, unit, p.Num("throughput_min"), unit)
	}
	if m := p.Num("throughput_max"); m > 0 && thr > m {
		return 0, ruleError(p, "throughput", "throughput_max", "throughput=%g %s is above the most this type allows, %g %s", thr, unit, m, unit)
	}
	if r := p.Num("throughput_iops_ratio_max"); r > 0 {
		allowed := math.Max(p.Num("throughput_free"), r*iops)
		if thr > allowed {
			return 0, ruleError(p, "throughput", "throughput_iops_ratio_max", "throughput=%g %s with %g IOPS is above %g %s per IOPS (at most %g %s): provision more iops= or less throughput=",
				thr, unit, iops, r, unit, allowed, unit)
		}
	}
	return thr, nil
}

// clamp keeps v within lo and hi (hi 0: no upper bound).
func clamp(v, lo, hi float64) float64 {
	if hi > 0 {
		v = math.Min(v, hi)
	}
	return math.Max(v, lo)
}
