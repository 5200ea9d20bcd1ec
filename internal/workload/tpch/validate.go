package tpch

import (
	"embed"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"tierbench/internal/engine"
)

// The TPC's answers of the 22 queries on the SF 1 qualification database with the
// default substitution parameters, and the per-column precision classes of its
// comparison, as the TPC-H kit 2.17.3 ships them (Clause 2.3).
//
//go:embed answers/q*.out answers/colprecision.txt
var answerFiles embed.FS

// maxMismatchesPerQuery caps the messages of one query; a wrong join makes every row wrong.
const maxMismatchesPerQuery = 10

// answerClass is how a column's values are compared (Clause 2.1.3.5).
type answerClass int

const (
	// classString: text equal after trimming blanks, which Clause 2.1.3.4 e allows.
	classString answerClass = iota
	// classInteger: keys and COUNT results, which must match exactly (Clause 2.1.3.5 a).
	classInteger
	// classNumber: singleton decimal values (account balances, prices) that must match
	// exactly (Clause 2.1.3.5 a); compared at the answer's two decimals, so 9938.53 and
	// SQLite's 9938.530000000001 are equal.
	classNumber
	// classSum: SUM results, within $100 (Clause 2.1.3.5 c).
	classSum
	// classAverage: AVG results and ratios, 0.99*v <= round(r,2) <= 1.01*v
	// (Clause 2.1.3.5 b and d).
	classAverage
	// classExactSum: SUMs the spec's comments to Clause 2.1.3.5 require to be exact:
	// SUM(l_quantity) in Q1 and Q18, and Q12's counting SUMs of 0s and 1s.
	classExactSum
)

// answerClassNames maps the words of the kit's colprecision.txt to classes.
var answerClassNames = map[string]answerClass{
	"str": classString, "int": classInteger, "cnt": classInteger, "num": classNumber,
	"sum": classSum, "avg": classAverage, "rat": classAverage,
}

// exactSumColumns lists, per query, the 0-based columns that colprecision.txt calls
// "sum" but the comments to Clause 2.1.3.5 require to match exactly.
var exactSumColumns = map[int][]int{
	1:  {2},    // sum_qty = SUM(l_quantity)
	12: {1, 2}, // high_line_count, low_line_count: a row count made with SUM
	18: {5},    // SUM(l_quantity)
}

// answerOrderKeys lists, per query, the 0-based columns of its ORDER BY in order (the
// keys are all in the select list). Rows whose keys are equal within the columns'
// tolerance may come in either order, so they are compared as a multiset.
var answerOrderKeys = map[int][]int{
	1: {0, 1}, 2: {0, 2, 1, 3}, 3: {1, 2}, 4: {0}, 5: {1}, 7: {0, 1, 2}, 8: {0}, 9: {0, 1},
	10: {2}, 11: {1}, 12: {0}, 13: {1, 0}, 15: {0}, 16: {3, 0, 1, 2}, 18: {4, 3}, 20: {0},
	21: {1, 0}, 22: {0},
}

func (c answerClass) tolerance() string {
	switch c {
	case classInteger:
		return "exact"
	case classNumber, classExactSum:
		return "exact to 0.01"
	case classSum:
		return "within 100"
	case classAverage:
		return "within 1% after rounding to 0.01"
	default:
		return "equal text after trimming blanks"
	}
}

// referenceAnswers is the parsed answer of each query (1..22) and the column classes.
type referenceAnswers struct {
	rows    map[int]*engine.Rows
	classes map[int][]answerClass
}

var loadReferenceAnswers = sync.OnceValues(func() (*referenceAnswers, error) {
	ref := &referenceAnswers{rows: map[int]*engine.Rows{}, classes: map[int][]answerClass{}}
	prec, err := answerFiles.ReadFile("answers/colprecision.txt")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(prec), "\n"), "\n")
	if len(lines) != queryCount {
		return nil, fmt.Errorf("colprecision.txt has %d lines, want %d", len(lines), queryCount)
	}
	for i, line := range lines {
		q := i + 1
		for _, word := range strings.Fields(line) {
			c, ok := answerClassNames[word]
			if !ok {
				return nil, fmt.Errorf("colprecision.txt line %d: unknown class %q", q, word)
			}
			ref.classes[q] = append(ref.classes[q], c)
		}
		for _, col := range exactSumColumns[q] {
			ref.classes[q][col] = classExactSum
		}
		name := fmt.Sprintf("answers/q%d.out", q)
		text, err := answerFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		rows, err := parseAnswerFile(string(text))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(rows.Columns) != len(ref.classes[q]) {
			return nil, fmt.Errorf("%s has %d columns, colprecision.txt %d", name, len(rows.Columns), len(ref.classes[q]))
		}
		ref.rows[q] = rows
	}
	return ref, nil
})

