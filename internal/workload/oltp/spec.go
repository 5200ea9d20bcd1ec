package oltp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"tierbench/internal/yamltext"
)

// Mix is a parsed and validated mix file.
type Mix struct {
	Name        string
	Description string
	// Scale multiplies the rows of every scaled table; `--scale` overrides it.
	Scale        float64
	Tables       []*Table
	Transactions []*Txn
	// Pool is the connections the application has (0: one a user): a user waits for
	// a free one before each transaction and holds it until the transaction ends.
	Pool int
	// Critical are the application's critical sections: code around chosen
	// transactions or statements that at most Holders users run at once.
	Critical []*Critical
	// File is where the mix came from ("bundled:NAME" for a bundled mix), SHA256 the
	// hash of its bytes, Source the bytes.
	File   string
	SHA256 string
	Source []byte
}

// Table is one table: its columns, keys and population.
type Table struct {
	Name string
	// Rows is the population at scale 1; Fixed tables ignore the scale.
	Rows       int64
	Fixed      bool
	Columns    []*Column
	PrimaryKey []string
	Indexes    []*Index
}

// Column is a column's name, portable type and the values the population gives it.
type Column struct {
	Name  string
	Type  ColumnType
	Value *ValueSpec
}

// Index is a secondary index, built after the population is loaded.
type Index struct {
	Name    string
	Columns []string
	Unique  bool
}

// Txn is one transaction type: its share of the mix, its parameters and statements.
type Txn struct {
	Name       string
	Weight     float64
	Params     []*Param
	Statements []*Statement
}

// Critical is a critical section of the application: at most Holders users are in it
// at once, the others wait (a Java synchronized block holds one; a semaphore N). Around
// names what it is around: transactions ("renew_policy", held from before the first
// statement to after the last) or statements ("read_policy.details", held while the
// statement runs). A section is around transactions or around statements, not both,
// so that users always take sections in one order and never deadlock.
type Critical struct {
	Name    string
	Holders int
	Around  []string
}

// Param is a named value drawn once per transaction.
type Param struct {
	Name  string
	Value *ValueSpec
}

// OnEmpty says what a statement with Into does when it returns no row.
type OnEmpty string

const (
	// EmptyError counts the transaction as failed (the default).
	EmptyError OnEmpty = "error"
	// EmptyRollback rolls the transaction back and counts it as a completed rollback.
	EmptyRollback OnEmpty = "rollback"
	// EmptySkip commits what ran so far and counts the transaction as completed.
	EmptySkip OnEmpty = "skip"
)

// Statement is one parameterised SQL statement with :name placeholders.
type Statement struct {
	Name string
	SQL  string
	// Dialects overrides SQL for an engine dialect (sqlite, postgres, mysql).
	Dialects map[string]string
	// Into names the first row's columns, in order, for later statements.
	Into    []string
	OnEmpty OnEmpty
	// Query: the statement returns rows (SELECT, WITH, or one with Into).
	Query bool
}

// MaxRows is the most rows a table may have, at any scale. Rows times scale is
// computed in float64, which holds every whole number up to 2^53 exactly, and row
// numbers and keys then stay far from the end of int64, where they would wrap.
const MaxRows = 1 << 53

// RowsAt is t's population at scale, a scale CheckScale accepts.
func (t *Table) RowsAt(scale float64) int64 {
	if t.Fixed {
		return t.Rows
	}
	n := int64(math.Round(min(float64(t.Rows)*scale, MaxRows)))
	if t.Rows > 0 && n < 1 {
		n = 1
	}
	return n
}

// CheckScale reports whether scale is a usable factor for m's tables: finite, above
// 0, and with no table past MaxRows at it. The error names the table and its rows.
func (m *Mix) CheckScale(scale float64) error {
	if math.IsNaN(scale) || math.IsInf(scale, 0) || scale <= 0 {
		return fmt.Errorf("give a finite factor above 0, such as 0.1 or 10")
	}
	for _, t := range m.Tables {
		if t.Fixed {
			continue
		}
		if n := float64(t.Rows) * scale; n > MaxRows {
			return fmt.Errorf("table %s would have %.3g rows (rows: %d x scale %v), more than the %d (2^53) a table may have",
				t.Name, n, t.Rows, scale, int64(MaxRows))
		}
	}
	return nil
}

