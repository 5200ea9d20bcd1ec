// Package yamltext says a YAML syntax error in words the author of a file reads:
// the line where the mistake is and what to write instead, never the YAML library's
// own text ("yaml: line 3: did not find expected ',' or '}'") nor its "EOF". Every
// file tierbench reads as YAML (studies, mixes, device profiles, price tables) says
// its syntax errors through it. Problems says, the same way for every file kind,
// what is wrong in a file that is YAML but invalid: "file:line: field: what". It
// imports nothing of tierbench, so that every package, the leaves too, may use it.
package yamltext

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// yamlLineRE reads the line yaml.v3 puts in its syntax errors ("yaml: line 3: ...").
var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are the problems yaml.v3's parser (not its scanner) reports. For
// these it names the line of what was open when it failed (the '{' of a mapping that
// never closes), counted from 0, where its scanner's problems count from 1.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found undefined tag handle":             true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// syntaxWords say yaml.v3's problems as a file's author reads them: what is wrong
// on the line, and what to write instead.
var syntaxWords = map[string]string{
	"did not find expected ',' or '}'":                             "the '{' opened on this line is not closed: end the mapping with '}', or write its keys as indented lines below",
	"did not find expected ',' or ']'":                             "the '[' opened on this line is not closed: end the list with ']'",
	"did not find expected key":                                    "this line is not a key at the indentation it has: indent it as the keys beside it",
	"did not find expected node content":                           "a value is missing here, or starts with a character YAML reserves: quote it",
	"did not find expected '-' indicator":                          "the items of a list each start with '-' at the same indentation",
	"mapping values are not allowed in this context":               "a ':' where no key can start: indent this line as the keys beside it, or quote a value that holds ': '",
	"found a tab character that violates indentation":              "a tab in the indentation: YAML indents with spaces",
	"found a tab character where an indentation space is expected": "a tab in the indentation: YAML indents with spaces",
	"found character that cannot start any token":                  "a character that cannot start a value (such as '@', '`' or a tab): quote the value",
	"found unexpected end of stream":                               "a quote opened on this line is not closed: end the value with the same quote",
	"could not find expected ':'":                                  "a key without ':' after it: write KEY: VALUE",
	"block sequence entries are not allowed in this context":       "a '- ' item where a value was given already: put the list's items on the lines below the key",
	"did not find expected alphabetic or numeric character":        "'&' and '*' start YAML anchors and aliases: quote the value",
	"found unknown escape character":                               "an unknown '\\' escape in a double-quoted value: write '\\\\', or use single quotes",
}

// Doc describes a kind of YAML file for the words of its errors.
type Doc struct {
	// What the file is, as a sentence's subject: "a study file", "a mix".
	What string
	// Empty says what an empty file (or one of comments only) lacks.
	Empty string
	// Holds is what the file is made of: "one mapping (name, workload, ...)".
	Holds string
}

// SyntaxError is a file that is not YAML text: File, Line (1 = the first; 0 for the
// whole file) and the words that say what is wrong.
type SyntaxError struct {
	File  string
	Line  int
	Words string
}

func (e *SyntaxError) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Words)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Words)
}

// Error is err, from decoding data (the text of file), as a *SyntaxError.
func (d Doc) Error(file string, data []byte, err error) *SyntaxError {
	line, words := d.Problem(data, err)
	return &SyntaxError{File: file, Line: line, Words: words}
}

// Problem is the line (1 = the first; 0 for the whole file) and the words of a YAML
// syntax error from decoding data.
func (d Doc) Problem(data []byte, err error) (int, string) {
	if errors.Is(err, io.EOF) {
		return 0, "empty: " + d.Empty
	}
	if line, ok := notText(data); ok {
		return line, "not a text file: " + d.What + " is YAML text in UTF-8 without control characters; this line holds a byte that is not"
	}
	m := yamlLineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, "not YAML, as " + d.What + " must be: " + strings.TrimPrefix(err.Error(), "yaml: ")
	}
	line, _ := strconv.Atoi(m[1])
	problem := m[2]
	if parserProblems[problem] {
		line++
	}
	if parserProblems[problem] {
		// A '{' or '[' that never closes makes the parser fail where it gave up, and
		// yaml.v3's line is not always the opener's (on a file's first line it names
		// the second): the text says where the flow that never closes opened.
		if l, c := unclosedFlow(data); l > 0 {
			if c == '{' {
				return l, syntaxWords["did not find expected ',' or '}'"]
			}
			return l, syntaxWords["did not find expected ',' or ']'"]
		}
	}
	if strings.HasPrefix(problem, "found a tab character") {
		// yaml.v3 names the line before the tab at times: find the tab.
		if l := tabIndent(data); l > 0 {
			line = l
		}
	}
	if problem == "found unexpected end of stream" {
		// yaml.v3 names the line where the file ended; the mistake is where the quote
		// that never closed was opened.
		if l := unclosedQuote(data); l > 0 {
			line = l
		}
	}
	if problem == "did not find expected <document start>" {
		return line, "text after the file's first value: " + d.What + " is " + d.Holds
	}
	if words, ok := syntaxWords[problem]; ok {
		return line, words
	}
	return line, "not valid YAML: " + problem
}

// unclosedQuote is the last line (1 = the first), outside comments, that holds an odd
// number of double quotes, or else of single quotes: where a quoted value that never
// closes begins; 0 if none does. Double quotes first, since an apostrophe in a later
// line's text is not a quote that opens a value.
func unclosedQuote(data []byte) int {
	lines := strings.Split(string(data), "\n")
	for _, q := range []string{`"`, "'"} {
		for i := len(lines) - 1; i >= 0; i-- {
			if l := lines[i]; !strings.HasPrefix(strings.TrimSpace(l), "#") && strings.Count(l, q)%2 == 1 {
				return i + 1
			}
		}
	}
	return 0
}

// unclosedFlow is the line (1 = the first) and the character of the outermost '{' or
// '[' that is never closed, outside quoted values and comments; 0 if every one closes.
func unclosedFlow(data []byte) (int, byte) {
	type opener struct {
		line int
		c    byte
	}
	var open []opener // the openers not yet closed
	line, quote := 1, byte(0)
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '\n':
			line++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n'):
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case c == '{' || c == '[':
			open = append(open, opener{line, c})
		case (c == '}' || c == ']') && len(open) > 0:
			open = open[:len(open)-1]
		}
	}
	if len(open) == 0 {
		return 0, 0
	}
	return open[0].line, open[0].c
}

// tabIndent is the first line (1 = the first) whose indentation holds a tab; 0 if
// none does.
func tabIndent(data []byte) int {
	for i, l := range strings.Split(string(data), "\n") {
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if strings.Contains(indent, "\t") && strings.TrimSpace(l) != "" {
			return i + 1
		}
	}
	return 0
}

// notText finds the first line of data that holds invalid UTF-8 or a control character
// YAML refuses (all but tab, line feed and carriage return).
func notText(data []byte) (int, bool) {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return line, true
		case r == '\n':
			line++
		case r < 0x20 && r != '\t' && r != '\r', r == 0x7f:
			return line, true
		case r == 0xFEFF && i == 0: // a byte order mark
		}
		i += size
	}
	return 0, false
}
