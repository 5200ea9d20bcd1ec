package tpch

import (
	"fmt"
	"strings"

	"tierbench/internal/engine"
)

// colType is the spec's datatype of a column (Clause 1.3.1).
type colType int

const (
	// typeKey is an identifier: it must hold every key the scale factor generates.
	typeKey colType = iota
	typeInteger
	typeDecimal
	typeDate
	typeChar
	typeVarchar
)

// keyDomain names which key space an identifier column draws from, so its SQL type
// can grow with the scale factor.
type keyDomain int

const (
	noKey keyDomain = iota
	partKeys
	suppKeys
	custKeys
	orderKeys
	nationKeys
	regionKeys
)

// maxKey is the largest key of a domain at scale factor sf. Order keys are sparse:
// only 8 of every 32 are used by the base data and the update sets fill the gaps
// (Clause 4.2.3), so the key space is four times the row count.
func (d keyDomain) maxKey(sf float64) float64 {
	switch d {
	case partKeys:
		return 200_000 * sf
	case suppKeys:
		return 10_000 * sf
	case custKeys:
		return 150_000 * sf
	case orderKeys:
		return 4 * 1_500_000 * sf
	case nationKeys:
		return 25
	case regionKeys:
		return 5
	}
	return 0
}

type column struct {
	name   string
	typ    colType
	size   int       // CHAR/VARCHAR length
	domain keyDomain // typeKey only
}

// sqlType renders the column's type for a dialect. Identifiers are INTEGER while the
// key space fits in 31 bits (the spec's minimum, Clause 1.3.1) and BIGINT beyond,
// which order keys reach above SF 350 and part keys above SF 10,000.
func (c column) sqlType(d *engine.Dialect, sf float64) string {
	switch c.typ {
	case typeKey:
		if c.domain.maxKey(sf) > 2_147_483_647 {
			return "BIGINT"
		}
		return "INTEGER"
	case typeInteger:
		return "INTEGER"
	case typeDecimal:
		return d.ColumnType("decimal", 15, 2)
	case typeDate:
		return d.ColumnType("date")
	case typeChar:
		return fmt.Sprintf("CHAR(%d)", c.size)
	default:
		return fmt.Sprintf("VARCHAR(%d)", c.size)
	}
}

// table is one TPC-H table (Clause 1.4.1) with the indexes the load test builds.
type table struct {
	name       string
	columns    []column
	primaryKey []string
	// indexes are the foreign-key indexes (Clause 1.4.2.3 allows indexes on any
	// foreign key; Clause 5.1.1.2 times their creation in the load test).
	indexes [][]string
}

func key(name string, d keyDomain) column    { return column{name: name, typ: typeKey, domain: d} }
func integer(name string) column             { return column{name: name, typ: typeInteger} }
func decimal(name string) column             { return column{name: name, typ: typeDecimal} }
func date(name string) column                { return column{name: name, typ: typeDate} }
func fixedChar(name string, size int) column { return column{name: name, typ: typeChar, size: size} }
func varChar(name string, size int) column   { return column{name: name, typ: typeVarchar, size: size} }