// parseAnswerFile reads the TPC's answer format: a header line of column names, then
// one line per row, fields separated by '|' and padded with blanks to the column's
// width (strings on the right, integers on the left; decimals unpadded).
func parseAnswerFile(text string) (*engine.Rows, error) {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n"), "\n")
	rows := &engine.Rows{}
	for _, name := range strings.Split(lines[0], "|") {
		rows.Columns = append(rows.Columns, strings.TrimSpace(name))
	}
	for i, line := range lines[1:] {
		cells := strings.Split(line, "|")
		if len(cells) != len(rows.Columns) {
			return nil, fmt.Errorf("line %d has %d fields, the header %d", i+2, len(cells), len(rows.Columns))
		}
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		rows.Data = append(rows.Data, cells)
	}
	return rows, nil
}

// CheckAnswer compares the rows of query q (1..22) with the TPC's SF 1 qualification
// answer using the spec's tolerances; it returns one message per mismatch
// ("Q3 row 4 column revenue: got ..., want ..."), none when the answer is right.
func CheckAnswer(q int, got *engine.Rows) []string {
	ref, err := loadReferenceAnswers()
	if err != nil {
		return []string{fmt.Sprintf("Q%d: the embedded reference answers are unreadable: %v", q, err)}
	}
	want, ok := ref.rows[q]
	if !ok {
		return []string{fmt.Sprintf("Q%d: no such TPC-H query (1..22)", q)}
	}
	cmp := answerComparer{query: q, classes: ref.classes[q]}
	return cmp.compare(got, want)
}

// CompareAnswers compares the rows two engines returned for query q with the same tolerances.
func CompareAnswers(q int, got, want *engine.Rows) []string {
	ref, err := loadReferenceAnswers()
	if err != nil {
		return []string{fmt.Sprintf("Q%d: the embedded column classes are unreadable: %v", q, err)}
	}
	classes, ok := ref.classes[q]
	if !ok {
		return []string{fmt.Sprintf("Q%d: no such TPC-H query (1..22)", q)}
	}
	if want == nil {
		return []string{fmt.Sprintf("Q%d: the engine compared with returned no result", q)}
	}
	cmp := answerComparer{query: q, classes: classes, betweenEngines: true}
	return cmp.compare(got, want)
}

// answerComparer compares one query's rows column by column.
type answerComparer struct {
	query   int
	classes []answerClass
	// betweenEngines relaxes the averages and ratios, whose expected value is then not
	// rounded to 0.01 by the TPC: a raw difference within 1% is also accepted.
	betweenEngines bool
	messages       []string
	more           int
}

func (c *answerComparer) compare(got, want *engine.Rows) []string {
	if got == nil {
		return []string{fmt.Sprintf("Q%d: no result", c.query)}
	}
	ncol := len(c.classes)
	if len(want.Columns) != ncol {
		return []string{fmt.Sprintf("Q%d: the expected result has %d columns (%s), the query %d", c.query,
			len(want.Columns), strings.Join(want.Columns, ", "), ncol)}
	}
	if len(got.Columns) != ncol {
		return []string{fmt.Sprintf("Q%d: got %d columns (%s), want %d (%s)", c.query,
			len(got.Columns), strings.Join(got.Columns, ", "), ncol, strings.Join(want.Columns, ", "))}
	}
	if len(got.Data) != len(want.Data) {
		return []string{fmt.Sprintf("Q%d: got %d rows, want %d", c.query, len(got.Data), len(want.Data))}
	}
	names := make([]string, ncol)
	for i := range names {
		// The engine's names are the query's; the TPC's header truncates some (o_orderdat).
		names[i] = strings.TrimSpace(got.Columns[i])
		if names[i] == "" {
			names[i] = want.Columns[i]
		}
	}
	for start := 0; start < len(want.Data); {
		end := start + 1
		for end < len(want.Data) && c.keysTie(want.Data[end-1], want.Data[end]) {
			end++
		}
		c.compareGroup(names, got.Data[start:end], want.Data[start:end], start)
		start = end
	}
	if c.more > 0 {
		c.messages = append(c.messages, fmt.Sprintf("Q%d: ... and %d more mismatches", c.query, c.more))
	}
	return c.messages
}

// keysTie reports whether two consecutive expected rows have equal ORDER BY keys, so
// that an engine may return them in either order.
func (c *answerComparer) keysTie(a, b []string) bool {
	keys, ok := answerOrderKeys[c.query]
	if !ok || len(a) != len(c.classes) || len(b) != len(c.classes) {
		return false
	}
	for _, k := range keys {
		if !c.cellMatches(c.classes[k], a[k], b[k]) {
			return false
		}
	}
	return true
}

