package params

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Kind is what a parameter's value is, for the study runner (which values it may
// sweep, which factors are numeric) and for people reading a list of parameters.
type Kind string

const (
	Int      Kind = "int"      // a decimal whole number
	Seed     Kind = "seed"     // a decimal int64, leading zeros allowed
	Float    Kind = "float"    // a number (NaN and Inf are refused by the builders)
	Duration Kind = "duration" // 10s, 5m
	Size     Kind = "size"     // bytes with an optional unit: 256MB, 2GiB
	String   Kind = "string"
	Enum     Kind = "enum" // a string from Param.Choices
	Bool     Kind = "bool"
	List     Kind = "list"  // comma-separated strings, or the flag given again
	Array    Kind = "array" // a flag given once per value (--set, --tier)
	Users    Kind = "users" // virtual users, or a sweep such as 1,2,4,8
)

// Param is one parameter of a Set.
type Param struct {
	Name string
	Kind Kind
	Help string
	// Default is the value's text before anything sets it.
	Default string
	// Choices are an Enum's values (informative: the builders check them).
	Choices []string
	// Required says the parameter has no default and must be given.
	Required bool
	flag     *pflag.Flag
}

// Flag is the parameter's flag, shared with every FlagSet the Set was added to.
func (p *Param) Flag() *pflag.Flag { return p.flag }

// Changed says the parameter was set, on the command line or by Set.
func (p *Param) Changed() bool { return p.flag.Changed }

// Values is the parameter's value as text that Set.SetValues takes back to the same
// value: one string for a single value, one per element for a List or an Array.
func (p *Param) Values() []string {
	if sv, ok := p.flag.Value.(pflag.SliceValue); ok {
		return slices.Clone(sv.GetSlice())
	}
	return []string{p.flag.Value.String()}
}

// Hide hides the parameter from help (a setting that is implied, such as --keep-db
// for workloads that always keep their database).
func (p *Param) Hide() *Param { p.flag.Hidden = true; return p }

// Require marks the parameter as one that must be given.
func (p *Param) Require() *Param { p.Required = true; return p }

// Set is a named set of parameters.
type Set struct {
	name   string
	fs     *pflag.FlagSet
	params []*Param
}

// NewSet returns an empty set; name says whose parameters they are, for errors.
func NewSet(name string) *Set {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	return &Set{name: name, fs: fs}
}

// Name is the set's name.
func (s *Set) Name() string { return s.name }

// FlagSet holds the set's flags, for cobra (cmd.Flags().AddFlagSet): the flags are
// shared, so what the command line sets is the set's value and Changed.
func (s *Set) FlagSet() *pflag.FlagSet { return s.fs }

// Params lists the parameters in the order they were added.
func (s *Set) Params() []*Param { return s.params }

