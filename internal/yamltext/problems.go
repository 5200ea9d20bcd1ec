package yamltext

import (
	"fmt"
	"slices"
)

// Problems collects what is wrong in a file that is YAML text but says something
// invalid, one line a problem, "FILE:LINE: FIELD: what is wrong", the same way in
// every file kind: without LINE for the whole file (line 0), without FIELD for the
// file's top. Max bounds how many it keeps (0: all), so that a file wrong in every
// entry reports its first mistakes, not a screen of them.
type Problems struct {
	File string
	Max  int
	list []string
}

// Add records the problem at line (1 = the first; 0 for the whole file) in field
// ("" for the top), in the words format and args make.
func (p *Problems) Add(line int, field, format string, args ...any) {
	if p.Max > 0 && len(p.list) >= p.Max {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	if line <= 0 {
		p.list = append(p.list, fmt.Sprintf("%s: %s", p.File, msg))
		return
	}
	p.list = append(p.list, fmt.Sprintf("%s:%d: %s", p.File, line, msg))
}

// Len is how many problems were recorded (up to Max).
func (p *Problems) Len() int { return len(p.list) }

// List is a copy of the problems recorded, in order; nil when there are none.
func (p *Problems) List() []string {
	if len(p.list) == 0 {
		return nil
	}
	return slices.Clone(p.list)
}

// Field is the path of key inside the mapping at path ("tables[0]" and "name" make
// "tables[0].name"; at the top, path is "").
func Field(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Item is the path of a list's i-th entry, from 0 ("factors.users" and 1 make
// "factors.users[1]").
func Item(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }
