package oltp

import (
	"math"
	"strings"
	"testing"

	"tierbench/internal/engine"
)

func TestBundledMixesParse(t *testing.T) {
	names := Bundled()
	want := []string{"bbs", "ecommerce", "ecommerce-images", "point-select", "policy", "policy-synchronized"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("bundled mixes %v, want %v", names, want)
	}
	for _, name := range names {
		m, err := Open(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Name != name || m.File != "bundled:"+name || len(m.SHA256) != 64 {
			t.Errorf("%s: name %q file %q hash %q", name, m.Name, m.File, m.SHA256)
		}
	}
	ps, _ := Open("point-select")
	if n := ps.Table("sbtest1").RowsAt(ps.Scale); n != 1_000_000 {
		t.Errorf("point-select has %d rows at scale 1, want 1,000,000", n)
	}
	if len(ps.Transactions) != 1 || len(ps.Transactions[0].Statements) != 1 {
		t.Error("point-select must be one statement in one transaction")
	}
}

func TestBundledWeights(t *testing.T) {
	for name, want := range map[string]map[string]float64{
		"policy": {"read_policy": 40, "new_policy": 30, "renew_policy": 30},
	} {
		m, err := Open(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range m.Transactions {
			if want[tx.Name] != tx.Weight {
				t.Errorf("%s: %s weight %v, want %v", name, tx.Name, tx.Weight, want[tx.Name])
			}
		}
	}
	m, _ := Open("ecommerce")
	var reads, all float64
	for _, tx := range m.Transactions {
		all += tx.Weight
		if tx.ReadOnly() {
			reads += tx.Weight
		}
	}
	if reads/all != 0.95 {
		t.Errorf("ecommerce reads %v%%, want 95%%", 100*reads/all)
	}
}

// base is a valid mix; each case edits one line and expects one error at that line.
const base = `name: t
tables:
  - name: a
    rows: 10
    columns:
      - {name: id, type: int, value: sequence}
      - {name: v, type: varchar(10), value: {dist: text, pattern: "##"}}
    primary_key: id
transactions:
  - name: one
    weight: 1
    params:
      id: {dist: key, table: a}
    statements:
      - name: s
        sql: SELECT v FROM a WHERE id = :id
  - name: two
    weight: 1
    statements:
      - name: s
        sql: SELECT 1
`

func TestValidationErrors(t *testing.T) {
	if _, err := Parse("base.yaml", []byte(base)); err != nil {
		t.Fatalf("the base mix is invalid: %v", err)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"negative weight", "    weight: 1\n    params", "    weight: -2\n    params", "base.yaml:11: transactions[0].weight: must be >= 0"},
		{"all weights zero", "    weight: 1\n", "    weight: 0\n", "base.yaml:9: transactions: every weight is 0"},
		{"weight not a number", "    weight: 1\n    params", "    weight: lots\n    params", `base.yaml:11: transactions[0].weight: "lots" is not a number`},
		{"unknown distribution", "{dist: key, table: a}", "{dist: gaussian, table: a}", `base.yaml:13: transactions[0].params.id.dist: unknown distribution "gaussian" (valid: bytes, choice, const, date, key,`},
		{"unknown parameter", "WHERE id = :id", "WHERE id = :idd", "base.yaml:16: transactions[0].statements[0].sql: unknown parameter :idd"},
		{"missing table in sql", "SELECT v FROM a", "SELECT v FROM b", `base.yaml:16: transactions[0].statements[0].sql: table "b" is not declared under tables`},
		{"missing table in key", "{dist: key, table: a}", "{dist: key, table: nope}", `base.yaml:13: transactions[0].params.id.table: no table "nope" in the mix`},
		{"unknown field", "    rows: 10", "    rows: 10\n    rowz: 3", "base.yaml:5: tables[0].rowz: unknown field (valid: columns, fixed, indexes, name, primary_key, rows)"},
		{"bad type", "type: varchar(10)", "type: string", `base.yaml:7: tables[0].columns[1].type: unknown type "string"`},
		{"varchar without length", "type: varchar(10)", "type: varchar", "base.yaml:7: tables[0].columns[1].type: type varchar needs a length"},
		{"primary key column", "primary_key: id", "primary_key: idx", `base.yaml:8: tables[0].primary_key: no column "idx" in table a`},
		{"separator in population text", `pattern: "##"`, `pattern: "#|#"`, `base.yaml:7: tables[0].columns[1].value: "#|#": the population's text may not contain |`},
		{"now in population", `{dist: text, pattern: "##"}`, `now`, "base.yaml:7: tables[0].columns[1].value: now is not reproducible"},
		{"min above max", "{dist: key, table: a}", "{dist: uniform, min: 5, max: 1}", "base.yaml:13: transactions[0].params.id.min: 5 is above max 1"},
		{"question mark placeholder", "WHERE id = :id", "WHERE id = ?", "base.yaml:16: transactions[0].statements[0].sql: write parameters as :name"},
		{"on_empty without into", "        sql: SELECT 1\n", "        sql: SELECT 1\n        on_empty: skip\n", "base.yaml:22: transactions[1].statements[0].on_empty: only a statement with into: can find no row"},
		{"duplicate transaction", "  - name: two", "  - name: one", `base.yaml:17: transactions[1].name: transaction "one" declared twice`},
		{"zipfian theta", "{dist: key, table: a}", "{dist: zipfian, min: 1, max: 9, theta: 0}", "base.yaml:13: transactions[0].params.id.theta: must be above 0"},
		{"nurand without a", "{dist: key, table: a}", "{dist: nurand, min: 1, max: 9}", "base.yaml:13: transactions[0].params.id.a: give A of NURand(A, x, y)"},
		{"sequence divide in a parameter", "{dist: key, table: a}", "{dist: sequence, divide: 2}", "base.yaml:13: transactions[0].params.id: divide: and cycle: are for the population only"},
		{"missing sql", "        sql: SELECT 1\n", "", "base.yaml:20: transactions[1].statements[0].sql: missing"},
		// These used to load 1 row and report success.
		{"rows past int64's float", "    rows: 10", "    rows: 9223372036854775807", "base.yaml:4: tables[0].rows: 9223372036854775807 is more than the 9007199254740992 (2^53) rows a table may have"},
		{"rows x scale", "name: t\n", "name: t\nscale: 1e15\n", "base.yaml:2: scale: table a would have 1e+16 rows (rows: 10 x scale 1e+15), more than the 9007199254740992 (2^53) a table may have"},
		{"scale NaN", "name: t\n", "name: t\nscale: .nan\n", `base.yaml:2: scale: ".nan" is not a number`},
		{"rows not whole", "    rows: 10", "    rows: 1e12", `base.yaml:4: tables[0].rows: "1e12" is not a whole number`},
		{"unknown dialect", "        sql: SELECT 1\n", "        sql: SELECT 1\n        dialects: {oracle: SELECT 1 FROM dual}\n", "base.yaml:22: transactions[1].statements[0].dialects.oracle: unknown field (valid: mysql, postgres, sqlite)"},
		{"zipfian reverse and scramble", "{dist: key, table: a}", "{dist: zipfian, table: a, reverse: true, scramble: true}", "base.yaml:13: transactions[0].params.id.scramble: give reverse: or scramble:, not both"},
		{"blob without bytes", "type: varchar(10)", "type: blob", "base.yaml:7: tables[0].columns[1].value: column v is a blob: fill it with {dist: bytes, min: SIZE, max: SIZE}"},
		{"bytes in a varchar", `{dist: text, pattern: "##"}`, "{dist: bytes, min: 1, max: 2}", "base.yaml:7: tables[0].columns[1].value: the bytes distribution fills blob columns only; column v is varchar(10)"},
		{"bytes above 4 MiB", "{dist: key, table: a}", "{dist: bytes, min: 1, max: 4194305}", "base.yaml:13: transactions[0].params.id.max: 4194305 bytes is more than the 4194304 (4 MiB) a value may have"},
		{"bytes without max", "{dist: key, table: a}", "{dist: bytes, min: 1}", "base.yaml:13: transactions[0].params.id: give min: and max:, the size of a value in bytes"},
		{"bytes min above max", "{dist: key, table: a}", "{dist: bytes, min: 9, max: 1}", "base.yaml:13: transactions[0].params.id.min: 9 is above max 1"},
		{"blob key", "type: varchar(10), value: {dist: text, pattern: \"##\"}}\n    primary_key: id", "type: bytea, value: {dist: bytes, min: 1, max: 2}}\n    primary_key: v", "base.yaml:8: tables[0].primary_key: column v is a blob, which cannot be a key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 1
			if tc.name == "all weights zero" {
				n = -1
			}
			src := strings.Replace(base, tc.old, tc.new, n)
			if src == base && tc.old != tc.new {
				t.Fatalf("the edit %q did not apply", tc.old)
			}
			_, err := Parse("base.yaml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant one containing:\n%s", err, tc.want)
			}
		})
	}
}

