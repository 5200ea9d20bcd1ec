package engine

import (
	"fmt"
	"strconv"
	"testing"
)

func show(rows [][][]byte) string {
	out := ""
	for _, r := range rows {
		out += "["
		for i, v := range r {
			if i > 0 {
				out += " "
			}
			if v == nil {
				out += "NULL"
			} else {
				out += strconv.Quote(string(v))
			}
		}
		out += "]"
	}
	return out
}

// TestRowCollector: rows keep their values apart, NULL apart from the empty string
// (also as the only value), formatted values land in their row, and Reset starts over
// with the buffers reused.
func TestRowCollector(t *testing.T) {
	var c RowCollector
	if c.First() != nil || c.Len() != 0 || len(c.Rows(0).Rows) != 0 {
		t.Fatal("an empty collector has rows")
	}
	c.Value([]byte(""))
	c.EndRow()
	if got := show([][][]byte{c.First()}); got != `[""]` {
		t.Errorf("a lone empty string: %s", got)
	}
	c.Reset()
	c.Value([]byte("a"))
	c.Null()
	c.Append(strconv.AppendInt(c.Buf(), -42, 10))
	c.EndRow()
	c.Value(nil)
	c.Value([]byte(""))
	c.Value([]byte("bc"))
	c.EndRow()
	c.EndRow() // a row without columns
	if c.Len() != 3 {
		t.Errorf("Len %d, want 3", c.Len())
	}
	if got := show([][][]byte{c.First()}); got != `["a" NULL "-42"]` {
		t.Errorf("First: %s", got)
	}
	all := c.Rows(7)
	if got := show(all.Rows); got != `["a" NULL "-42"][NULL "" "bc"][]` || all.Affected != 7 {
		t.Errorf("Rows: %s, affected %d", got, all.Affected)
	}
	// Appending to one row's value must not reach into the next row's.
	all.Rows[0][0] = append(all.Rows[0][0], 'x')
	if got := show(all.Rows[1:2]); got != `[NULL "" "bc"]` {
		t.Errorf("after appending to a value of row 1, row 2 is %s", got)
	}
	c.Reset()
	for i := range 1000 {
		c.Value([]byte(fmt.Sprint(i)))
		c.EndRow()
	}
	if rows := c.Rows(0).Rows; len(rows) != 1000 || string(rows[999][0]) != "999" || string(rows[0][0]) != "0" {
		t.Errorf("1000 rows after Reset: %d, last %s", len(rows), show(rows[len(rows)-1:]))
	}
}
