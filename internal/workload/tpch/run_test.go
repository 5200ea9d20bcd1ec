package tpch

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tierbench/internal/engine"
)

func TestMinStreams(t *testing.T) {
	for _, tc := range []struct {
		sf   float64
		want int
	}{
		{0.01, 2}, {0.1, 2}, {1, 2}, {5, 2}, {10, 3}, {30, 4}, {99, 4}, {100, 5},
		{300, 6}, {1000, 7}, {3000, 8}, {10000, 9}, {30000, 10}, {100000, 11}, {200000, 11},
	} {
		if got := MinStreams(tc.sf); got != tc.want {
			t.Errorf("MinStreams(%g) = %d, want %d", tc.sf, got, tc.want)
		}
	}
}

func TestSeedFromTime(t *testing.T) {
	for _, tc := range []struct {
		at   time.Time
		want int64
	}{
		{time.Date(2026, 11, 23, 9, 5, 16, 0, time.UTC), 1123090516},
		{time.Date(2026, 1, 2, 3, 4, 5, 999, time.UTC), 102030405},
		{time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC), 1231235959},
		// Another zone, same instant: the seed is taken in UTC.
		{time.Date(2026, 1, 1, 1, 0, 0, 0, time.FixedZone("CET", 3600)), 101000000},
	} {
		if got := SeedFromTime(tc.at); got != tc.want {
			t.Errorf("SeedFromTime(%s) = %d, want %d", tc.at, got, tc.want)
		}
	}
}

func TestRunConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     RunConfig
		wantErr string
	}{
		{"ok", RunConfig{SF: 0.01}, ""},
		{"zero SF", RunConfig{}, "must be positive"},
		{"negative streams", RunConfig{SF: 1, Streams: -1}, "streams"},
		{"negative timeout", RunConfig{SF: 1, QueryTimeout: -time.Second}, "timeout"},
		{"validate SF 1 default", RunConfig{SF: 1, Validate: true, UseDefaultParams: true}, ""},
		{"validate SF 0.01", RunConfig{SF: 0.01, Validate: true, UseDefaultParams: true}, "SF 1"},
		{"validate seeded", RunConfig{SF: 1, Validate: true}, "default"},
		{"most streams", RunConfig{SF: 0.01, Streams: 998}, ""},
		{"more streams than update sets", RunConfig{SF: 0.01, Streams: 999}, "at most 998"},
		{"seed holds the generator", RunConfig{SF: 0.01, Seed: 2147483647}, "seed 2147483647 is a multiple of 2^31-1"},
		{"a stream's seed holds it", RunConfig{SF: 0.01, Streams: 8, Seed: 2147483640}, "stream 7 would use seed 2147483647"},
		{"the spec minimum's seed holds it", RunConfig{SF: 0.01, Seed: 2147483646}, "stream 1 would use seed 2147483647"},
		{"highest seed for 2 streams", RunConfig{SF: 0.01, Seed: 2147483644}, ""},
		{"default parameters use no seed", RunConfig{SF: 0.01, Seed: 2147483647, UseDefaultParams: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.check()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

var testDialect = &engine.Dialect{
	Name: "test", ColumnTypes: map[string]string{"decimal": "DECIMAL(%d,%d)", "date": "DATE"},
	Param: func(n int) string { return "$" + string(rune('0'+n)) },
}

func TestSchema(t *testing.T) {
	wantColumns := map[string]int{
		"part": 9, "supplier": 7, "partsupp": 5, "customer": 8,
		"orders": 9, "lineitem": 16, "nation": 4, "region": 3,
	}
	if len(tables) != len(wantColumns) {
		t.Fatalf("%d tables, want %d", len(tables), len(wantColumns))
	}
	for _, tb := range tables {
		if got := len(tb.columns); got != wantColumns[tb.name] {
			t.Errorf("%s has %d columns, want %d", tb.name, got, wantColumns[tb.name])
		}
		for _, k := range tb.primaryKey {
			if !strings.Contains(strings.Join(tb.columnNames(), ","), k) {
				t.Errorf("%s: primary key column %s is not a column", tb.name, k)
			}
		}
	}
	orders, _ := tableByName("orders")
	got := orders.createSQL(testDialect, 1)
	want := "CREATE TABLE orders (o_orderkey INTEGER NOT NULL, o_custkey INTEGER NOT NULL, " +
		"o_orderstatus CHAR(1) NOT NULL, o_totalprice DECIMAL(15,2) NOT NULL, o_orderdate DATE NOT NULL, " +
		"o_orderpriority CHAR(15) NOT NULL, o_clerk CHAR(15) NOT NULL, o_shippriority INTEGER NOT NULL, " +
		"o_comment VARCHAR(79) NOT NULL)"
	if got != want {
		t.Errorf("createSQL:\n got %s\nwant %s", got, want)
	}
	// Order keys outgrow 31 bits between SF 300 and SF 1000; customer keys do not.
	if s := orders.createSQL(testDialect, 1000); !strings.Contains(s, "o_orderkey BIGINT") || !strings.Contains(s, "o_custkey INTEGER") {
		t.Errorf("SF 1000: %s", s)
	}
	if s := orders.createSQL(testDialect, 300); !strings.Contains(s, "o_orderkey INTEGER") {
		t.Errorf("SF 300: %s", s)
	}
	li, _ := tableByName("lineitem")
	if got := li.indexSQL(); len(got) != 1 || got[0] != "CREATE INDEX lineitem_l_partkey_l_suppkey_idx ON lineitem (l_partkey, l_suppkey)" {
		t.Errorf("lineitem indexes: %q", got)
	}
	if got := li.primaryKeySQL(); got != "ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber)" {
		t.Errorf("lineitem primary key: %s", got)
	}
	// Index names must be unique across the schema (PostgreSQL).
	seen := map[string]bool{}
	for _, tb := range tables {
		for _, stmt := range append(tb.indexSQL(), tb.uniqueKeySQL()) {
			name := strings.Fields(stmt)[2]
			if name == "INDEX" {
				name = strings.Fields(stmt)[3]
			}
			if seen[name] {
				t.Errorf("index name %s used twice", name)
			}
			seen[name] = true
		}
	}
}

func TestRowArgs(t *testing.T) {
	orders, _ := tableByName("orders")
	line := "9|12658|O|129872.68|1998-07-06|4-NOT SPECIFIED|Clerk#000000248|0| blithely final packages|"
	args, err := rowArgs(orders, tblFields(line))
	if err != nil {
		t.Fatal(err)
	}
	if args[0] != int64(9) || args[1] != int64(12658) || args[3] != "129872.68" || args[7] != int64(0) || args[8] != " blithely final packages" {
		t.Errorf("rowArgs = %#v", args)
	}
	if _, err := rowArgs(orders, tblFields("9|12658|O|")); err == nil {
		t.Error("short row accepted")
	}
	if _, err := rowArgs(orders, tblFields(strings.Replace(line, "12658", "x", 1))); err == nil {
		t.Error("non-numeric key accepted")
	}
	var lines []string
	tblLines([]byte("1|\n\n2|\n3|"), func(l string) error { lines = append(lines, l); return nil })
	if strings.Join(lines, ",") != "1|,2|,3|" {
		t.Errorf("tblLines: %q", lines)
	}
}

func TestParallel(t *testing.T) {
	var running, peak atomic.Int32
	err := parallel(context.Background(), 2, []string{"a", "b", "c", "d", "e"}, func(ctx context.Context, s string) error {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
		return nil
	})
	if err != nil || peak.Load() > 2 {
		t.Fatalf("err %v, peak %d (limit 2)", err, peak.Load())
	}
	boom := errors.New("boom")
	var after atomic.Int32
	err = parallel(context.Background(), 1, []string{"a", "b", "c"}, func(ctx context.Context, s string) error {
		if s == "a" {
			return boom
		}
		after.Add(1)
		return nil
	})
	if !errors.Is(err, boom) || after.Load() != 0 {
		t.Fatalf("err %v, %d items ran after the failure", err, after.Load())
	}
}