// TestCheckScale: scale factors a load accepts, against the hand-computed rows of a
// table of 10 rows at scale 1.
func TestCheckScale(t *testing.T) {
	m, err := Parse("base.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scale float64
		rows  int64
		want  string // "" for accepted
	}{
		{1, 10, ""}, {0.05, 1, ""}, {0.01, 1, ""}, {2.5, 25, ""},
		{1e14, 1e15, ""},
		{1e15, 0, "table a would have 1e+16 rows (rows: 10 x scale 1e+15), more than the 9007199254740992 (2^53) a table may have"},
		{1e300, 0, "table a would have 1e+301 rows"},
		{0, 0, "give a finite factor above 0"},
		{-1, 0, "give a finite factor above 0"},
		{math.NaN(), 0, "give a finite factor above 0"},
		{math.Inf(1), 0, "give a finite factor above 0"},
	} {
		err := m.CheckScale(c.scale)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("scale %v: %v", c.scale, err)
		case c.want == "" && m.Tables[0].RowsAt(c.scale) != c.rows:
			t.Errorf("scale %v: %d rows, want %d", c.scale, m.Tables[0].RowsAt(c.scale), c.rows)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("scale %v: error %v, want %q", c.scale, err, c.want)
		}
	}
	// Load refuses the same scales before it touches the database.
	if _, err := Load(t.Context(), nil, m, LoadConfig{Scale: math.NaN()}); err == nil || !strings.Contains(err.Error(), "mix t: scale NaN: give a finite factor above 0") {
		t.Errorf("Load at scale NaN: %v", err)
	}
}

