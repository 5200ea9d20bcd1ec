package device

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Figure is one field of a profile: a number (booleans are 0 or 1) or a text (a choice
// or a device spec), with the source it came from and where it was written.
type Figure struct {
	Value  float64
	Text   string
	Source string
	Line   int // line in the profile file; 0 for defaults and command lines
}

// MarshalJSON writes {"value": ..., "source": ...}, the value a number or a text, as
// in a profile file.
func (f Figure) MarshalJSON() ([]byte, error) {
	out := struct {
		Value  any    `json:"value"`
		Source string `json:"source,omitempty"`
	}{f.Value, f.Source}
	if f.Text != "" {
		out.Value = f.Text
	}
	return json.Marshal(out)
}

// Profile is a named device: a class and its fields. Built-in profiles come from
// profiles/*.yaml embedded in the binary; users add their own files (see Load).
type Profile struct {
	Name        string
	Class       string
	Description string
	Source      string // the profile's main source, shown by `device list`
	Origin      string // "builtin" or the file it was read from
	Line        int    // line of the profile in its file
	Fields      map[string]Figure
}

// Num returns a numeric field (its default when the profile does not set it).
func (p *Profile) Num(key string) float64 { return p.Fields[key].Value }

// Text returns a text field.
func (p *Profile) Text(key string) string { return p.Fields[key].Text }

// Bool returns a boolean field.
func (p *Profile) Bool(key string) bool { return p.Fields[key].Value != 0 }

// Power returns the profile's power figures.
func (p *Profile) Power() Power {
	src := p.Fields["idle_w"].Source
	if a := p.Fields["active_w"].Source; a != "" && a != src {
		src += "; " + a
	}
	return Power{IdleW: p.Num("idle_w"), ActiveW: p.Num("active_w"), Scope: p.Text("power_scope"), Source: src}
}

func (p *Profile) clone() *Profile {
	q := *p
	q.Fields = make(map[string]Figure, len(p.Fields))
	for k, v := range p.Fields {
		q.Fields[k] = v
	}
	return &q
}

// where names the profile for error messages: "devices/my.yaml:3" or "builtin hdd-7200".
func (p *Profile) where(line int) string {
	switch p.Origin {
	case "", "builtin":
		return "builtin profile " + p.Name
	case "command line":
		return "composite " + p.Name
	}
	if line == 0 {
		line = p.Line
	}
	return fmt.Sprintf("%s:%d", p.Origin, line)
}

type fieldKind int

const (
	kindNumber fieldKind = iota
	kindInteger
	kindBool
	kindChoice
	kindSpec // a device spec: a profile name or a composite expression
)

// field describes one field of a class.
type field struct {
	key      string
	kind     fieldKind
	required bool
	min      float64 // inclusive lower bound for numbers
	above    bool    // the number must be > min rather than >= min
	max      float64 // inclusive upper bound when non-zero
	choices  []string
	def      Figure
	help     string
}

// check validates a figure against the field; the error names the field.
func (f field) check(fig Figure) error {
	switch f.kind {
	case kindNumber, kindInteger:
		v := fig.Value
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("field %s must be a finite number, got %v", f.key, v)
		}
		if f.above && v <= f.min {
			return fmt.Errorf("field %s must be > %v, got %v", f.key, f.min, v)
		}
		if !f.above && v < f.min {
			return fmt.Errorf("field %s must be >= %v, got %v", f.key, f.min, v)
		}
		if f.max != 0 && v > f.max {
			return fmt.Errorf("field %s must be <= %v, got %v", f.key, f.max, v)
		}
		if f.kind == kindInteger && v != math.Trunc(v) {
			return fmt.Errorf("field %s must be a whole number, got %v", f.key, v)
		}
		if u, ok := fieldUnit(f.key); ok {
			if l, ok := unitLimits[u.kind]; ok && v*u.scale > l.max {
				return fmt.Errorf("field %s must be at most %.6g (%s), got %v", f.key, l.max/u.scale, l.what, v)
			}
			if u.kind == kindRate && v*u.scale < minRate {
				return fmt.Errorf("field %s must be at least %g (1 kB/s), got %v", f.key, minRate/u.scale, v)
			}
		}
	case kindChoice:
		if !slices.Contains(f.choices, fig.Text) {
			return fmt.Errorf("field %s must be one of %s, got %q", f.key, strings.Join(f.choices, ", "), fig.Text)
		}
	case kindSpec:
		if strings.TrimSpace(fig.Text) == "" {
			return fmt.Errorf("field %s must name a device profile", f.key)
		}
	}
	return nil
}

// unitLimits bound every field of a unit kind, in base units (seconds, bytes, bytes per
// second, watts). Beyond them a figure is a typo, and the models' integer arithmetic
// (int64 nanoseconds and bytes) would overflow into a different device without a word:
// controller=1e300ms gave negative completion times.
var unitLimits = map[unitKind]struct {
	max  float64
	what string
}{
	kindTime:  {60, "a minute"},
	kindSize:  {1 << 50, "1 PiB"},
	kindRate:  {1e13, "10 TB/s"},
	kindPower: {1e6, "a megawatt"},
}

// minRate is the slowest rate a field may give: below it the models' whole bytes per
// second round to 0, which they read as "no transfer time".
const minRate = 1e3

// maxCacheEntries is the most pages or blocks a cache model indexes (its LRU links
// entries by int32 index).
const maxCacheEntries = 1 << 31

