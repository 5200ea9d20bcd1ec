package device

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"tierbench/internal/yamltext"
)

//go:embed profiles/*.yaml
var builtinFS embed.FS

var builtinOrder = []string{"hdd-7200", "hdd-10k", "hdd-15k", "sata-ssd", "nvme", "dram-ssd",
	"aws-gp3", "aws-io2", "aws-st1", "gcp-pd-balanced", "gcp-pd-ssd", "gcp-hyperdisk-balanced", "azure-premium-ssd-v2"}

// Registry holds the known profiles by name: the built-in ones and any loaded from
// users' files.
type Registry struct {
	byName map[string]*Profile
	names  []string // in load order: built-ins first, sorted; then files in order
}

// Builtin returns a registry of the built-in profiles only.
func Builtin() (*Registry, error) {
	r := &Registry{byName: map[string]*Profile{}}
	entries, err := fs.ReadDir(builtinFS, "profiles")
	if err != nil {
		return nil, fmt.Errorf("built-in profiles: %w", err)
	}
	// Slowest first: disks by speed, then flash, then DRAM, as `device list` shows them.
	rank := func(name string) int {
		i := slices.Index(builtinOrder, strings.TrimSuffix(name, ".yaml"))
		if i < 0 {
			return len(builtinOrder)
		}
		return i
	}
	slices.SortStableFunc(entries, func(a, b fs.DirEntry) int { return rank(a.Name()) - rank(b.Name()) })
	for _, e := range entries {
		data, err := builtinFS.ReadFile("profiles/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("built-in profiles: %w", err)
		}
		ps, err := ParseProfiles("profiles/"+e.Name(), data)
		if err != nil {
			return nil, fmt.Errorf("built-in profiles: %w", err)
		}
		for _, p := range ps {
			p.Origin = "builtin"
			if err := r.add(p); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// DefaultUserDir is where users' profiles are read from when no path is given:
// $XDG_CONFIG_HOME/tierbench/devices, usually ~/.config/tierbench/devices.
func DefaultUserDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "tierbench", "devices")
}

// ProfilesHelp is the help of --profiles where a command reads users' profiles with
// ProfilePaths (device list, device show, device validate, calibrate, replay).
const ProfilesHelp = "profile file or directory of *.yaml files (repeatable; default: the user directory if it exists)"

// ProfilePaths are the users' profile files to load: paths as given (--profiles),
// each of which must exist, or else DefaultUserDir when it exists.
func ProfilePaths(paths []string) ([]string, error) {
	if len(paths) > 0 {
		for _, p := range paths {
			if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("--profiles %s: no such file or directory: give profile files or directories of *.yaml files", p)
			}
		}
		return paths, nil
	}
	if dir := DefaultUserDir(); dir != "" {
		if _, err := os.Stat(dir); err == nil {
			return []string{dir}, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("device profiles: %w", err)
		}
	}
	return nil, nil
}

// Load returns the built-in profiles plus those in paths: each path is a YAML file or
// a directory whose *.yaml and *.yml files are read in name order. A profile may not
// reuse the name of another (give a tweaked built-in a new name).
func Load(paths ...string) (*Registry, error) {
	r, err := Builtin()
	if err != nil {
		return nil, err
	}
	for _, path := range paths {
		files, err := profileFiles(path)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("device profiles: %w", err)
			}
			ps, err := ParseProfiles(f, data)
			if err != nil {
				return nil, err
			}
			for _, p := range ps {
				if err := r.add(p); err != nil {
					return nil, err
				}
			}
		}
	}
	// Composites name their inner devices by spec; check them once every file is in,
	// so a profile may refer to one defined in a later file.
	for _, p := range r.Profiles() {
		if p.Origin == "builtin" || !classes[p.Class].composite {
			continue
		}
		if _, err := r.Build(p.Name); err != nil {
			return nil, fmt.Errorf("%s: profile %q: %w", p.where(p.Fields["inner"].Line), p.Name, err)
		}
	}
	return r, nil
}

func profileFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("device profiles: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var files []string
	for _, pat := range []string{"*.yaml", "*.yml"} {
		m, err := filepath.Glob(filepath.Join(path, pat))
		if err != nil {
			return nil, fmt.Errorf("device profiles: %w", err)
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	return files, nil
}

func (r *Registry) add(p *Profile) error {
	if old, ok := r.byName[p.Name]; ok {
		return fmt.Errorf("%s: profile %q is already defined (%s): give this one another name",
			p.where(0), p.Name, old.where(0))
	}
	if _, ok := classes[p.Name]; ok {
		return fmt.Errorf("%s: profile name %q is taken by the composite class of that name: choose another",
			p.where(0), p.Name)
	}
	r.byName[p.Name] = p
	r.names = append(r.names, p.Name)
	return nil
}

// Profiles returns every profile, built-ins first.
func (r *Registry) Profiles() []*Profile {
	out := make([]*Profile, len(r.names))
	for i, n := range r.names {
		out[i] = r.byName[n]
	}
	return out
}

// Lookup returns a profile by name; the error for an unknown name lists the valid ones.
func (r *Registry) Lookup(name string) (*Profile, error) {
	if p, ok := r.byName[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("unknown device profile %q: known profiles are %s; composites are %s",
		name, strings.Join(r.names, ", "), strings.Join(compositeNames(), ", "))
}

func compositeNames() []string {
	var names []string
	for _, n := range classNames() {
		if classes[n].composite {
			names = append(names, n)
		}
	}
	return names
}

// profileDoc words a profile file's YAML syntax errors.
var profileDoc = yamltext.Doc{
	What:  "a profile file",
	Empty: "no profile in the file (expected name:, class: and the fields)",
	Holds: "one mapping per profile, the profiles separated by ---",
}

// ParseProfiles reads the profiles in one YAML file (one profile per document; several
// documents separated by ---). file names the file in errors. Each field is a number
// (or true/false, or a text) or a mapping {value: ..., source: "..."}:
//
//	name: my-disk
//	class: hdd
//	source: "Vendor X datasheet rev. 3"     # default source for bare numbers
//	rpm: {value: 7200, source: "datasheet p. 4"}
//	seek_avg_ms: 8.5
func ParseProfiles(file string, data []byte) ([]*Profile, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*Profile
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, profileDoc.Error(file, data, err)
		}
		if len(doc.Content) == 0 {
			continue
		}
		p, err := parseProfile(file, doc.Content[0])
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no profile in the file (expected name:, class: and the fields)", file)
	}
	return out, nil
}

func parseProfile(file string, n *yaml.Node) (*Profile, error) {
	at := func(n *yaml.Node) string { return fmt.Sprintf("%s:%d", file, n.Line) }
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: a profile must be a mapping of fields (name:, class:, ...)", at(n))
	}
	p := &Profile{Origin: file, Line: n.Line, Fields: map[string]Figure{}}
	var raw []*yaml.Node // key, value pairs of the class fields
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "name", "class", "description", "source":
			if v.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%s: %s must be a single value", at(v), k.Value)
			}
			switch k.Value {
			case "name":
				p.Name, p.Line = strings.TrimSpace(v.Value), k.Line
			case "class":
				p.Class = strings.TrimSpace(v.Value)
			case "description":
				p.Description = v.Value
			case "source":
				p.Source = v.Value
			}
		default:
			raw = append(raw, k, v)
		}
	}
	if p.Name == "" {
		return nil, fmt.Errorf("%s: profile has no name: add name: my-device", at(n))
	}
	if strings.ContainsAny(p.Name, "(),= \t") {
		return nil, fmt.Errorf("%s: profile name %q may not contain spaces, parentheses, commas or =", at(n), p.Name)
	}
	c, ok := classes[p.Class]
	if !ok {
		return nil, fmt.Errorf("%s: profile %q has unknown class %q: use one of %s",
			at(n), p.Name, p.Class, strings.Join(classNames(), ", "))
	}
	for i := 0; i < len(raw); i += 2 {
		k, v := raw[i], raw[i+1]
		f, ok := c.field(k.Value)
		if !ok {
			return nil, fmt.Errorf("%s: unknown field %s for class %s (fields: %s)",
				at(k), k.Value, p.Class, strings.Join(c.fieldNames(), ", "))
		}
		fig, err := parseFigure(f, v, p.Source)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at(v), err)
		}
		fig.Line = v.Line
		p.Fields[f.key] = fig
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p, nil
}

// parseFigure reads a field's value, bare or as {value, source}.
func parseFigure(f field, v *yaml.Node, defSource string) (Figure, error) {
	fig := Figure{Source: defSource}
	val := v
	if v.Kind == yaml.MappingNode {
		val = nil
		for i := 0; i+1 < len(v.Content); i += 2 {
			switch k := v.Content[i]; k.Value {
			case "value":
				val = v.Content[i+1]
			case "source":
				fig.Source = v.Content[i+1].Value
			default:
				return fig, fmt.Errorf("field %s: unknown key %q (use value: and source:)", f.key, k.Value)
			}
		}
		if val == nil {
			return fig, fmt.Errorf("field %s has no value: write %s: {value: ..., source: \"...\"}", f.key, f.key)
		}
	}
	if val.Kind != yaml.ScalarNode {
		return fig, fmt.Errorf("field %s must be a single value", f.key)
	}
	if err := setFigure(f, &fig, val.Value); err != nil {
		return fig, err
	}
	return fig, nil
}

// setFigure parses text for the field. Numbers from files are plain (in the unit of
// the field's name); a command line may add a unit (see parseQuantity).
func setFigure(f field, fig *Figure, text string) error {
	text = strings.TrimSpace(text)
	switch f.kind {
	case kindNumber, kindInteger:
		v, err := parseQuantity(f.key, text)
		if err != nil {
			return fmt.Errorf("field %s: %w", f.key, err)
		}
		fig.Value = v
	case kindBool:
		switch strings.ToLower(text) {
		case "true", "on", "yes", "1":
			fig.Value = 1
		case "false", "off", "no", "0":
			fig.Value = 0
		default:
			return fmt.Errorf("field %s must be true or false (on/off), got %q", f.key, text)
		}
	case kindChoice, kindSpec:
		fig.Text = text
	}
	return f.check(*fig)
}