func TestPopulationKeyNeedsSequence(t *testing.T) {
	src := strings.Replace(base, "      - {name: v, type: varchar(10), value: {dist: text, pattern: \"##\"}}",
		"      - {name: v, type: varchar(10), value: {dist: text, pattern: \"##\"}}\n      - {name: r, type: int, value: {dist: key, table: a}}", 1)
	src = strings.Replace(src, "{name: id, type: int, value: sequence}", "{name: id, type: int, value: {dist: sequence, start: 5}}", 1)
	_, err := Parse("k.yaml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "k.yaml:8: tables[0].columns[2].value.table: table a needs a one-column primary key filled by {dist: sequence} from 1") {
		t.Fatalf("error = %v", err)
	}
}

func TestParseReportsSeveralErrors(t *testing.T) {
	src := strings.Replace(base, "    weight: 1\n    params", "    weight: -1\n    params", 1)
	src = strings.Replace(src, "WHERE id = :id", "WHERE id = :nope", 1)
	_, err := Parse("two.yaml", []byte(src))
	ve, ok := err.(*ValidationError)
	if !ok || len(ve.Problems) != 2 {
		t.Fatalf("want 2 problems, got %v", err)
	}
}

// TestParseNotYAML: a mix that is not YAML is one line naming the file and the line
// of the mistake in words, not yaml.v3's own text or its "EOF".
func TestParseNotYAML(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", "x.yaml: empty: a mix needs name:, tables: and transactions:"},
		{"# only a comment\n", "x.yaml: empty: a mix needs name:, tables: and transactions:"},
		{"name: bbs\ntables: [unclosed\n", "x.yaml:2: the '[' opened on this line is not closed"},
		{"name: bbs\ntables: {a: b\ntransactions: []\n", "x.yaml:2: the '{' opened on this line is not closed"},
		{"name: bbs\n\ttables: []\n", "x.yaml:2: a tab in the indentation"},
		{"- a\n- b\n", "x.yaml"},
	} {
		_, err := Parse("x.yaml", []byte(tc.src))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), ": yaml: ") || strings.Contains(err.Error(), "EOF") {
			t.Errorf("Parse(%q) error = %v, want one beginning %q in words", tc.src, err, tc.want)
		}
	}
}

