package study

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"tierbench/internal/yamltext"
)

// maxProblems bounds how many problems one study file reports.
const maxProblems = 10

// FileError is everything wrong with a study file, one problem a line, each as
// "file:line: field: what is wrong, and what is valid".
type FileError struct {
	Problems []string
}

func (e *FileError) Error() string { return strings.Join(e.Problems, "\n") }

// Pos is where something was written in a study file: its line and its field path
// (factors.users[1]).
type Pos struct {
	Line  int
	Field string
}

// problems collects a file's problems with their positions.
type problems struct {
	yamltext.Problems
}

func newProblems(file string) *problems {
	return &problems{yamltext.Problems{File: file, Max: maxProblems}}
}

func (p *problems) add(pos Pos, format string, args ...any) {
	p.Add(pos.Line, pos.Field, format, args...)
}

func (p *problems) err() error {
	if p.Len() == 0 {
		return nil
	}
	return &FileError{Problems: p.List()}
}

func at(n *yaml.Node, field string) Pos {
	if n == nil {
		return Pos{Field: field}
	}
	return Pos{Line: n.Line, Field: field}
}

// entry is one key of a mapping with its value.
type entry struct {
	key, value *yaml.Node
	field      string
}

// mapping reads n as a mapping in its order; allowed, when given, lists its valid
// keys. Keys given twice and keys not allowed are problems.
func (p *problems) mapping(n *yaml.Node, field string, allowed ...string) []entry {
	if n.Kind != yaml.MappingNode {
		what := "a mapping"
		if len(allowed) > 0 {
			what += " of " + strings.Join(allowed, ", ")
		}
		p.add(at(n, field), "must be %s", what)
		return nil
	}
	var out []entry
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f := yamltext.Field(field, k.Value)
		switch {
		case k.Kind != yaml.ScalarNode || k.Value == "":
			p.add(at(k, field), "a key must be a name")
		case seen[k.Value]:
			p.add(at(k, f), "given twice")
		case len(allowed) > 0 && !slices.Contains(allowed, k.Value):
			p.add(at(k, f), "unknown field: valid fields are %s", strings.Join(allowed, ", "))
		default:
			seen[k.Value] = true
			out = append(out, entry{key: k, value: v, field: f})
		}
	}
	return out
}

// scalar reads a single value.
func (p *problems) scalar(e entry) (string, bool) {
	if e.value.Kind != yaml.ScalarNode || e.value.Tag == "!!null" {
		p.add(at(e.value, e.field), "must be a single value")
		return "", false
	}
	return e.value.Value, true
}

// scalars reads a list of single values; one value alone is a list of one.
func (p *problems) scalars(n *yaml.Node, field string) ([]string, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []string{n.Value}, true
	}
	if n.Kind != yaml.SequenceNode {
		p.add(at(n, field), "must be a value or a list of values")
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	for i, e := range n.Content {
		if e.Kind != yaml.ScalarNode || e.Tag == "!!null" {
			p.add(at(e, yamltext.Item(field, i)), "must be a single value")
			return nil, false
		}
		out = append(out, e.Value)
	}
	return out, true
}

// value reads a parameter's value: one value, or a list for a parameter that takes
// several (--tier, --set, --users).
func (p *problems) value(n *yaml.Node, field string) (Value, bool) {
	vals, ok := p.scalars(n, field)
	return Value{Values: vals, List: n.Kind == yaml.SequenceNode, Pos: at(n, field)}, ok
}
