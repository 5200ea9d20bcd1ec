package study

import (
	"errors"
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

// syntaxWords say yaml.v3's problems as a study's author reads them: what is wrong
// on the line, and what to write instead.
var syntaxWords = map[string]string{
	"did not find expected ',' or '}'":                             "the '{' opened on this line is not closed: end the mapping with '}', or write its keys as indented lines below",
	"did not find expected ',' or ']'":                             "the '[' opened on this line is not closed: end the list with ']'",
	"did not find expected key":                                    "this line is not a key at the indentation it has: indent it as the keys beside it",
	"did not find expected node content":                           "a value is missing here, or starts with a character YAML reserves: quote it",
	"did not find expected '-' indicator":                          "the items of a list each start with '-' at the same indentation",
	"did not find expected <document start>":                       "text after the study's mapping: a study file is one mapping (name, workload, params, ...)",
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

// syntaxProblem is the line (1 = the first; 0 for the whole file) and the words of a
// YAML syntax error from reading data.
func syntaxProblem(data []byte, err error) (int, string) {
	if errors.Is(err, io.EOF) {
		return 0, "empty: a study needs at least a name and a workload"
	}
	if line, ok := notText(data); ok {
		return line, "not a text file: a study file is YAML text in UTF-8 without control characters; this line holds a byte that is not"
	}
	m := yamlLineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, "not a YAML study file: " + strings.TrimPrefix(err.Error(), "yaml: ")
	}
	line, _ := strconv.Atoi(m[1])
	problem := m[2]
	if parserProblems[problem] {
		line++
	}
	if words, ok := syntaxWords[problem]; ok {
		return line, words
	}
	return line, "not valid YAML: " + problem
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