func TestOpen(t *testing.T) {
	if _, err := Open("no-such-mix"); err == nil || !strings.Contains(err.Error(), "bbs, ecommerce, ecommerce-images, point-select, policy, policy-synchronized") {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := Open("./missing.yaml"); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
	m, err := Open("testdata/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if m.File != "testdata/tiny.yaml" || !m.Transactions[1].Statements[0].Query || m.Transactions[1].ReadOnly() {
		t.Errorf("tiny: %+v", m)
	}
}

// TestDiskBytes against hand arithmetic for base's table a: id int (4 bytes), v
// varchar(10) filled by the pattern "##" (2 characters and a 2-byte length), primary
// key id. A row: 32 (header) + 4 + 4, its primary key entry 4 + 16: 60 bytes, 75 with
// the 25% for part-empty pages. A secondary index on v adds 4 + 4 (the key and the
// primary key) + 16 = 24: 84, 105 with the slack. Plus 1 GiB for the engine's log.
func TestDiskBytes(t *testing.T) {
	m, err := Parse("base.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	got, err := DiskBytes(m, 1000) // 10,000 rows
	if want := 10_000*75.0 + 1<<30; err != nil || got != want {
		t.Errorf("DiskBytes = %v, %v; want %v", got, err, want)
	}
	ix := strings.Replace(base, "    primary_key: id\n", "    primary_key: id\n    indexes:\n      - {columns: [v]}\n", 1)
	if m, err = Parse("ix.yaml", []byte(ix)); err != nil {
		t.Fatal(err)
	}
	got, err = DiskBytes(m, 1000)
	if want := 10_000*105.0 + 1<<30; err != nil || got != want {
		t.Errorf("with an index on v: DiskBytes = %v, %v; want %v", got, err, want)
	}
	// A blob column drawn from 1000 to 3000 bytes stores 2000 on average and a 4-byte
	// length: 2004 more a row, 2505 with the slack.
	blob := strings.Replace(base, "    primary_key: id\n", "    primary_key: id\n", 1)
	blob = strings.Replace(blob, `{dist: text, pattern: "##"}}`, `{dist: text, pattern: "##"}}
      - {name: img, type: blob, value: {dist: bytes, min: 1000, max: 3000}}`, 1)
	mb, err := Parse("blob.yaml", []byte(blob))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := DiskBytes(mb, 1000); err != nil || got != 10_000*(75.0+2505)+1<<30 {
		t.Errorf("with a blob: DiskBytes = %v, %v; want %v", got, err, 10_000*(75.0+2505)+1<<30)
	}
	// A table of 10^12 rows (rows: 1e12 used to start a multi-terabyte load).
	need, err := LoadNeed(m, 1e11, 1, &engine.Dialect{Name: "sqlite"}, false, "/srv")
	if err != nil || need.Disk != 1e12*105+1<<30 || need.DiskDir != "/srv" || need.What != "oltp load --mix t --scale 1e+11" {
		t.Errorf("LoadNeed: %+v, %v", need, err)
	}
	if need, _ := LoadNeed(m, 1, 1, &engine.Dialect{Name: "postgres"}, true, ""); need.Disk != 0 {
		t.Errorf("an external server's disk is not this host's: %+v", need)
	}
}
