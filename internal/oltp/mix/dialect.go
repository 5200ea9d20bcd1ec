package mix

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"tierbench/internal/engine"
)

// ColumnType is a portable column type: int, bigint, smallint, float, decimal(P,S),
// varchar(N), char(N), text, date or timestamp.
type ColumnType struct {
	Kind string
	// Size is N of varchar/char and P of decimal; Scale is S of decimal.
	Size, Scale int
}

var typeRE = regexp.MustCompile(`^\s*([a-zA-Z]+)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*$`)

// typeKinds lists the portable types and whether they take (N) or (P,S).
var typeKinds = map[string]string{
	"int": "", "bigint": "", "smallint": "", "float": "", "text": "", "date": "", "timestamp": "",
	"varchar": "N", "char": "N", "decimal": "P,S",
}

func parseType(s string) (ColumnType, error) {
	m := typeRE.FindStringSubmatch(s)
	if m == nil {
		return ColumnType{}, fmt.Errorf("%q is not a type: use %s", s, typeList())
	}
	t := ColumnType{Kind: strings.ToLower(m[1])}
	if t.Kind == "integer" {
		t.Kind = "int"
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
	return "int, bigint, smallint, float, decimal(P,S), varchar(N), char(N), text, date or timestamp"
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

// sqlDialect is what mixes need of an engine beyond engine.Dialect, keyed by
// engine.Dialect.Name so that no code switches on engine names.
type sqlDialect struct {
	// types maps portable type kinds to the engine's; %d takes the size (and scale).
	types map[string]string
	// loaders caps parallel Engine.Load calls (SQLite has one writer).
	loaders int
	// tableSuffix ends CREATE TABLE.
	tableSuffix string
}

var sqlDialects = map[string]sqlDialect{
	"sqlite": {
		// INTEGER, exactly, makes a one-column integer primary key the rowid.
		types: map[string]string{"int": "INTEGER", "bigint": "INTEGER", "smallint": "INTEGER", "float": "REAL",
			"decimal": "REAL", "varchar": "TEXT", "char": "TEXT", "text": "TEXT", "date": "TEXT", "timestamp": "TEXT"},
		loaders: 1,
	},
	"postgres": {
		types: map[string]string{"int": "INTEGER", "bigint": "BIGINT", "smallint": "SMALLINT", "float": "DOUBLE PRECISION",
			"decimal": "NUMERIC(%d,%d)", "varchar": "VARCHAR(%d)", "char": "CHAR(%d)", "text": "TEXT", "date": "DATE", "timestamp": "TIMESTAMP"},
	},
	"mysql": {
		types: map[string]string{"int": "INT", "bigint": "BIGINT", "smallint": "SMALLINT", "float": "DOUBLE",
			"decimal": "DECIMAL(%d,%d)", "varchar": "VARCHAR(%d)", "char": "CHAR(%d)", "text": "TEXT", "date": "DATE", "timestamp": "DATETIME"},
		tableSuffix: " ENGINE=InnoDB",
	},
}

func dialectNames() []string {
	out := make([]string, 0, len(sqlDialects))
	for n := range sqlDialects {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func dialectFor(d *engine.Dialect) (sqlDialect, error) {
	sd, ok := sqlDialects[d.Name]
	if !ok {
		return sd, fmt.Errorf("mix: no support for the %s dialect", d.Name)
	}
	return sd, nil
}

func (sd sqlDialect) typeSQL(t ColumnType) string {
	f := sd.types[t.Kind]
	switch strings.Count(f, "%d") {
	case 1:
		return fmt.Sprintf(f, t.Size)
	case 2:
		return fmt.Sprintf(f, t.Size, t.Scale)
	}
	return f
}

// createSQL is t's CREATE TABLE statement.
func (sd sqlDialect) createSQL(t *Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", t.Name)
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s NOT NULL", c.Name, sd.typeSQL(c.Type))
	}
	fmt.Fprintf(&b, ", PRIMARY KEY (%s))%s", strings.Join(t.PrimaryKey, ", "), sd.tableSuffix)
	return b.String()
}

func (ix *Index) createSQL(table string) string {
	u := ""
	if ix.Unique {
		u = "UNIQUE "
	}
	return fmt.Sprintf("CREATE %sINDEX %s ON %s (%s)", u, ix.Name, table, strings.Join(ix.Columns, ", "))
}