// tables lists the schema of Clause 1.4.1 in dbgen's column order (the order of the
// .tbl fields). Index choices: the primary keys of Clause 1.4.2.2 and an index on
// every foreign key that no primary key already leads with. lineitem(l_partkey,
// l_suppkey) serves the correlated subqueries of Q17 and Q20 and the join to
// partsupp; l_orderkey and ps_partkey are covered by their tables' primary keys.
var tables = []table{
	{
		name: "part",
		columns: []column{
			key("p_partkey", partKeys), varChar("p_name", 55), fixedChar("p_mfgr", 25),
			fixedChar("p_brand", 10), varChar("p_type", 25), integer("p_size"),
			fixedChar("p_container", 10), decimal("p_retailprice"), varChar("p_comment", 23),
		},
		primaryKey: []string{"p_partkey"},
	},
	{
		name: "supplier",
		columns: []column{
			key("s_suppkey", suppKeys), fixedChar("s_name", 25), varChar("s_address", 40),
			key("s_nationkey", nationKeys), fixedChar("s_phone", 15), decimal("s_acctbal"),
			varChar("s_comment", 101),
		},
		primaryKey: []string{"s_suppkey"},
		indexes:    [][]string{{"s_nationkey"}},
	},
	{
		name: "partsupp",
		columns: []column{
			key("ps_partkey", partKeys), key("ps_suppkey", suppKeys), integer("ps_availqty"),
			decimal("ps_supplycost"), varChar("ps_comment", 199),
		},
		primaryKey: []string{"ps_partkey", "ps_suppkey"},
		indexes:    [][]string{{"ps_suppkey"}},
	},
	{
		name: "customer",
		columns: []column{
			key("c_custkey", custKeys), varChar("c_name", 25), varChar("c_address", 40),
			key("c_nationkey", nationKeys), fixedChar("c_phone", 15), decimal("c_acctbal"),
			fixedChar("c_mktsegment", 10), varChar("c_comment", 117),
		},
		primaryKey: []string{"c_custkey"},
		indexes:    [][]string{{"c_nationkey"}},
	},
	{
		name: "orders",
		columns: []column{
			key("o_orderkey", orderKeys), key("o_custkey", custKeys), fixedChar("o_orderstatus", 1),
			decimal("o_totalprice"), date("o_orderdate"), fixedChar("o_orderpriority", 15),
			fixedChar("o_clerk", 15), integer("o_shippriority"), varChar("o_comment", 79),
		},
		primaryKey: []string{"o_orderkey"},
		indexes:    [][]string{{"o_custkey"}},
	},
	{
		name: "lineitem",
		columns: []column{
			key("l_orderkey", orderKeys), key("l_partkey", partKeys), key("l_suppkey", suppKeys),
			integer("l_linenumber"), decimal("l_quantity"), decimal("l_extendedprice"),
			decimal("l_discount"), decimal("l_tax"), fixedChar("l_returnflag", 1),
			fixedChar("l_linestatus", 1), date("l_shipdate"), date("l_commitdate"),
			date("l_receiptdate"), fixedChar("l_shipinstruct", 25), fixedChar("l_shipmode", 10),
			varChar("l_comment", 44),
		},
		primaryKey: []string{"l_orderkey", "l_linenumber"},
		indexes:    [][]string{{"l_partkey", "l_suppkey"}},
	},
	{
		name: "nation",
		columns: []column{
			key("n_nationkey", nationKeys), fixedChar("n_name", 25), key("n_regionkey", regionKeys),
			varChar("n_comment", 152),
		},
		primaryKey: []string{"n_nationkey"},
		indexes:    [][]string{{"n_regionkey"}},
	},
	{
		name: "region",
		columns: []column{
			key("r_regionkey", regionKeys), fixedChar("r_name", 25), varChar("r_comment", 152),
		},
		primaryKey: []string{"r_regionkey"},
	},
}

// tableByName returns the definition of a TPC-H table.
func tableByName(name string) (table, bool) {
	for _, t := range tables {
		if t.name == name {
			return t, true
		}
	}
	return table{}, false
}

func (t table) columnNames() []string {
	names := make([]string, len(t.columns))
	for i, c := range t.columns {
		names[i] = c.name
	}
	return names
}

// createSQL is the CREATE TABLE statement. Every column is NOT NULL (dbgen never
// produces NULLs); keys are added after the load, when building them is cheapest.
func (t table) createSQL(d *engine.Dialect, sf float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", t.name)
	for i, c := range t.columns {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s NOT NULL", c.name, c.sqlType(d, sf))
	}
	b.WriteString(")")
	return b.String()
}

// primaryKeySQL adds the primary key; PostgreSQL and MySQL/MariaDB accept it.
func (t table) primaryKeySQL() string {
	return fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (%s)", t.name, strings.Join(t.primaryKey, ", "))
}

// uniqueKeySQL is the fallback for engines without ALTER TABLE ... ADD PRIMARY KEY
// (SQLite): a unique index on the same columns, which is what SQLite builds for a
// declared primary key that is not a rowid alias.
func (t table) uniqueKeySQL() string {
	return fmt.Sprintf("CREATE UNIQUE INDEX %s_pk ON %s (%s)", t.name, t.name, strings.Join(t.primaryKey, ", "))
}

// indexSQL creates the foreign-key indexes. Names are unique across the schema, as
// PostgreSQL needs (MySQL only needs them unique per table).
func (t table) indexSQL() []string {
	out := make([]string, len(t.indexes))
	for i, cols := range t.indexes {
		out[i] = fmt.Sprintf("CREATE INDEX %s_%s_idx ON %s (%s)",
			t.name, strings.Join(cols, "_"), t.name, strings.Join(cols, ", "))
	}
	return out
}
