package tpch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tierbench/internal/engine"
)

// validateReference returns a deep copy of the TPC's answer of query q, to perturb.
func validateReference(t *testing.T, q int) *engine.Rows {
	t.Helper()
	ref, err := loadReferenceAnswers()
	if err != nil {
		t.Fatal(err)
	}
	src := ref.rows[q]
	rows := &engine.Rows{Columns: slices.Clone(src.Columns)}
	for _, r := range src.Data {
		rows.Data = append(rows.Data, slices.Clone(r))
	}
	return rows
}

func TestAnswerFilesEmbedded(t *testing.T) {
	ref, err := loadReferenceAnswers()
	if err != nil {
		t.Fatal(err)
	}
	for q := 1; q <= queryCount; q++ {
		// The embedded copies must be the TPC's files, byte for byte (checked where the
		// shared reference tree sits next to the repository).
		name := fmt.Sprintf("q%d.out", q)
		embedded, err := answerFiles.ReadFile("answers/" + name)
		if err != nil {
			t.Fatal(err)
		}
		shared, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "reference", "tpch", "answers", name))
		if err == nil && string(shared) != string(embedded) {
			t.Errorf("answers/%s differs from the TPC's reference file", name)
		}
		lines := strings.Count(string(embedded), "\n")
		if got := len(ref.rows[q].Data); got != lines-1 {
			t.Errorf("Q%d: parsed %d rows from %d lines", q, got, lines)
		}
		if len(ref.classes[q]) != len(ref.rows[q].Columns) {
			t.Errorf("Q%d: %d column classes for %d columns", q, len(ref.classes[q]), len(ref.rows[q].Columns))
		}
		for _, k := range answerOrderKeys[q] {
			if k >= len(ref.classes[q]) {
				t.Errorf("Q%d: ORDER BY key column %d out of range", q, k)
			}
		}
	}
	// Spot checks of the TPC's padded format.
	q3 := ref.rows[3]
	if want := []string{"l_orderkey", "revenue", "o_orderdat", "o_shippriority"}; !slices.Equal(q3.Columns, want) {
		t.Errorf("Q3 columns = %q, want %q", q3.Columns, want)
	}
	if want := []string{"2456423", "406181.01", "1995-03-05", "0"}; !slices.Equal(q3.Data[0], want) {
		t.Errorf("Q3 row 1 = %q, want %q", q3.Data[0], want)
	}
	if n := len(ref.rows[16].Data); n != 18314 {
		t.Errorf("Q16 has %d rows, want 18314", n)
	}
}

func TestCheckAnswerReferencePasses(t *testing.T) {
	for q := 1; q <= queryCount; q++ {
		if msgs := CheckAnswer(q, validateReference(t, q)); len(msgs) > 0 {
			t.Errorf("Q%d: the reference answer itself fails: %q", q, msgs)
		}
	}
}

func TestCheckAnswerCells(t *testing.T) {
	for _, tc := range []struct {
		name     string
		q        int
		row, col int    // 1-based row, 0-based column
		value    string // replaces the cell
		want     string // the single expected message, "" when the value is within tolerance
	}{
		// SUM: within $100 (Clause 2.1.3.5 c).
		{"sum within 100", 3, 4, 1, "384637.93", ""},
		{"sum beyond 100", 3, 4, 1, "384637.95",
			`Q3 row 4 column revenue: got "384637.95", want "384537.94" (tolerance: within 100)`},
		{"sum as float", 6, 1, 0, "1.2314107823e+08", ""},
		// SUM(l_quantity) in Q1 and Q18 is exact, as Q12's counting SUMs.
		{"Q1 sum_qty exact", 1, 2, 2, "991418.00",
			`Q1 row 2 column sum_qty: got "991418.00", want "991417.00" (tolerance: exact to 0.01)`},
		{"Q1 sum_qty other form", 1, 1, 2, "3.7734107e+07", ""},
		{"Q18 sum(l_quantity) exact", 18, 3, 5, "305",
			`Q18 row 3 column col6: got "305", want "304.00" (tolerance: exact to 0.01)`},
		{"Q12 counting sum exact", 12, 1, 1, "6203",
			`Q12 row 1 column high_line_count: got "6203", want "6202" (tolerance: exact to 0.01)`},
		{"Q12 counting sum as decimal", 12, 2, 2, "9262.0", ""},
		// AVG and ratios: 0.99*v <= round(r,2) <= 1.01*v (Clause 2.1.3.5 b, d).
		{"avg within 1%", 1, 1, 6, "25.7649", ""},
		{"avg beyond 1%", 1, 1, 6, "25.78",
			`Q1 row 1 column avg_qty: got "25.78", want "25.52" (tolerance: within 1% after rounding to 0.01)`},
		{"avg rounds first", 1, 1, 8, "0.0549999", ""},
		{"avg rounded out", 1, 1, 8, "0.0551",
			`Q1 row 1 column avg_disc: got "0.0551", want "0.05" (tolerance: within 1% after rounding to 0.01)`},
		{"ratio unrounded", 8, 1, 1, "0.03443589040665479743", ""},
		{"ratio beyond", 8, 1, 1, "0.036",
			`Q8 row 1 column mkt_share: got "0.036", want "0.03" (tolerance: within 1% after rounding to 0.01)`},
		{"Q14 ratio", 14, 1, 0, "16.5438", ""},
		// Counts and keys exact (Clause 2.1.3.5 a), in any numeric form.
		{"count off by one", 4, 3, 1, "10411",
			`Q4 row 3 column order_count: got "10411", want "10410" (tolerance: exact)`},
		{"count as float", 13, 2, 0, "9.0", ""},
		{"count in e-notation", 4, 1, 1, "1.0594e+04", ""},
		{"key off by one", 3, 1, 0, "2456424",
			`Q3 row 1 column l_orderkey: got "2456424", want "2456423" (tolerance: exact)`},
		// Singleton decimals exact at two decimals.
		{"balance float noise", 2, 1, 0, "9938.530000000001", ""},
		{"balance off by a cent", 2, 1, 0, "9938.54",
			`Q2 row 1 column s_acctbal: got "9938.54", want "9938.53" (tolerance: exact to 0.01)`},
		{"cntrycode as number", 22, 1, 0, "13.0", ""},
		// Strings: blanks around are fine (Clause 2.1.3.4 e), case matters.
		{"char padding", 2, 1, 1, "  Supplier#000005359                  ", ""},
		{"string differs", 2, 1, 1, "supplier#000005359",
			`Q2 row 1 column s_name: got "supplier#000005359", want "Supplier#000005359" (tolerance: equal text after trimming blanks)`},
		{"date as timestamp", 18, 1, 3, "1994-04-07 00:00:00", ""},
		{"date differs", 18, 1, 3, "1994-04-08",
			`Q18 row 1 column o_orderdat: got "1994-04-08", want "1994-04-07" (tolerance: equal text after trimming blanks)`},
		// NULL and garbage where numbers belong.
		{"NULL", 17, 1, 0, "NULL",
			`Q17 row 1 column avg_yearly: got "NULL", want "348406.02" (tolerance: within 1% after rounding to 0.01)`},
		{"not a number", 19, 1, 0, "lots",
			`Q19 row 1 column revenue: got "lots", want "3083843.06" (tolerance: within 100)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := validateReference(t, tc.q)
			got.Data[tc.row-1][tc.col] = tc.value
			msgs := CheckAnswer(tc.q, got)
			var want []string
			if tc.want != "" {
				want = []string{tc.want}
			}
			if !slices.Equal(msgs, want) {
				t.Errorf("CheckAnswer:\n got %q\nwant %q", msgs, want)
			}
		})
	}
}

func TestCheckAnswerUsesTheEngineColumnNames(t *testing.T) {
	// The TPC's header truncates o_orderdate; the engine's name reads better.
	got := validateReference(t, 3)
	got.Columns[2] = "o_orderdate"
	got.Data[9][2] = "1995-03-14"
	want := []string{`Q3 row 10 column o_orderdate: got "1995-03-14", want "1995-03-13" (tolerance: equal text after trimming blanks)`}
	if msgs := CheckAnswer(3, got); !slices.Equal(msgs, want) {
		t.Errorf("got %q, want %q", msgs, want)
	}
}

func TestCheckAnswerShape(t *testing.T) {
	short := validateReference(t, 3)
	short.Data = short.Data[:9]
	if msgs, want := CheckAnswer(3, short), []string{"Q3: got 9 rows, want 10"}; !slices.Equal(msgs, want) {
		t.Errorf("too few rows: got %q, want %q", msgs, want)
	}
	long := validateReference(t, 6)
	long.Data = append(long.Data, long.Data[0])
	if msgs, want := CheckAnswer(6, long), []string{"Q6: got 2 rows, want 1"}; !slices.Equal(msgs, want) {
		t.Errorf("too many rows: got %q, want %q", msgs, want)
	}
	narrow := &engine.Rows{Columns: []string{"revenue", "extra"}, Data: [][]string{{"1", "2"}}}
	if msgs, want := CheckAnswer(6, narrow), []string{"Q6: got 2 columns (revenue, extra), want 1 (revenue)"}; !slices.Equal(msgs, want) {
		t.Errorf("wrong columns: got %q, want %q", msgs, want)
	}
	ragged := validateReference(t, 4)
	ragged.Data[1] = ragged.Data[1][:1]
	if msgs, want := CheckAnswer(4, ragged), []string{"Q4 row 2: got 1 values, want 2"}; !slices.Equal(msgs, want) {
		t.Errorf("ragged row: got %q, want %q", msgs, want)
	}
	if msgs := CheckAnswer(4, nil); len(msgs) != 1 {
		t.Errorf("nil rows: got %q, want one message", msgs)
	}
	for _, q := range []int{0, 23} {
		if msgs, want := CheckAnswer(q, validateReference(t, 1)), []string{fmt.Sprintf("Q%d: no such TPC-H query (1..22)", q)}; !slices.Equal(msgs, want) {
			t.Errorf("query %d: got %q, want %q", q, msgs, want)
		}
	}
}

func TestCheckAnswerCapsMessages(t *testing.T) {
	got := validateReference(t, 11)
	for _, row := range got.Data {
		row[1] = "1.00"
	}
	msgs := CheckAnswer(11, got)
	if len(msgs) != maxMismatchesPerQuery+1 {
		t.Fatalf("got %d messages, want %d", len(msgs), maxMismatchesPerQuery+1)
	}
	if want := fmt.Sprintf("Q11: ... and %d more mismatches", len(got.Data)-maxMismatchesPerQuery); msgs[len(msgs)-1] != want {
		t.Errorf("last message = %q, want %q", msgs[len(msgs)-1], want)
	}
	if !strings.HasPrefix(msgs[0], "Q11 row 1 column value: ") {
		t.Errorf("first message = %q", msgs[0])
	}
}

func TestCheckAnswerOrder(t *testing.T) {
	// Q11 rows 244 and 245 have values 9419368.36 and 9419316.07: equal within the $100
	// of a SUM, so ORDER BY value DESC may return them either way.
	tied := validateReference(t, 11)
	tied.Data[243], tied.Data[244] = tied.Data[244], tied.Data[243]
	if msgs := CheckAnswer(11, tied); len(msgs) > 0 {
		t.Errorf("rows tied on the ORDER BY key, swapped: %q", msgs)
	}
	// Q10 rows 11 and 12 likewise (revenue 576783.76 and 576767.53).
	tied = validateReference(t, 10)
	tied.Data[10], tied.Data[11] = tied.Data[11], tied.Data[10]
	if msgs := CheckAnswer(10, tied); len(msgs) > 0 {
		t.Errorf("Q10 rows tied on revenue, swapped: %q", msgs)
	}
	// Q3 rows 1 and 2 are not tied: the order is wrong, and both rows are reported.
	swapped := validateReference(t, 3)
	swapped.Data[0], swapped.Data[1] = swapped.Data[1], swapped.Data[0]
	msgs := CheckAnswer(3, swapped)
	if len(msgs) != 6 || !strings.HasPrefix(msgs[0], "Q3 row 1 column l_orderkey: ") || !strings.HasPrefix(msgs[3], "Q3 row 2 column l_orderkey: ") {
		t.Errorf("Q3 rows 1 and 2 swapped: got %q", msgs)
	}
	// A wrong value inside a tie group is still reported at its row.
	tied = validateReference(t, 11)
	tied.Data[243], tied.Data[244] = tied.Data[244], tied.Data[243]
	tied.Data[243][0] = "1"
	msgs = CheckAnswer(11, tied)
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], `Q11 row 244 column ps_partkey: got "1"`) {
		t.Errorf("wrong key in a tie group: got %q", msgs)
	}
}

func TestCompareAnswers(t *testing.T) {
	cols := []string{"n_name", "revenue"}
	want := &engine.Rows{Columns: cols, Data: [][]string{
		{"INDONESIA", "55502041.1697"}, {"VIETNAM", "55502001.0000"}, {"CHINA", "53724494.2566"},
	}}
	for _, tc := range []struct {
		name string
		got  [][]string
		want []string
	}{
		{"same", [][]string{{"INDONESIA", "55502041.17"}, {"VIETNAM", "55502001"}, {"CHINA", "5.37244942566e+07"}}, nil},
		{"tie in either order", [][]string{{"VIETNAM", "55502001"}, {"INDONESIA", "55502041.17"}, {"CHINA", "53724494.2566"}}, nil},
		{"beyond 100", [][]string{{"INDONESIA", "55502041.17"}, {"VIETNAM", "55502001"}, {"CHINA", "53724594.2667"}},
			[]string{`Q5 row 3 column revenue: got "53724594.2667", want "53724494.2566" (tolerance: within 100)`}},
		{"wrong order", [][]string{{"CHINA", "53724494.2566"}, {"INDONESIA", "55502041.17"}, {"VIETNAM", "55502001"}},
			[]string{
				`Q5 row 1 column n_name: got "CHINA", want "INDONESIA" (tolerance: equal text after trimming blanks)`,
				`Q5 row 1 column revenue: got "53724494.2566", want "55502041.1697" (tolerance: within 100)`,
				`Q5 row 3 column n_name: got "VIETNAM", want "CHINA" (tolerance: equal text after trimming blanks)`,
				`Q5 row 3 column revenue: got "55502001", want "53724494.2566" (tolerance: within 100)`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs := CompareAnswers(5, &engine.Rows{Columns: cols, Data: tc.got}, want)
			if !slices.Equal(msgs, tc.want) {
				t.Errorf("got %q\nwant %q", msgs, tc.want)
			}
		})
	}

	// Between engines neither side is rounded by the TPC: ratios 1% apart pass even when
	// rounding to 0.01 puts them on different sides of a cent.
	ratio := func(v string) *engine.Rows {
		return &engine.Rows{Columns: []string{"o_year", "mkt_share"}, Data: [][]string{{"1995", v}}}
	}
	if msgs := CompareAnswers(8, ratio("0.04499"), ratio("0.04501")); len(msgs) > 0 {
		t.Errorf("close ratios: %q", msgs)
	}
	if msgs := CompareAnswers(8, ratio("0.0344"), ratio("0.0366")); len(msgs) != 1 {
		t.Errorf("ratios 6%% apart: got %q, want one mismatch", msgs)
	}
	if msgs := CompareAnswers(8, ratio("0.03"), nil); len(msgs) != 1 {
		t.Errorf("nil other result: got %q, want one message", msgs)
	}
}
