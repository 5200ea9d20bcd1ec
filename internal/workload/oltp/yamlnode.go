package oltp

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"tierbench/internal/yamltext"
)

// maxErrors bounds how many validation errors one parse reports.
const maxErrors = 20

// ValidationError is everything wrong with a mix file, one problem a line, each as
// "file:line: field: message".
type ValidationError struct {
	Problems []string
}

func (e *ValidationError) Error() string { return strings.Join(e.Problems, "\n") }

// checker walks yaml.Nodes and collects problems with their file, line and field.
type checker struct {
	yamltext.Problems
}

func (c *checker) errorf(n *yaml.Node, field, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	c.Add(line, field, format, args...)
}

func (c *checker) err() error {
	if c.Len() == 0 {
		return nil
	}
	return &ValidationError{Problems: c.List()}
}

// fields is one mapping node's keys and values; get marks a key as known.
type fields struct {
	node   *yaml.Node
	path   string
	keys   map[string]*yaml.Node
	values map[string]*yaml.Node
	order  []string
}

// mapping reads n as a mapping; allowed lists the keys it may have (others are
// reported as unknown with the list of valid ones).
func (c *checker) mapping(n *yaml.Node, path string, allowed ...string) *fields {
	f := &fields{node: n, path: path, keys: map[string]*yaml.Node{}, values: map[string]*yaml.Node{}}
	if n == nil {
		return f
	}
	if n.Kind != yaml.MappingNode {
		c.errorf(n, path, "must be a mapping of %s", strings.Join(allowed, ", "))
		return f
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, dup := f.values[k.Value]; dup {
			c.errorf(k, yamltext.Field(path, k.Value), "given twice")
			continue
		}
		if len(allowed) > 0 && !contains(allowed, k.Value) {
			c.errorf(k, yamltext.Field(path, k.Value), "unknown field (valid: %s)", strings.Join(sorted(allowed), ", "))
			continue
		}
		f.keys[k.Value], f.values[k.Value] = k, v
		f.order = append(f.order, k.Value)
	}
	return f
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sorted(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}

func (f *fields) has(key string) bool { _, ok := f.values[key]; return ok }

// str reads a scalar text field; required reports a missing one.
func (c *checker) str(f *fields, key string, required bool) string {
	v, ok := f.values[key]
	if !ok {
		if required {
			c.errorf(f.node, yamltext.Field(f.path, key), "missing")
		}
		return ""
	}
	if v.Kind != yaml.ScalarNode {
		c.errorf(v, yamltext.Field(f.path, key), "must be a single value")
		return ""
	}
	return v.Value
}

// num reads a finite number field; def is returned when it is missing.
func (c *checker) num(f *fields, key string, def float64) float64 {
	v, ok := f.values[key]
	if !ok {
		return def
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
	if v.Kind != yaml.ScalarNode || err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		c.errorf(v, yamltext.Field(f.path, key), "%q is not a number", v.Value)
		return def
	}
	return x
}

// integer reads a whole-number field.
func (c *checker) integer(f *fields, key string, def int64) int64 {
	v, ok := f.values[key]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v.Value), 10, 64)
	if v.Kind != yaml.ScalarNode || err != nil {
		c.errorf(v, yamltext.Field(f.path, key), "%q is not a whole number", v.Value)
		return def
	}
	return n
}

func (c *checker) boolean(f *fields, key string) bool {
	v, ok := f.values[key]
	if !ok {
		return false
	}
	switch strings.ToLower(v.Value) {
	case "true", "yes":
		return true
	case "false", "no":
		return false
	}
	c.errorf(v, yamltext.Field(f.path, key), "%q is not true or false", v.Value)
	return false
}

// list reads a sequence field (a missing one is empty).
func (c *checker) list(f *fields, key string) []*yaml.Node {
	v, ok := f.values[key]
	if !ok {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		c.errorf(v, yamltext.Field(f.path, key), "must be a list")
		return nil
	}
	return v.Content
}

// strings reads a list of scalars; a single scalar counts as a list of one.
func (c *checker) strs(f *fields, key string) []string {
	v, ok := f.values[key]
	if !ok {
		return nil
	}
	if v.Kind == yaml.ScalarNode {
		return []string{v.Value}
	}
	var out []string
	for i, e := range c.list(f, key) {
		if e.Kind != yaml.ScalarNode {
			c.errorf(e, yamltext.Item(yamltext.Field(f.path, key), i), "must be a single value")
			continue
		}
		out = append(out, e.Value)
	}
	return out
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ident checks a table, column, index, transaction or parameter name: letters, digits
// and '_', as every engine takes unquoted.
func (c *checker) ident(n *yaml.Node, field, name string) bool {
	if name == "" {
		c.errorf(n, field, "missing")
		return false
	}
	if !identRE.MatchString(name) || len(name) > 63 {
		c.errorf(n, field, "%q: use letters, digits and _ (up to 63, not starting with a digit)", name)
		return false
	}
	return true
}

func (f *fields) at(key string) *yaml.Node {
	if v, ok := f.values[key]; ok {
		return v
	}
	return f.node
}
