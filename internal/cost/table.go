package cost

import (
	_ "embed"
	"fmt"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"tierbench/internal/yamltext"
)

// Price is one profile's prices, in USD a month (HoursPerMonth hours).
type Price struct {
	Profile string `json:"profile"`
	// GiBMonth is per GiB of size; IOPSMonth per provisioned IOPS above IOPSFree;
	// ThroughputMonth per unit of provisioned throughput (the volume's own unit, MiB/s
	// or MB/s) above ThroughputFree.
	GiBMonth  float64 `json:"usd_per_gib_month"`
	IOPSMonth float64 `json:"usd_per_iops_month,omitempty"`
	// IOPSTiers price provisioned IOPS by tier instead of IOPSMonth, as EBS prices
	// io2: each tier's price applies to the IOPS between the previous tier's UpTo and
	// its own (the last tier has none: it runs on without a bound).
	IOPSTiers       []Tier  `json:"iops_tiers,omitempty"`
	IOPSFree        float64 `json:"iops_free,omitempty"`
	ThroughputMonth float64 `json:"usd_per_throughput_month,omitempty"`
	ThroughputFree  float64 `json:"throughput_free,omitempty"`
	Source          string  `json:"source"`
	Date            string  `json:"date"`
	// Origin is "builtin" or the file the price came from; Line where in it.
	Origin string `json:"origin"`
	Line   int    `json:"-"`
}

// Tier is one tier of a tiered IOPS price: USD per provisioned IOPS-month for the
// IOPS up to UpTo (0 on the last tier: no bound).
type Tier struct {
	UpTo      float64 `json:"up_to,omitempty"`
	IOPSMonth float64 `json:"usd_per_iops_month"`
}

// Host is the host's price a hour, when given.
type Host struct {
	USDPerHour float64 `json:"usd_per_hour"`
	Source     string  `json:"source"`
	Origin     string  `json:"origin"`
}

// Table holds the prices by profile name and the host's price.
type Table struct {
	Volumes map[string]Price
	Host    *Host
}

// HoursPerMonth is the month providers bill by (AWS and Google both divide a monthly
// price by 730 hours).
const HoursPerMonth = 730

//go:embed prices.yaml
var builtinPrices []byte

// Builtin is the bundled table.
func Builtin() (*Table, error) {
	t := &Table{Volumes: map[string]Price{}}
	if err := t.merge(builtinPrices, "builtin"); err != nil {
		return nil, err
	}
	return t, nil
}

// Load is the bundled table with the user's price file (if path is not "") laid over
// it: a profile it names replaces the bundled price, and its host price is the run's.
func Load(path string) (*Table, error) {
	t, err := Builtin()
	if err != nil || path == "" {
		return t, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--prices %s: %w", path, err)
	}
	if err := t.merge(b, path); err != nil {
		return nil, err
	}
	return t, nil
}

// Price is the price of profile, if the table has one.
func (t *Table) Price(profile string) (Price, bool) {
	p, ok := t.Volumes[profile]
	return p, ok
}

// Check refuses a price for a profile that known (a device registry's lookup) does
// not know, naming the file and line: a misspelt name would otherwise price nothing.
func (t *Table) Check(known func(profile string) bool) error {
	for _, n := range t.Names() {
		if p := t.Volumes[n]; !known(n) {
			return fmt.Errorf("%s:%d: volumes: unknown device profile %q: price a profile tierbench device list shows", p.Origin, p.Line, n)
		}
	}
	return nil
}

