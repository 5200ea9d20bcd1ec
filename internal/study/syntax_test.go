package study

import (
	"strings"
	"testing"
)

// TestParseSyntaxErrors: a study file that is not YAML, or not one document of text,
// is one line naming the file and the line where the mistake is (none for the whole
// file), in words a study's author reads, without the YAML library's own text.
func TestParseSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"unclosed brace", "name: t\nworkload: oltp\nparams: {mix: bbs\nfactors:\n  users: [1]\n",
			"test.yaml:3: the '{' opened on this line is not closed"},
		{"unclosed bracket", "name: t\nworkload: oltp\nparams: {mix: bbs}\nfactors:\n  users: [1, 2\n",
			"test.yaml:5: the '[' opened on this line is not closed"},
		{"unclosed quote", "name: t\nworkload: oltp\nparams: {mix: \"bbs}\n",
			"test.yaml:3: a quote opened on this line is not closed"},
		{"bad indentation", "name: t\nworkload: oltp\n  bad: indent\n",
			"test.yaml:3: a ':' where no key can start"},
		{"tab", "name: t\n\tworkload: oltp\n",
			"test.yaml:2: a tab in the indentation"},
		{"empty", "", "test.yaml: empty: a study needs at least a name and a workload"},
		{"only comments", "# nothing yet\n", "test.yaml: empty: a study needs at least a name and a workload"},
		{"binary", "name: t\nworkload: oltp\x00\x01\n", "test.yaml:2: not a text file"},
		{"invalid UTF-8", "name: t\nworkload: oltp\nnotes: [caf\xe9]\n", "test.yaml:3: not a text file"},
		{"two documents", "name: t\nworkload: oltp\n---\nname: u\n", "test.yaml:3: a second YAML document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("test.yaml", []byte(tc.src))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line beginning %q", err, tc.want)
			}
			if rest := strings.TrimPrefix(err.Error(), "test.yaml"); strings.Contains(rest, "yaml:") || strings.HasPrefix(rest, ":0:") || strings.Contains(rest, "EOF") {
				t.Errorf("error %q shows the library's text or line 0", err)
			}
		})
	}
}

// TestExpandReferenceMistakes: an unclosed ${...} and a plain value among a factor's
// map levels are each named for what they are, not as an unknown factor.
func TestExpandReferenceMistakes(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string
	}{
		{"unclosed reference", "name: t\nworkload: oltp\nparams: {mix: bbs}\nfactors:\n  dev: [sata-ssd]\n  p:\n    - {label: x, data: \"${dev\"}\n",
			`test.yaml:7: factors.p[0].data: "${dev": the reference ${dev is not closed: write ${dev}`},
		{"plain level among maps", "name: t\nworkload: oltp\nparams: {mix: bbs}\nfactors:\n  conf:\n    - {label: a, data: sata-ssd}\n    - hdd-7200\n",
			`test.yaml:7: factors.conf[1]: "hdd-7200" is a plain value, which would set a parameter conf, and oltp has none: write it as a map with a label as the factor's other values are, e.g. {label: hdd-7200, data: hdd-7200}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := expand(t, tc.src, "")
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %q,\nwant   %q", err, tc.want)
			}
		})
	}
}