// Lookup is the parameter called name, nil when there is none.
func (s *Set) Lookup(name string) *Param {
	for _, p := range s.params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func (s *Set) add(name string, kind Kind, help string) *Param {
	f := s.fs.Lookup(name)
	p := &Param{Name: name, Kind: kind, Help: help, Default: f.DefValue, flag: f}
	s.params = append(s.params, p)
	return p
}

// String adds a string parameter; kind says what the text is (String, Size, Users, a
// Float kept as text such as a scale factor).
func (s *Set) String(p *string, name, def string, kind Kind, help string) *Param {
	s.fs.StringVar(p, name, def, help)
	return s.add(name, kind, help)
}

// Enum adds a string parameter whose valid values are choices.
func (s *Set) Enum(p *string, name, def string, choices []string, help string) *Param {
	s.fs.StringVar(p, name, def, help)
	par := s.add(name, Enum, help)
	par.Choices = choices
	return par
}

// Bool adds a boolean parameter; on the command line --name alone sets it.
func (s *Set) Bool(p *bool, name string, def bool, help string) *Param {
	s.fs.BoolVar(p, name, def, help)
	return s.add(name, Bool, help)
}

// Int adds an int parameter read as decimal only.
func (s *Set) Int(p *int, name string, def int, help string) *Param {
	*p = def
	s.fs.Var(decimalInt{p}, name, help)
	return s.add(name, Int, help)
}

// Seed adds an int64 seed read as decimal, limited to min..max.
func (s *Set) Seed(p *int64, name string, def, min, max int64, help string) *Param {
	*p = def
	s.fs.Var(&seedValue{p: p, min: min, max: max}, name, help)
	return s.add(name, Seed, help)
}

// AnySeed adds a seed that takes any int64 (a generator's, only mixed into its
// streams).
func (s *Set) AnySeed(p *int64, name string, def int64, help string) *Param {
	return s.Seed(p, name, def, math.MinInt64, math.MaxInt64, help)
}

// Float adds a float64 parameter.
func (s *Set) Float(p *float64, name string, def float64, help string) *Param {
	s.fs.Float64Var(p, name, def, help)
	return s.add(name, Float, help)
}

// Duration adds a duration parameter.
func (s *Set) Duration(p *time.Duration, name string, def time.Duration, help string) *Param {
	s.fs.DurationVar(p, name, def, help)
	return s.add(name, Duration, help)
}

// List adds a list of strings given comma-separated or by repeating the flag.
func (s *Set) List(p *[]string, name string, help string) *Param {
	s.fs.StringSliceVar(p, name, nil, help)
	return s.add(name, List, help)
}

// Array adds a list of strings given one per flag, each taken whole (commas and all).
func (s *Set) Array(p *[]string, name string, help string) *Param {
	s.fs.StringArrayVar(p, name, nil, help)
	return s.add(name, Array, help)
}

// Set sets the parameter called name from text, with the command line's parsing and
// its error: `invalid argument "x" for "--name" flag: ...`. For a List or an Array the
// text is one more element.
func (s *Set) Set(name, value string) error {
	p := s.Lookup(name)
	if p == nil {
		return s.unknown(name)
	}
	// pflag words it: invalid argument "x" for "--name" flag: ..., unless the value's
	// error names the flag itself
	return FlagError(s.fs.Set(name, value))
}

// SetValues sets the parameter called name to values: a List or an Array to exactly
// those elements, a Users value to their sweep (1, 2, 4 is 1,2,4), any other kind to
// its one value.
func (s *Set) SetValues(name string, values []string) error {
	p := s.Lookup(name)
	if p == nil {
		return s.unknown(name)
	}
	if sv, ok := p.flag.Value.(pflag.SliceValue); ok {
		if err := sv.Replace(slices.Clone(values)); err != nil {
			return fmt.Errorf("invalid argument %q for %q flag: %w", strings.Join(values, ","), "--"+name, err)
		}
		p.flag.Changed = true
		return nil
	}
	switch {
	case p.Kind == Users && len(values) > 0:
		return s.Set(name, strings.Join(values, ","))
	case len(values) != 1:
		return fmt.Errorf("--%s takes one value, not %d (%s)", name, len(values), strings.Join(values, ", "))
	}
	return s.Set(name, values[0])
}

func (s *Set) unknown(name string) error {
	names := make([]string, len(s.params))
	for i, p := range s.params {
		names[i] = p.Name
	}
	return fmt.Errorf("unknown parameter %q of %s: valid parameters are %s", name, s.name, strings.Join(names, ", "))
}

// CheckRequired reports the required parameters not set, as cobra words it.
func (s *Set) CheckRequired() error {
	var missing []string
	for _, p := range s.params {
		if p.Required && !p.Changed() {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf(`required flag(s) "%s" not set`, strings.Join(missing, `", "`))
	}
	return nil
}

// Changed are the parameters set, in the order they were added.
func (s *Set) Changed() []*Param {
	var out []*Param
	for _, p := range s.params {
		if p.Changed() {
			out = append(out, p)
		}
	}
	return out
}

// Values are the changed parameters' values by name (Param.Values), which SetValues
// takes back.
func (s *Set) Values() map[string][]string {
	out := map[string][]string{}
	for _, p := range s.Changed() {
		out[p.Name] = p.Values()
	}
	return out
}

// Args is the command line that sets the changed parameters to their values:
// --name=value for each value (a List's or an Array's element by element).
func (s *Set) Args() []string {
	var args []string
	for _, p := range s.Changed() {
		vals := p.Values()
		if p.Kind == List && len(vals) == 0 {
			args = append(args, "--"+p.Name+"=")
		}
		for _, v := range vals {
			if p.Kind == List && strings.ContainsAny(v, ",\"") {
				v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"` // the list reads CSV
			}
			args = append(args, "--"+p.Name+"="+v)
		}
	}
	return args
}