// Names lists the priced profiles, sorted.
func (t *Table) Names() []string {
	var out []string
	for n := range t.Volumes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// fieldSpec is one field of a price entry: its key, whether it is required, and
// where its value goes.
type fieldSpec struct {
	key      string
	required bool
	num      *float64
	text     *string
	tiers    *[]Tier
}

// priceDoc words a price file's YAML syntax errors.
var priceDoc = yamltext.Doc{
	What:  "a price file",
	Empty: "give volumes: (and host:) as docs/cloud.md shows",
	Holds: "one mapping of volumes: and host:",
}

func (t *Table) merge(b []byte, origin string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return priceDoc.Error(origin, b, err)
	}
	if len(doc.Content) == 0 {
		return fmt.Errorf("%s: empty price file: give volumes: (and host:) as docs/cloud.md shows", origin)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: a price file is a mapping of volumes: and host:", origin, root.Line)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "volumes":
			if v.Kind != yaml.MappingNode {
				return fmt.Errorf("%s:%d: volumes: is a mapping of profile names to prices", origin, v.Line)
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				name := v.Content[j].Value
				p := Price{Profile: name, Origin: origin, Line: v.Content[j].Line}
				err := readFields(origin, name, v.Content[j], v.Content[j+1], []fieldSpec{
					{key: "usd_per_gib_month", required: true, num: &p.GiBMonth},
					{key: "usd_per_iops_month", num: &p.IOPSMonth},
					{key: "iops_tiers", tiers: &p.IOPSTiers},
					{key: "iops_free", num: &p.IOPSFree},
					{key: "usd_per_throughput_month", num: &p.ThroughputMonth},
					{key: "throughput_free", num: &p.ThroughputFree},
					{key: "source", required: true, text: &p.Source},
					{key: "date", required: true, text: &p.Date},
				})
				if err != nil {
					return err
				}
				if len(p.IOPSTiers) > 0 && p.IOPSMonth > 0 {
					return fmt.Errorf("%s:%d: %s: give usd_per_iops_month or iops_tiers, not both", origin, p.Line, name)
				}
				t.Volumes[name] = p
			}
		case "host":
			h := Host{Origin: origin}
			err := readFields(origin, "host", k, v, []fieldSpec{
				{key: "usd_per_hour", required: true, num: &h.USDPerHour},
				{key: "source", required: true, text: &h.Source},
			})
			if err != nil {
				return err
			}
			t.Host = &h
		default:
			return fmt.Errorf("%s:%d: unknown key %q: use volumes or host", origin, k.Line, k.Value)
		}
	}
	return nil
}

// readFields reads one entry's fields: each known, numbers not negative, the required
// ones present, every error naming file:line.
func readFields(origin, name string, key, v *yaml.Node, specs []fieldSpec) error {
	if v.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: %s: give its fields as a mapping", origin, v.Line, name)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		var spec *fieldSpec
		for j := range specs {
			if specs[j].key == k.Value {
				spec = &specs[j]
			}
		}
		if spec == nil {
			var keys []string
			for _, s := range specs {
				keys = append(keys, s.key)
			}
			return fmt.Errorf("%s:%d: %s: unknown field %q: use one of %s", origin, k.Line, name, k.Value, strings.Join(keys, ", "))
		}
		seen[k.Value] = true
		if spec.tiers != nil {
			if err := readTiers(origin, name, val, spec.tiers); err != nil {
				return err
			}
			continue
		}
		if spec.text != nil {
			if strings.TrimSpace(val.Value) == "" {
				return fmt.Errorf("%s:%d: %s: field %s is empty", origin, val.Line, name, k.Value)
			}
			*spec.text = val.Value
			continue
		}
		if err := val.Decode(spec.num); err != nil {
			return fmt.Errorf("%s:%d: %s: field %s: %q is not a number", origin, val.Line, name, k.Value, val.Value)
		}
		if *spec.num < 0 {
			return fmt.Errorf("%s:%d: %s: field %s is %v: a price or an allowance is not negative", origin, val.Line, name, k.Value, *spec.num)
		}
	}
	var missing []string
	for _, s := range specs {
		if s.required && !seen[s.key] {
			missing = append(missing, s.key)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s:%d: %s: missing field %s (every price carries its figure, source and date)", origin, key.Line, name, strings.Join(missing, ", "))
	}
	return nil
}

// readTiers reads a tiered IOPS price: a list of tiers, each with usd_per_iops_month
// and up_to (the IOPS its price runs to) rising from tier to tier, the last without
// up_to, so that every provisioned IOPS has a price.
func readTiers(origin, name string, v *yaml.Node, out *[]Tier) error {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return fmt.Errorf("%s:%d: %s: iops_tiers is a list of tiers, each {up_to: IOPS, usd_per_iops_month: USD}, the last without up_to", origin, v.Line, name)
	}
	var tiers []Tier
	for i, n := range v.Content {
		var t Tier
		var upTo float64
		last := i == len(v.Content)-1
		specs := []fieldSpec{{key: "usd_per_iops_month", required: true, num: &t.IOPSMonth}}
		if !last {
			specs = append(specs, fieldSpec{key: "up_to", required: true, num: &upTo})
		}
		where := fmt.Sprintf("%s: iops_tiers[%d]", name, i)
		if err := readFields(origin, where, n, n, specs); err != nil {
			if last && strings.Contains(err.Error(), `unknown field "up_to"`) {
				return fmt.Errorf("%s:%d: %s: the last tier has no up_to: its price runs on without a bound", origin, n.Line, where)
			}
			return err
		}
		t.UpTo = upTo
		if !last && (upTo <= 0 || (i > 0 && upTo <= tiers[i-1].UpTo)) {
			return fmt.Errorf("%s:%d: %s: up_to %v must be above the previous tier's (tiers rise)", origin, n.Line, where, upTo)
		}
		tiers = append(tiers, t)
	}
	*out = tiers
	return nil
}
