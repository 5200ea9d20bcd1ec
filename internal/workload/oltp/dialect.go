package oltp

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"tierbench/internal/engine"
)

// ColumnType is a portable column type: int, bigint, smallint, float, decimal(P,S),
// varchar(N), char(N), text, date, timestamp or blob (binary data: SQLite's BLOB,
// PostgreSQL's bytea, MariaDB's LONGBLOB; bytea is another name for it).
type ColumnType struct {
	Kind string
	// Size is N of varchar/char and P of decimal; Scale is S of decimal.
	Size, Scale int
}

var typeRE = regexp.MustCompile(`^\s*([a-zA-Z]+)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*$`)

// typeKinds lists the portable types and whether they take (N) or (P,S).
var typeKinds = map[string]string{
	"int": "", "bigint": "", "smallint": "", "float": "", "text": "", "date": "", "timestamp": "", "blob": "",
	"varchar": "N", "char": "N", "decimal": "P,S",
}

func parseType(s string) (ColumnType, error) {
	m := typeRE.FindStringSubmatch(s)
	if m == nil {
		return ColumnType{}, fmt.Errorf("%q is not a type: use %s", s, typeList())
	}
	t := ColumnType{Kind: strings.ToLower(m[1])}
	switch t.Kind {
	case "integer":
		t.Kind = "int"
	case "bytea":
		t.Kind = "blob"
	}
	args, ok := typeKinds[t.Kind]
	if !ok {
		return t, fmt.Errorf("unknown type %q: use %s", m[1], typeList())
	}
	t.Size, _ = strconv.Atoi(m[2])
	t.Scale, _ = strconv.Atoi(m[3])
	switch args {
	case "":
		if m[2] != "" {
			return t, fmt.Errorf("type %s takes no size", t.Kind)
		}
	case "N":
		if m[2] == "" || m[3] != "" || t.Size < 1 {
			return t, fmt.Errorf("type %s needs a length, e.g. %s(40)", t.Kind, t.Kind)
		}
	case "P,S":
		if m[2] == "" {
			t.Size, t.Scale = 12, 2
		}
		if t.Size < 1 || t.Size > 38 || t.Scale > t.Size {
			return t, fmt.Errorf("decimal(%d,%d): precision 1 to 38, scale at most the precision", t.Size, t.Scale)
		}
	}
	return t, nil
}

func typeList() string {
	return "int, bigint, smallint, float, decimal(P,S), varchar(N), char(N), text, date, timestamp or blob"
}

func (t ColumnType) String() string {
	switch typeKinds[t.Kind] {
	case "N":
		return fmt.Sprintf("%s(%d)", t.Kind, t.Size)
	case "P,S":
		return fmt.Sprintf("decimal(%d,%d)", t.Size, t.Scale)
	}
	return t.Kind
}

// dialectNames are the engines a statement may have its own text for (its dialects).
func dialectNames() []string { return engine.Names() }

// createSQL is t's CREATE TABLE statement.
func createSQL(d *engine.Dialect, t *Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", t.Name)
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s NOT NULL", c.Name, d.ColumnType(c.Type.Kind, c.Type.Size, c.Type.Scale))
	}
	fmt.Fprintf(&b, ", PRIMARY KEY (%s))%s", strings.Join(t.PrimaryKey, ", "), d.TableSuffix)
	return b.String()
}

func (ix *Index) createSQL(table string) string {
	u := ""
	if ix.Unique {
		u = "UNIQUE "
	}
	return fmt.Sprintf("CREATE %sINDEX %s ON %s (%s)", u, ix.Name, table, strings.Join(ix.Columns, ", "))
}