// compareGroup compares rows whose ORDER BY keys tie (a single row most of the time):
// each row first with the row at its position, then with any unmatched row of the group.
func (c *answerComparer) compareGroup(names []string, got, want [][]string, offset int) {
	used := make([]bool, len(want))
	var unmatched []int
	for i := range got {
		if c.rowMatches(got[i], want[i]) {
			used[i] = true
		} else {
			unmatched = append(unmatched, i)
		}
	}
	for _, i := range unmatched {
		found := false
		for j := range want {
			if !used[j] && c.rowMatches(got[i], want[j]) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			c.reportRow(names, got[i], want[i], offset+i+1)
		}
	}
}

func (c *answerComparer) rowMatches(got, want []string) bool {
	if len(got) != len(c.classes) {
		return false
	}
	for k, class := range c.classes {
		if !c.cellMatches(class, got[k], want[k]) {
			return false
		}
	}
	return true
}

func (c *answerComparer) reportRow(names, got, want []string, row int) {
	if len(got) != len(c.classes) {
		c.add(fmt.Sprintf("Q%d row %d: got %d values, want %d", c.query, row, len(got), len(c.classes)))
		return
	}
	for k, class := range c.classes {
		if !c.cellMatches(class, got[k], want[k]) {
			c.add(fmt.Sprintf("Q%d row %d column %s: got %q, want %q (tolerance: %s)",
				c.query, row, names[k], strings.TrimSpace(got[k]), strings.TrimSpace(want[k]), class.tolerance()))
		}
	}
}

func (c *answerComparer) add(msg string) {
	if len(c.messages) < maxMismatchesPerQuery {
		c.messages = append(c.messages, msg)
	} else {
		c.more++
	}
}

// cellMatches compares one value with the expected one under the column's class.
func (c *answerComparer) cellMatches(class answerClass, got, want string) bool {
	got, want = strings.TrimSpace(got), strings.TrimSpace(want)
	if got == want {
		return true
	}
	if class == classString {
		return normalizeAnswerDate(got) == normalizeAnswerDate(want)
	}
	g, gerr := strconv.ParseFloat(got, 64)
	w, werr := strconv.ParseFloat(want, 64)
	if gerr != nil || werr != nil || math.IsNaN(g) || math.IsNaN(w) {
		return false // NULL against a number, or text where a number belongs
	}
	switch class {
	case classInteger:
		return g == w
	case classNumber, classExactSum:
		return math.Round(g*100) == math.Round(w*100)
	case classSum:
		// In whole cents, the answers' precision, so that float64 noise cannot push a
		// difference of exactly $100.00 over the limit.
		return math.Abs(math.Round(g*100)-math.Round(w*100)) <= 100*100
	case classAverage:
		// Clause 2.1.3.5 b/d: 0.99*v <= round(r,2) <= 1.01*v, v being the TPC's value at
		// two decimals; the small slack absorbs float64's representation of 1.01*v.
		v := math.Round(w*100) / 100
		r := math.Round(g*100) / 100
		slack := 1e-9 * max(1, math.Abs(v))
		if math.Abs(r-v) <= 0.01*math.Abs(v)+slack {
			return true
		}
		return c.betweenEngines && math.Abs(g-w) <= 0.01*math.Abs(w)+slack
	}
	return false
}

// describeFailedQueries names the queries that validation messages are about, in query
// order: "wrong answers for Q3, Q11".
func describeFailedQueries(failures []string) string {
	var wrong [queryCount + 1]bool
	n := 0
	for _, f := range failures {
		var q int
		if _, err := fmt.Sscanf(f, "Q%d", &q); err == nil && q >= 1 && q <= queryCount && !wrong[q] {
			wrong[q] = true
			n++
		}
	}
	if n == 0 {
		return fmt.Sprintf("%d problems", len(failures))
	}
	names := make([]string, 0, n)
	for q, bad := range wrong {
		if bad {
			names = append(names, "Q"+strconv.Itoa(q))
		}
	}
	return "wrong answers for " + strings.Join(names, ", ")
}

// normalizeAnswerDate turns a midnight timestamp some drivers print for a DATE
// ("1995-03-05 00:00:00", "1995-03-05T00:00:00Z") into the date itself.
func normalizeAnswerDate(s string) string {
	if len(s) <= 10 || s[4] != '-' || s[7] != '-' {
		return s
	}
	switch s[10:] {
	case " 00:00:00", "T00:00:00", "T00:00:00Z", " 00:00:00+00:00", "T00:00:00+00:00":
		return s[:10]
	}
	return s
}
