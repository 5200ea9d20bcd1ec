package yamltext

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var testDoc = Doc{What: "a test file", Empty: "a test file needs a name", Holds: "one mapping (name, ...)"}

// decode is the first problem yaml.v3 finds in src, read as the readers read it.
func decode(t *testing.T, src string) error {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader([]byte(src)))
	var doc yaml.Node
	err := dec.Decode(&doc)
	if err == nil {
		err = dec.Decode(&doc)
	}
	if err == nil {
		t.Fatalf("%q decodes without an error", src)
	}
	return err
}

// TestProblem: each kind of syntax error is the line of the mistake, counted from 1
// (yaml.v3's parser counts its own from 0, its scanner from 1), in the file's words,
// without the library's "yaml:" or "EOF".
func TestProblem(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line      int
		words     string
	}{
		{"unclosed brace", "name: t\nparams: {a: b\nx: 1\n", 2, "the '{' opened on this line is not closed"},
		{"unclosed bracket", "name: t\nlist: [1, 2\n", 2, "the '[' opened on this line is not closed"},
		{"unclosed brace on the first line", "a: {b: {c: 1}\n", 1, "the '{' opened on this line is not closed"},
		{"unclosed brace after closed ones", "a: {b: 1}\nc: \"{\" # {\nd: [1, {e: 2}\nf: 3\n", 3, "the '[' opened on this line is not closed"},
		{"tab", "name: t\n\tother: 1\n", 2, "a tab in the indentation"},
		{"unclosed quote", "name: \"t\n", 1, "a quote opened on this line is not closed"},
		{"unclosed quote, an apostrophe below", "a: 1\nname: \"t\nnote: it's\n", 2, "a quote opened on this line is not closed"},
		{"empty", "", 0, "empty: a test file needs a name"},
		{"text after", "a: 1\n...\nb\n: c\n", 3, "text after the file's first value: a test file is one mapping (name, ...)"},
		{"binary", "a: 1\nb: \x00\n", 2, "not a text file: a test file is YAML text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := decode(t, tc.src)
			line, words := testDoc.Problem([]byte(tc.src), err)
			if line != tc.line || !strings.HasPrefix(words, tc.words) {
				t.Errorf("%q: line %d, %q; want line %d, %q (yaml.v3 said %q)", tc.src, line, words, tc.line, tc.words, err)
			}
			if strings.Contains(words, "yaml:") || strings.Contains(words, "EOF") {
				t.Errorf("%q: the library's text in %q", tc.src, words)
			}
		})
	}
}

// TestSyntaxError: the error is a *SyntaxError that names the file and the line,
// and the whole file (no line 0) when the problem has no line.
func TestSyntaxError(t *testing.T) {
	src := "name: t\nparams: {a: b\n"
	var err error = testDoc.Error("x.yaml", []byte(src), decode(t, src))
	var se *SyntaxError
	if !errors.As(err, &se) || se.File != "x.yaml" || se.Line != 2 {
		t.Fatalf("%#v", err)
	}
	if got := err.Error(); !strings.HasPrefix(got, "x.yaml:2: the '{' opened") {
		t.Errorf("%q", got)
	}
	if got := testDoc.Error("x.yaml", nil, io.EOF).Error(); got != "x.yaml: empty: a test file needs a name" {
		t.Errorf("empty: %q", got)
	}
}
