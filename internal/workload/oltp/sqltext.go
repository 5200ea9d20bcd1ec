package oltp

import (
	"fmt"
	"strings"

	"tierbench/internal/engine"
)

// token is a piece of a statement: text to copy, or a :name placeholder.
type token struct {
	text  string
	param bool
}

// scanSQL splits a statement at its :name placeholders, leaving string literals,
// quoted identifiers, comments and PostgreSQL's :: casts alone.
func scanSQL(q string) ([]token, error) {
	var out []token
	start := 0
	i := 0
	for i < len(q) {
		ch := q[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			j := i + 1
			for ; j < len(q); j++ {
				if q[j] == ch {
					if j+1 < len(q) && q[j+1] == ch { // doubled quote
						j++
						continue
					}
					break
				}
			}
			if j >= len(q) {
				return nil, fmt.Errorf("unterminated %c quote", ch)
			}
			i = j + 1
		case ch == '-' && i+1 < len(q) && q[i+1] == '-':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case ch == ':' && i+1 < len(q) && q[i+1] == ':':
			i += 2
		case ch == ':' && i+1 < len(q) && isIdentStart(q[i+1]):
			j := i + 1
			for j < len(q) && isIdentPart(q[j]) {
				j++
			}
			if i > start {
				out = append(out, token{text: q[start:i]})
			}
			out = append(out, token{text: q[i+1 : j], param: true})
			i, start = j, j
		case ch == '?' || ch == '$' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			return nil, fmt.Errorf("write parameters as :name, not %q: tierbench turns :name into each engine's placeholder", q[i:min(i+2, len(q))])
		default:
			i++
		}
	}
	if start < len(q) {
		out = append(out, token{text: q[start:]})
	}
	return out, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// placeholders lists the parameter names a statement uses, in order of appearance.
func placeholders(q string) ([]string, error) {
	toks, err := scanSQL(q)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range toks {
		if t.param {
			out = append(out, t.text)
		}
	}
	return out, nil
}

// bindSQL turns :name placeholders into the dialect's and returns the names of the
// arguments in the order the engine takes them. A name used twice is one argument
// where placeholders are numbered ($1), two where they are positional (?).
func bindSQL(d *engine.Dialect, q string) (string, []string, error) {
	toks, err := scanSQL(q)
	if err != nil {
		return "", nil, err
	}
	numbered := d.Param(1) != d.Param(2)
	var b strings.Builder
	var args []string
	pos := map[string]int{}
	for _, t := range toks {
		if !t.param {
			b.WriteString(t.text)
			continue
		}
		if n, ok := pos[t.text]; ok && numbered {
			b.WriteString(d.Param(n))
			continue
		}
		args = append(args, t.text)
		pos[t.text] = len(args)
		b.WriteString(d.Param(len(args)))
	}
	return b.String(), args, nil
}

// tablesIn lists the names that follow FROM, JOIN, INTO and UPDATE outside
// parentheses: the tables a statement uses (of a comma-joined list only the first).
// Parentheses are skipped so that EXTRACT(YEAR FROM d) names no table.
func tablesIn(q string) []string {
	toks, err := scanSQL(q)
	if err != nil {
		return nil
	}
	var words []string
	for _, t := range toks {
		if t.param {
			words = append(words, ":")
			continue
		}
		text := stripQuoted(t.text)
		w := 0
		for i := 0; i <= len(text); i++ {
			if i < len(text) && isIdentPart(text[i]) {
				continue
			}
			if i > w {
				words = append(words, text[w:i])
			}
			if i < len(text) && (text[i] == '(' || text[i] == ')') {
				words = append(words, text[i:i+1])
			}
			w = i + 1
		}
	}
	var out []string
	depth := 0
	for i, w := range words {
		switch w {
		case "(":
			depth++
			continue
		case ")":
			depth--
			continue
		}
		if depth != 0 || i+1 >= len(words) {
			continue
		}
		switch strings.ToUpper(w) {
		case "FROM", "JOIN", "INTO", "UPDATE":
			next := words[i+1]
			if !identRE.MatchString(next) {
				continue
			}
			if kw := strings.ToUpper(next); kw == "LATERAL" || kw == "ONLY" {
				continue
			}
			out = append(out, next)
		}
	}
	return out
}

// stripQuoted blanks out string literals so that words inside them are not taken for
// table names.
func stripQuoted(s string) string {
	b := []byte(s)
	in := byte(0)
	for i, c := range b {
		switch {
		case in == 0 && c == '\'':
			in = c
		case in != 0 && c == in:
			in = 0
		case in != 0:
			b[i] = ' '
		}
	}
	return string(b)
}