// Table returns the table called name, or nil.
func (m *Mix) Table(name string) *Table {
	for _, t := range m.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Column returns the column called name, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// KeyColumn is the single-column primary key that `key` and `sequence` draw from, or
// "" when the primary key has several columns.
func (t *Table) KeyColumn() string {
	if len(t.PrimaryKey) == 1 {
		return t.PrimaryKey[0]
	}
	return ""
}

// TxnNames lists the transaction names in file order.
func (m *Mix) TxnNames() []string {
	out := make([]string, len(m.Transactions))
	for i, t := range m.Transactions {
		out[i] = t.Name
	}
	return out
}

// mixDoc words a mix file's YAML syntax errors.
var mixDoc = yamltext.Doc{
	What:  "a mix",
	Empty: "a mix needs name:, tables: and transactions:",
	Holds: "one mapping (name, tables, transactions, ...)",
}

// Parse reads and validates a mix; file names it in errors.
func Parse(file string, data []byte) (*Mix, error) {
	sum := sha256.Sum256(data)
	c := &checker{yamltext.Problems{File: filepath.Base(file), Max: maxErrors}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, mixDoc.Error(c.File, data, err)
	}
	if len(doc.Content) == 0 {
		return nil, mixDoc.Error(c.File, data, io.EOF)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, fmt.Errorf("%s:%d: one mix per file: remove the second document", c.File, extra.Line)
	case !errors.Is(err, io.EOF):
		return nil, mixDoc.Error(c.File, data, err)
	}
	m := &Mix{File: file, SHA256: hex.EncodeToString(sum[:]), Source: data}
	root := doc.Content[0]
	f := c.mapping(root, "", "name", "description", "scale", "tables", "transactions", "pool", "critical")
	m.Name = c.str(f, "name", true)
	if m.Name != "" && strings.ContainsAny(m.Name, " \t/\\") {
		c.errorf(f.at("name"), "name", "%q: no spaces or slashes", m.Name)
	}
	m.Description = strings.TrimSpace(c.str(f, "description", false))
	m.Scale = c.num(f, "scale", 1)
	if m.Scale <= 0 {
		c.errorf(f.at("scale"), "scale", "must be > 0")
	}
	tables := c.list(f, "tables")
	if !f.has("tables") || len(tables) == 0 {
		c.errorf(f.at("tables"), "tables", "give at least one table")
	}
	for i, n := range tables {
		if t := c.table(n, yamltext.Item("tables", i)); t != nil {
			if m.Table(t.Name) != nil {
				c.errorf(n, yamltext.Item("tables", i)+".name", "table %q declared twice", t.Name)
				continue
			}
			m.Tables = append(m.Tables, t)
		}
	}
	if m.Scale > 0 {
		if err := m.CheckScale(m.Scale); err != nil {
			c.errorf(f.at("scale"), "scale", "%v", err)
		}
	}
	txns := c.list(f, "transactions")
	if !f.has("transactions") || len(txns) == 0 {
		c.errorf(f.at("transactions"), "transactions", "give at least one transaction")
	}
	var total float64
	negative := false
	seen := map[string]bool{}
	for i, n := range txns {
		t := c.txn(m, n, yamltext.Item("transactions", i))
		if t == nil {
			continue
		}
		if seen[t.Name] {
			c.errorf(n, yamltext.Item("transactions", i)+".name", "transaction %q declared twice", t.Name)
			continue
		}
		seen[t.Name] = true
		total += max(t.Weight, 0)
		negative = negative || t.Weight < 0
		m.Transactions = append(m.Transactions, t)
	}
	if len(txns) > 0 && len(m.Transactions) == len(txns) && total == 0 && !negative {
		c.errorf(f.keys["transactions"], "transactions", "every weight is 0: give at least one transaction a weight above 0")
	}
	c.population(m)
	c.gates(m, f)
	if err := c.err(); err != nil {
		return nil, err
	}
	return m, nil
}

func (c *checker) table(n *yaml.Node, path string) *Table {
	f := c.mapping(n, path, "name", "rows", "fixed", "columns", "primary_key", "indexes")
	t := &Table{Name: c.str(f, "name", true)}
	if !c.ident(f.at("name"), path+".name", t.Name) {
		return nil
	}
	t.Rows = c.integer(f, "rows", -1)
	switch {
	case t.Rows < 0:
		c.errorf(f.at("rows"), path+".rows", "give the rows at scale 1 (0 or more)")
	case t.Rows > MaxRows:
		c.errorf(f.at("rows"), path+".rows", "%d is more than the %d (2^53) rows a table may have", t.Rows, int64(MaxRows))
		t.Rows = MaxRows // reported; spares the scale's check a second error
	}
	t.Fixed = c.boolean(f, "fixed")
	cols := c.list(f, "columns")
	if len(cols) == 0 {
		c.errorf(f.at("columns"), path+".columns", "give at least one column")
	}
	for i, cn := range cols {
		cp := yamltext.Item(path+".columns", i)
		cf := c.mapping(cn, cp, "name", "type", "value")
		col := &Column{Name: c.str(cf, "name", true)}
		if !c.ident(cf.at("name"), cp+".name", col.Name) {
			continue
		}
		if t.Column(col.Name) != nil {
			c.errorf(cn, cp+".name", "column %q declared twice", col.Name)
			continue
		}
		typ := c.str(cf, "type", true)
		if typ != "" {
			ct, err := parseType(typ)
			if err != nil {
				c.errorf(cf.at("type"), cp+".type", "%v", err)
			}
			col.Type = ct
		}
		if cf.has("value") {
			col.Value = c.valueSpec(cf.values["value"], cp+".value")
		} else if t.Rows > 0 {
			c.errorf(cn, cp+".value", "missing: say how the population fills the column, e.g. value: {dist: uniform, min: 1, max: 100}")
		}
		if v := col.Value; v != nil && (col.Type.Kind == "blob") != (v.Dist == "bytes") {
			if col.Type.Kind == "blob" {
				c.errorf(cf.at("value"), cp+".value", "column %s is a blob: fill it with {dist: bytes, min: SIZE, max: SIZE}", col.Name)
			} else {
				c.errorf(cf.at("value"), cp+".value", "the bytes distribution fills blob columns only; column %s is %s", col.Name, col.Type)
			}
		}
		t.Columns = append(t.Columns, col)
	}
	t.PrimaryKey = c.strs(f, "primary_key")
	if len(t.PrimaryKey) == 0 {
		c.errorf(f.at("primary_key"), path+".primary_key", "missing: name the primary key's column(s)")
	}
	for _, k := range t.PrimaryKey {
		if col := t.Column(k); col == nil {
			c.errorf(f.at("primary_key"), path+".primary_key", "no column %q in table %s", k, t.Name)
		} else if col.Type.Kind == "blob" {
			c.errorf(f.at("primary_key"), path+".primary_key", "column %s is a blob, which cannot be a key", k)
		}
	}
	for i, in := range c.list(f, "indexes") {
		ip := yamltext.Item(path+".indexes", i)
		inf := c.mapping(in, ip, "name", "columns", "unique")
		ix := &Index{Columns: c.strs(inf, "columns"), Unique: c.boolean(inf, "unique")}
		if len(ix.Columns) == 0 {
			c.errorf(in, ip+".columns", "give the indexed column(s)")
		}
		for _, name := range ix.Columns {
			col := t.Column(name)
			if col == nil {
				c.errorf(inf.at("columns"), ip+".columns", "no column %q in table %s", name, t.Name)
			} else if col.Type.Kind == "text" || col.Type.Kind == "blob" {
				c.errorf(inf.at("columns"), ip+".columns", "column %s is %s, which MySQL cannot index without a prefix length: index another column", name, col.Type.Kind)
			}
		}
		ix.Name = c.str(inf, "name", false)
		if ix.Name == "" {
			ix.Name = t.Name + "_" + strings.Join(ix.Columns, "_")
		} else {
			c.ident(inf.at("name"), ip+".name", ix.Name)
		}
		t.Indexes = append(t.Indexes, ix)
	}
	return t
}

func (c *checker) txn(m *Mix, n *yaml.Node, path string) *Txn {
	f := c.mapping(n, path, "name", "weight", "params", "statements")
	t := &Txn{Name: c.str(f, "name", true)}
	if !c.ident(f.at("name"), path+".name", t.Name) {
		return nil
	}
	if !f.has("weight") {
		c.errorf(n, path+".weight", "missing: give the transaction's share of the mix (e.g. 40)")
	}
	t.Weight = c.num(f, "weight", 0)
	if t.Weight < 0 {
		c.errorf(f.at("weight"), path+".weight", "must be >= 0")
	}
	names := map[string]bool{}
	if pn, ok := f.values["params"]; ok {
		pf := c.mapping(pn, path+".params")
		for _, name := range pf.order {
			pp := path + ".params." + name
			if !c.ident(pf.keys[name], pp, name) {
				continue
			}
			spec := c.valueSpec(pf.values[name], pp)
			if spec != nil {
				c.runSpec(m, spec, pp)
			}
			t.Params = append(t.Params, &Param{Name: name, Value: spec})
			names[name] = true
		}
	}
	stmts := c.list(f, "statements")
	if len(stmts) == 0 {
		c.errorf(f.at("statements"), path+".statements", "give at least one statement")
	}
	stmtNames := map[string]bool{}
	for i, sn := range stmts {
		sp := yamltext.Item(path+".statements", i)
		sf := c.mapping(sn, sp, "name", "sql", "dialects", "into", "on_empty")
		s := &Statement{Name: c.str(sf, "name", true), SQL: strings.TrimSpace(c.str(sf, "sql", true)), Dialects: map[string]string{}}
		if !c.ident(sf.at("name"), sp+".name", s.Name) {
			continue
		}
		if stmtNames[s.Name] {
			c.errorf(sn, sp+".name", "statement %q declared twice in transaction %s", s.Name, t.Name)
		}
		stmtNames[s.Name] = true
		if dn, ok := sf.values["dialects"]; ok {
			df := c.mapping(dn, sp+".dialects", dialectNames()...)
			for _, d := range df.order {
				s.Dialects[d] = strings.TrimSpace(c.str(df, d, true))
			}
		}
		for _, text := range append([]string{s.SQL}, dialectTexts(s)...) {
			if text == "" {
				continue
			}
			refs, err := placeholders(text)
			if err != nil {
				c.errorf(sf.at("sql"), sp+".sql", "%v", err)
			}
			for _, r := range refs {
				if !names[r] {
					c.errorf(sf.at("sql"), sp+".sql", "unknown parameter :%s (declare it under params, or capture it with into: in an earlier statement)", r)
				}
			}
			for _, tbl := range tablesIn(text) {
				if m.Table(tbl) == nil {
					c.errorf(sf.at("sql"), sp+".sql", "table %q is not declared under tables", tbl)
				}
			}
		}
		s.Into = c.strs(sf, "into")
		for _, name := range s.Into {
			if c.ident(sf.at("into"), sp+".into", name) && names[name] {
				c.errorf(sf.at("into"), sp+".into", "%q is already a parameter or captured value", name)
			}
			names[name] = true
		}
		s.Query = len(s.Into) > 0 || returnsRows(s.SQL)
		s.OnEmpty = OnEmpty(c.str(sf, "on_empty", false))
		switch s.OnEmpty {
		case "":
			s.OnEmpty = EmptyError
		case EmptyError, EmptyRollback, EmptySkip:
			if len(s.Into) == 0 {
				c.errorf(sf.at("on_empty"), sp+".on_empty", "only a statement with into: can find no row")
			}
		default:
			c.errorf(sf.at("on_empty"), sp+".on_empty", "%q: use error, rollback or skip", s.OnEmpty)
		}
		t.Statements = append(t.Statements, s)
	}
	return t
}

func dialectTexts(s *Statement) []string {
	var out []string
	for _, d := range dialectNames() {
		if q, ok := s.Dialects[d]; ok {
			out = append(out, q)
		}
	}
	return out
}

// returnsRows tells a query from a statement that changes data by its first word.
func returnsRows(sql string) bool {
	w := strings.ToUpper(firstWord(sql))
	return w == "SELECT" || w == "WITH" || w == "VALUES" || w == "SHOW" || w == "EXPLAIN"
}

func firstWord(s string) string {
	s = strings.TrimLeft(s, " \t\r\n(")
	end := strings.IndexFunc(s, func(r rune) bool { return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
	if end < 0 {
		return s
	}
	return s[:end]
}

// ReadOnly reports whether every statement of t is a query.
func (t *Txn) ReadOnly() bool {
	for _, s := range t.Statements {
		if !s.Query {
			return false
		}
	}
	return true
}

// population checks the population's value specs against the tables.
func (c *checker) population(m *Mix) {
	for _, t := range m.Tables {
		for _, col := range t.Columns {
			if col.Value != nil {
				c.loadSpec(m, col.Value)
			}
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// gates reads the application's connection pool and critical sections.
func (c *checker) gates(m *Mix, f *fields) {
	if f.has("pool") {
		pool := c.integer(f, "pool", 0)
		if pool < 1 || pool > 1_000_000 {
			c.errorf(f.at("pool"), "pool", "%d: give the connections the application has, 1 or more (leave pool out for one a user)", pool)
		} else {
			m.Pool = int(pool)
		}
	}
	v, ok := f.values["critical"]
	if !ok {
		return
	}
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	for i, n := range items {
		path := "critical"
		if v.Kind == yaml.SequenceNode {
			path = yamltext.Item(path, i)
		}
		cf := c.mapping(n, path, "name", "holders", "around")
		cs := &Critical{Name: c.str(cf, "name", true), Holders: int(c.integer(cf, "holders", 1))}
		if !c.ident(cf.at("name"), path+".name", cs.Name) {
			continue
		}
		if cs.Name == "pool" {
			c.errorf(cf.at("name"), path+".name", "pool is the connection pool's name: call the section something else")
		}
		for _, o := range m.Critical {
			if o.Name == cs.Name {
				c.errorf(cf.at("name"), path+".name", "critical section %q declared twice", cs.Name)
			}
		}
		if cs.Holders < 1 {
			c.errorf(cf.at("holders"), path+".holders", "%d: at least 1 user must be able to hold it", cs.Holders)
		}
		cs.Around = c.strs(cf, "around")
		if len(cs.Around) == 0 {
			c.errorf(cf.at("around"), path+".around", "name the transactions (new_policy) or statements (read_policy.details) it is around")
		}
		level := ""
		for _, a := range cs.Around {
			txn, stmt, isStmt := strings.Cut(a, ".")
			t := m.txn(txn)
			switch {
			case t == nil:
				c.errorf(cf.at("around"), path+".around", "%q: no transaction %q in the mix (valid: %s)", a, txn, strings.Join(m.TxnNames(), ", "))
				continue
			case isStmt && t.statement(stmt) == nil:
				c.errorf(cf.at("around"), path+".around", "%q: transaction %s has no statement %q", a, txn, stmt)
				continue
			}
			l := map[bool]string{true: "statements", false: "transactions"}[isStmt]
			if level != "" && level != l {
				c.errorf(cf.at("around"), path+".around", "%q: section %s is around %s already; a section is around transactions or around statements, not both (so that users take sections in one order and never deadlock)", a, cs.Name, level)
			}
			level = l
		}
		m.Critical = append(m.Critical, cs)
	}
}

// txn returns the transaction called name, or nil.
func (m *Mix) txn(name string) *Txn {
	for _, t := range m.Transactions {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// statement returns t's statement called name, or nil.
func (t *Txn) statement(name string) *Statement {
	for _, s := range t.Statements {
		if s.Name == name {
			return s
		}
	}
	return nil
}