// checkCacheEntries refuses a cache of more entries than maxCacheEntries.
func checkCacheEntries(p *Profile, unitKey string) error {
	n := p.Num("size_gib") * (1 << 30) / (p.Num(unitKey) * 1024)
	if n > maxCacheEntries {
		return fmtErr(p, "size_gib", "a cache of %v GiB in units of %v KiB is %.4g entries, more than the %d the model indexes: give larger %s or a smaller size",
			p.Num("size_gib"), p.Num(unitKey), n, maxCacheEntries, fieldBase(unitKey))
	}
	return nil
}

// class is a device class: its fields, how to build a model and cross-field checks.
type class struct {
	name      string
	help      string
	syntax    string // how to spell it on a command line (composites)
	composite bool
	fields    []field
	check     func(p *Profile) error // cross-field checks after each field is valid
	build     func(b *builder, p *Profile, name string) (Model, error)
}

func (c *class) field(key string) (field, bool) {
	for _, f := range c.fields {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

func (c *class) fieldNames() []string {
	names := make([]string, len(c.fields))
	for i, f := range c.fields {
		names[i] = f.key
	}
	return names
}

// lookupKey finds a field by its full name or by its name without the unit suffix, so a
// command line may say controller=200us for controller_us.
func (c *class) lookupKey(key string) (field, bool) {
	if f, ok := c.field(key); ok {
		return f, true
	}
	for _, f := range c.fields {
		if fieldBase(f.key) == key {
			return f, true
		}
	}
	return field{}, false
}

// powerFields are carried by every class. Leaves must give their watts; composites add
// their own (a SAN switch, say) or, with power_scope: system, replace their members'.
func powerFields(required bool) []field {
	return []field{
		{key: "idle_w", required: required, help: "watts when idle"},
		{key: "active_w", required: required, help: "watts while serving requests"},
		{key: "power_scope", kind: kindChoice, choices: []string{"device", "system"},
			def: Figure{Text: "device"}, help: "device: a bare device; system: a whole storage system measured at the wall"},
	}
}

var classes = map[string]*class{}

func registerClass(c *class) {
	c.fields = append(c.fields, powerFields(!c.composite)...)
	classes[c.name] = c
}

func init() {
	registerClass(hddClass())
	registerClass(ssdClass())
	registerClass(sanClass())
	registerClass(raid10Class())
	registerClass(ssdCacheClass())
	registerClass(pageCacheClass())
	registerClass(raidCacheClass())
}

// classNames lists the classes, sorted.
func classNames() []string {
	names := make([]string, 0, len(classes))
	for n := range classes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// finish fills defaults and runs the checks: the error names the field and, for a
// profile read from a file, the file and line.
func (p *Profile) finish() error {
	c, ok := classes[p.Class]
	if !ok {
		return fmt.Errorf("%s: profile %q has unknown class %q: use one of %s",
			p.where(0), p.Name, p.Class, strings.Join(classNames(), ", "))
	}
	for _, f := range c.fields {
		fig, ok := p.Fields[f.key]
		if !ok {
			if f.required && p.Origin == "command line" {
				return fmt.Errorf("%s needs %s (%s): write %s", p.Name, f.key, f.help, c.syntax)
			}
			if f.required {
				return fmt.Errorf("%s: profile %q (class %s) is missing field %s (%s)",
					p.where(0), p.Name, p.Class, f.key, f.help)
			}
			fig = f.def
			if fig.Source == "" && (fig.Value != 0 || fig.Text != "") {
				fig.Source = "tierbench default"
			}
			p.Fields[f.key] = fig
			continue
		}
		if err := f.check(fig); err != nil {
			return fmt.Errorf("%s: %w", p.where(fig.Line), err)
		}
	}
	for key, fig := range p.Fields {
		if _, ok := c.field(key); !ok {
			return fmt.Errorf("%s: unknown field %s for class %s (fields: %s)",
				p.where(fig.Line), key, p.Class, strings.Join(c.fieldNames(), ", "))
		}
	}
	// A device draws at least its idle power while it serves requests: an active_w
	// below idle_w (the two swapped) would make its busy time save energy.
	if err := p.order("idle_w", "active_w"); err != nil {
		return err
	}
	if c.check != nil {
		if err := c.check(p); err != nil {
			return err
		}
	}
	return nil
}

// order checks a <= b for two fields, naming both.
func (p *Profile) order(a, b string) error {
	if p.Num(a) > p.Num(b) {
		return fmt.Errorf("%s: field %s (%v) must not exceed %s (%v)",
			p.where(p.Fields[a].Line), a, p.Num(a), b, p.Num(b))
	}
	return nil
}

// fmtErr is an error about one field of the profile, placed at its line.
func fmtErr(p *Profile, key, format string, args ...any) error {
	return fmt.Errorf("%s: %s", p.where(p.Fields[key].Line), fmt.Sprintf(format, args...))
}

// ClassInfo describes a class for listings.
type ClassInfo struct {
	Name      string   `json:"name"`
	Help      string   `json:"description"`
	Syntax    string   `json:"syntax,omitempty"`
	Composite bool     `json:"composite"`
	Fields    []string `json:"fields"`
}

// Classes describes every class, leaves first, then composites, by name.
func Classes() []ClassInfo {
	var leaves, comps []ClassInfo
	for _, n := range classNames() {
		c := classes[n]
		ci := ClassInfo{Name: c.name, Help: c.help, Syntax: c.syntax, Composite: c.composite, Fields: c.fieldNames()}
		if c.composite {
			comps = append(comps, ci)
		} else {
			leaves = append(leaves, ci)
		}
	}
	return append(leaves, comps...)
}
