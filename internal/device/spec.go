package device

import (
	"fmt"
	"strings"
)

// A device spec names a device on a command line or in an experiment file:
//
//	spec  = name [ "(" arg { "," arg } ")" ]
//	arg   = spec | key "=" value
//
// name is a profile (hdd-7200, a user's profile) or a composite class (san, raid10,
// ssd-cache, pagecache). A composite takes its inner device as the one positional
// argument; key=value arguments set fields of the profile or class, by full name
// (controller_us=200) or without the unit suffix with any unit of the same kind
// (controller=0.2ms, size=32GiB, link=8gfc). A value may itself be a spec (ssd=nvme).
// Examples:
//
//	hdd-7200(write_cache=off)
//	raid10(hdd-15k,devices=8,stripe=64KiB)
//	san(dram-ssd,link=4gfc,controller=200us)
//	ssd-cache(hdd-7200,ssd=sata-ssd,size=32GiB,mode=writeback)
//	pagecache(san(raid10(hdd-15k,devices=4),link=8gfc),size=4GiB)
//
// Quote a spec in a shell: parentheses are shell syntax.
type Spec struct {
	Name   string
	Inner  *Spec // the positional argument, if any
	Params []Param
}

// Param is one key=value argument of a spec.
type Param struct{ Key, Value string }

// String prints the spec in canonical form.
func (s *Spec) String() string {
	var args []string
	if s.Inner != nil {
		args = append(args, s.Inner.String())
	}
	for _, p := range s.Params {
		args = append(args, p.Key+"="+p.Value)
	}
	if len(args) == 0 {
		return s.Name
	}
	return s.Name + "(" + strings.Join(args, ",") + ")"
}

// ParseSpec parses a device spec; errors give the position of the problem.
func ParseSpec(text string) (*Spec, error) {
	p := specParser{text: text}
	s, err := p.spec()
	if err == nil {
		p.skipSpace()
		if p.pos < len(p.text) {
			err = p.errorf("unexpected %q after the spec", p.text[p.pos:])
		}
	}
	if err != nil {
		return nil, fmt.Errorf("device spec %q: %w", text, err)
	}
	return s, nil
}

type specParser struct {
	text string
	pos  int
}

func (p *specParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at column %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

func (p *specParser) skipSpace() {
	for p.pos < len(p.text) && (p.text[p.pos] == ' ' || p.text[p.pos] == '\t') {
		p.pos++
	}
}

// word reads up to the next delimiter.
func (p *specParser) word() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.text) && !strings.ContainsRune("(),= \t", rune(p.text[p.pos])) {
		p.pos++
	}
	return p.text[start:p.pos]
}

func (p *specParser) spec() (*Spec, error) {
	name := p.word()
	if name == "" {
		return nil, p.errorf("expected a profile name such as hdd-7200 or a composite such as san(...)")
	}
	s := &Spec{Name: name}
	p.skipSpace()
	if p.pos >= len(p.text) || p.text[p.pos] != '(' {
		return s, nil
	}
	p.pos++
	for {
		p.skipSpace()
		if p.pos < len(p.text) && p.text[p.pos] == ')' && s.Inner == nil && len(s.Params) == 0 {
			p.pos++
			return s, nil
		}
		start := p.pos
		key := p.word()
		p.skipSpace()
		if p.pos < len(p.text) && p.text[p.pos] == '=' {
			if key == "" {
				return nil, p.errorf("expected key=value")
			}
			p.pos++
			val, err := p.value()
			if err != nil {
				return nil, err
			}
			s.Params = append(s.Params, Param{key, val})
		} else {
			p.pos = start
			if s.Inner != nil {
				return nil, p.errorf("%s takes one inner device; give the other arguments as key=value", name)
			}
			inner, err := p.spec()
			if err != nil {
				return nil, err
			}
			s.Inner = inner
		}
		p.skipSpace()
		if p.pos >= len(p.text) {
			return nil, p.errorf("missing ) to close %s(", name)
		}
		switch p.text[p.pos] {
		case ',':
			p.pos++
		case ')':
			p.pos++
			return s, nil
		default:
			return nil, p.errorf("expected , or ) but found %q", p.text[p.pos:p.pos+1])
		}
	}
}

// value reads a value up to a top-level , or ); parentheses inside (ssd=nvme(...)) nest.
func (p *specParser) value() (string, error) {
	p.skipSpace()
	start, depth := p.pos, 0
	for p.pos < len(p.text) {
		switch p.text[p.pos] {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return strings.TrimSpace(p.text[start:p.pos]), nil
			}
			depth--
		case ',':
			if depth == 0 {
				return strings.TrimSpace(p.text[start:p.pos]), nil
			}
		}
		p.pos++
	}
	return "", p.errorf("missing ) after value %q", p.text[start:])
}

// builder resolves specs against a registry; depth stops profiles that contain
// themselves.
type builder struct {
	reg   *Registry
	depth int
}

const maxNesting = 16

// Build returns a fresh model for a device spec.
func (r *Registry) Build(spec string) (Model, error) {
	b := &builder{reg: r}
	return b.build(spec)
}

// Resolve returns the profile a spec describes, with the spec's fields applied and
// checked, without building a model.
func (r *Registry) Resolve(spec string) (*Profile, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return r.resolve(s)
}

func (b *builder) build(text string) (Model, error) {
	if b.depth >= maxNesting {
		return nil, fmt.Errorf("device spec %q: nested more than %d deep (does a profile contain itself?)", text, maxNesting)
	}
	s, err := ParseSpec(text)
	if err != nil {
		return nil, err
	}
	p, err := b.reg.resolve(s)
	if err != nil {
		return nil, err
	}
	b.depth++
	defer func() { b.depth-- }()
	m, err := classes[p.Class].build(b, p, s.String())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.String(), err)
	}
	return m, nil
}

func (r *Registry) resolve(s *Spec) (*Profile, error) {
	var p *Profile
	if c, ok := classes[s.Name]; ok && c.composite {
		p = &Profile{Name: s.Name, Class: s.Name, Origin: "command line", Fields: map[string]Figure{}}
	} else {
		base, err := r.Lookup(s.Name)
		if err != nil {
			return nil, err
		}
		p = base.clone()
	}
	c := classes[p.Class]
	set := func(f field, text string) error {
		fig := Figure{Source: "device spec"}
		if err := setFigure(f, &fig, text); err != nil {
			return fmt.Errorf("device spec %q: %w", s.String(), err)
		}
		p.Fields[f.key] = fig
		return nil
	}
	if s.Inner != nil {
		f, ok := c.field("inner")
		if !ok {
			return nil, fmt.Errorf("device spec %q: %s is a %s profile and wraps no inner device; give key=value fields (%s)",
				s.String(), s.Name, p.Class, strings.Join(c.fieldNames(), ", "))
		}
		if err := set(f, s.Inner.String()); err != nil {
			return nil, err
		}
	}
	for _, prm := range s.Params {
		f, ok := c.lookupKey(prm.Key)
		if !ok {
			return nil, fmt.Errorf("device spec %q: %s has no field %q (fields: %s)",
				s.String(), s.Name, prm.Key, strings.Join(c.fieldNames(), ", "))
		}
		if err := set(f, prm.Value); err != nil {
			return nil, err
		}
	}
	if err := p.finish(); err != nil {
		return nil, fmt.Errorf("device spec %q: %w", s.String(), err)
	}
	return p, nil
}
