package main

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/engine"
)

func TestOLTPBadInput(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.yaml")
	src, err := os.ReadFile("../../internal/workload/oltp/testdata/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	noWeights := strings.NewReplacer("weight: 3", "weight: 0", "weight: 1", "weight: 0").Replace(string(src))
	if err := os.WriteFile(zero, []byte(noWeights), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"zero users", []string{"oltp", "run", "--mix", "point-select", "--users", "0", "--out", dir}, `--users "0": every level needs at least 1 virtual user`},
		{"negative users in a sweep", []string{"oltp", "run", "--mix", "point-select", "--users", "1,-4", "--out", dir}, `--users "1,-4": every level needs at least 1 virtual user`},
		{"users not a number", []string{"oltp", "run", "--mix", "point-select", "--users", "many", "--out", dir}, `--users "many": give a number of virtual users`},
		{"duration does not parse", []string{"oltp", "run", "--mix", "point-select", "--duration", "5 minutes", "--out", dir}, `invalid argument "5 minutes" for "--duration"`},
		{"zero duration", []string{"oltp", "run", "--mix", "point-select", "--duration", "0s", "--out", dir}, "--duration 0s: give a positive duration"},
		{"negative think", []string{"oltp", "run", "--mix", "point-select", "--think", "-1s", "--out", dir}, "cannot be negative"},
		{"rate and think", []string{"oltp", "run", "--mix", "point-select", "--rate", "10", "--think", "1s", "--out", dir}, "--rate and --think are exclusive"},
		{"sample 0", []string{"oltp", "run", "--mix", "point-select", "--sample", "0", "--out", dir}, "--sample 0: give how often to sample, above 0"},
		{"sample negative", []string{"oltp", "run", "--mix", "point-select", "--sample", "-1s", "--out", dir}, "--sample -1s: give how often to sample, above 0"},
		{"server pid of a managed server", []string{"oltp", "run", "--mix", "point-select", "--server-pid", "1", "--out", dir}, "--server-pid 1: tierbench knows the process of the server it runs"},
		{"metrics addr without a port", []string{"oltp", "run", "--mix", "point-select", "--metrics-addr", "localhost", "--out", dir}, `--metrics-addr "localhost": give HOST:PORT`},
		{"all weights zero", []string{"oltp", "run", "--mix", zero, "--out", dir}, "--mix: zero.yaml:18: transactions: every weight is 0"},
		{"unknown mix", []string{"oltp", "load", "--mix", "tpcx", "--out", dir}, `--mix: no mix "tpcx": name a bundled mix (bbs, ecommerce, ecommerce-images, point-select, policy, policy-synchronized)`},
		{"missing mix file", []string{"oltp", "load", "--mix", "./nope.yaml", "--out", dir}, "--mix: mix file: open ./nope.yaml: no such file"},
		{"no mix", []string{"oltp", "load", "--out", dir}, `required flag(s) "mix" not set`},
		{"warehouses past W_ID", []string{"tpcc", "load", "--warehouses", "2147483648", "--out", dir}, "--warehouses 2147483648: give 1 to 2147483647 (W_ID is a 32-bit INT)"},
		{"rate NaN", []string{"oltp", "run", "--mix", "point-select", "--rate", "NaN", "--out", dir}, "--rate NaN: give transactions per second"},
		{"rate Inf", []string{"tpcc", "run", "--rate", "Inf", "--out", dir}, "--rate +Inf: give transactions per second"},
		{"interval too short", []string{"oltp", "run", "--mix", "point-select", "--interval", "1ns", "--out", dir}, "--interval 1ns: give 100ms or more (0: 10s)"},
		{"error share above 1", []string{"oltp", "run", "--mix", "point-select", "--max-error-share", "2", "--out", dir}, "--max-error-share 2: give a share from 0 to 1"},
		{"error share NaN", []string{"tpcc", "run", "--max-error-share", "NaN", "--out", dir}, "--max-error-share NaN: give a share from 0 to 1"},
		{"negative scale", []string{"oltp", "load", "--mix", "policy", "--scale", "-1", "--out", dir}, "--scale -1: give a finite factor above 0"},
		{"scale NaN", []string{"oltp", "load", "--mix", "policy", "--scale", "NaN", "--out", dir}, "--scale NaN: give a finite factor above 0"},
		{"scale Inf", []string{"oltp", "load", "--mix", "policy", "--scale", "Inf", "--out", dir}, "--scale +Inf: give a finite factor above 0"},
		// policy's customer table has 50,000 rows at scale 1.
		{"scale overflows the rows", []string{"oltp", "load", "--mix", "policy", "--scale", "1e300", "--out", dir},
			"--scale 1e+300: table customer would have 5e+304 rows (rows: 50000 x scale 1e+300), more than the 9007199254740992 (2^53) a table may have"},
		{"missing out", []string{"oltp", "load", "--mix", "policy"}, "--out is required"},
		{"show unknown", []string{"oltp", "show", "tpcx"}, `no bundled mix "tpcx"`},
		{"show nothing", []string{"oltp", "show"}, "give one bundled mix: bbs, ecommerce, ecommerce-images, point-select, policy, policy-synchronized"},
		{"run before load", []string{"oltp", "run", "--mix", "point-select", "--duration", "1s", "--out", filepath.Join(dir, "empty")}, "empty holds no load (no oltp-load.json): run `tierbench oltp load --mix point-select --engine sqlite --out "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runCLI(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
			}
			if strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

// busyAddr is an address something listens on until t ends.
func busyAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOLTPUnreachableServer(t *testing.T) {
	for _, eng := range []string{"postgres", "mysql"} {
		dsn := "postgres://bench:s3cretpw@127.0.0.1:1/db?connect_timeout=2"
		if eng == "mysql" {
			dsn = "bench:s3cretpw@tcp(127.0.0.1:1)/db?timeout=2s"
		}
		_, err := runCLI(t, "oltp", "run", "--engine", eng, "--dsn", dsn, "--mix", "policy", "--duration", "1s", "--out", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "cannot connect") || strings.Contains(err.Error(), "s3cretpw") {
			t.Errorf("%s: error = %v", eng, err)
		}
	}
}

func TestOLTPCommands(t *testing.T) {
	out, err := runCLI(t, "oltp", "mixes")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bbs", "ecommerce", "point-select", "policy", "read_policy 40"} {
		if !strings.Contains(out, name) {
			t.Errorf("oltp mixes lacks %q:\n%s", name, out)
		}
	}
	yaml, err := runCLI(t, "oltp", "show", "policy")
	if err != nil || !strings.HasPrefix(yaml, "# policy:") || !strings.Contains(yaml, "renew_policy") {
		t.Fatalf("oltp show policy: %v\n%.200s", err, yaml)
	}
	// The printed mix is a valid mix file of its own.
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(mine, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	load, err := runCLI(t, "oltp", "load", "--mix", mine, "--scale", "0.01", "--out", dir)
	if err != nil || !strings.Contains(load, "loaded mix policy at scale 0.01 into sqlite") {
		t.Fatalf("load: %v\n%s", err, load)
	}
	run, err := runCLI(t, "oltp", "run", "--mix", mine, "--users", "1,2", "--ramp", "0s", "--duration", "1s", "--interval", "1s", "--out", dir)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, run)
	}
	for _, want := range []string{"mix policy on sqlite", "read_policy", "concurrency sweep", "process CPU (tierbench and the embedded engine): ", "result: "} {
		if !strings.Contains(run, want) {
			t.Errorf("run output lacks %q:\n%s", want, run)
		}
	}
	if !strings.Contains(run, "monitoring, ") || !strings.Contains(run, "  host: CPU ") {
		t.Errorf("run output lacks the monitoring lines:\n%s", run)
	}
	var res struct {
		Monitoring struct {
			Samples int `json:"samples"`
			Windows []struct {
				Users   int `json:"users"`
				Samples int `json:"samples"`
			} `json:"windows"`
		} `json:"monitoring"`
		TPS    float64 `json:"tps"`
		QPS    float64 `json:"qps"`
		Mix    string  `json:"mix"`
		Levels []struct {
			Users     int `json:"users"`
			ClientCPU *struct {
				Seconds  float64 `json:"seconds"`
				USPerTxn float64 `json:"us_per_transaction"`
			} `json:"client_cpu"`
		} `json:"levels"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "result.json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.TPS <= 0 || res.QPS < res.TPS || res.Mix != "policy" || len(res.Levels) != 2 {
		t.Errorf("result.json: %+v", res)
	}
	// Sampled by default: each level's window is summarised, and every sample is in
	// metrics.jsonl.
	mon := res.Monitoring
	if len(mon.Windows) != 2 || mon.Windows[0].Users != 1 || mon.Windows[1].Users != 2 || mon.Windows[1].Samples < 1 {
		t.Errorf("monitoring windows %+v", mon.Windows)
	}
	if lines := strings.Count(string(mustRead(t, filepath.Join(dir, "metrics.jsonl"))), "\n"); lines != mon.Samples || lines < 3 {
		t.Errorf("metrics.jsonl has %d lines, the summary counts %d samples", lines, mon.Samples)
	}
	// SQLite runs in the process: each level's window cost it CPU, a transaction some.
	for _, l := range res.Levels {
		if l.ClientCPU == nil || l.ClientCPU.Seconds <= 0 || l.ClientCPU.USPerTxn <= 0 {
			t.Errorf("level %d: client_cpu %+v, want the process's CPU over the window", l.Users, l.ClientCPU)
		}
	}
	// Another mix on the same --out must be loaded first.
	if _, err := runCLI(t, "oltp", "run", "--mix", "bbs", "--duration", "1s", "--out", dir); err == nil ||
		!strings.Contains(err.Error(), "holds the policy mix's data: run `tierbench oltp load --mix bbs") {
		t.Errorf("bbs on policy's data: %v", err)
	}
}

// TestOLTPRunNotOK: a mix with a transaction type that fails every time runs its
// window, then says first that the run is not ok and why, records it in result.json
// and returns an error (a non-zero exit), keeping what was measured.
func TestOLTPRunNotOK(t *testing.T) {
	dir := t.TempDir()
	src := string(mustRead(t, "../../internal/workload/oltp/testdata/tiny.yaml"))
	src = src[:strings.Index(src, "transactions:")] + `transactions:
  - name: get
    weight: 1
    params:
      id: {dist: key, table: kv}
    statements:
      - name: read
        sql: SELECT v FROM kv WHERE id = :id
  - name: dup
    weight: 1
    params:
      id: {dist: key, table: kv}
    statements:
      - name: insert_existing
        sql: INSERT INTO kv (id, grp, pos, v, price, day, tag, ref) VALUES (:id, 1, 1, 'x', 1, '2024-01-01', 'x', 1)
`
	file := filepath.Join(dir, "dup.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := runCLI(t, "oltp", "load", "--mix", file, "--out", dir); err != nil {
		t.Fatalf("load: %v\n%s", err, out)
	}
	out, err := runCLI(t, "oltp", "run", "--mix", file, "--ramp", "0s", "--duration", "1s", "--interval", "1s", "--max-error-share", "0.6", "--out", dir)
	const why = "run failed: transaction type dup failed every time it ran ("
	if err == nil || !strings.HasPrefix(err.Error(), why) || !strings.Contains(err.Error(), "(what was measured is kept in "+filepath.Join(dir, "result.json")+")") {
		t.Fatalf("error %v, want one that begins %q and says where the measurements are", err, why)
	}
	summary := out[strings.Index(out, "\n\n")+2:] // after the interval lines
	if !strings.HasPrefix(summary, "NOT OK: "+why) {
		t.Errorf("the summary does not begin with the status:\n%s", summary)
	}
	var res struct {
		Status        string  `json:"status"`
		Error         string  `json:"error"`
		TPS           float64 `json:"tps"`
		MaxErrorShare float64 `json:"max_error_share"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "result.json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != "failed" || !strings.HasPrefix(res.Error, why) || res.TPS <= 0 || res.MaxErrorShare != 0.6 {
		t.Errorf("result.json: %+v", res)
	}
}

// TestRefusesWhatCannotFit: loads and runs whose estimate exceeds this host's memory
// or disk stop before anything starts (no server, no database directory), with one
// line that gives the estimate, the limit and the override: 10^11 TPC-C warehouses
// (refused as more than W_ID holds), 100,000 PostgreSQL users and a table of 10^12
// rows each used to start a run that could only fail.
func TestRefusesWhatCannotFit(t *testing.T) {
	dir := t.TempDir()
	src := string(mustRead(t, "../../internal/workload/oltp/testdata/tiny.yaml"))
	huge := filepath.Join(dir, "huge.yaml")
	if err := os.WriteFile(huge, []byte(strings.Replace(src, "rows: 1000\n", "rows: 1000000000000\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"warehouses", []string{"tpcc", "load", "--warehouses", "1000000"},
			[]string{"tpcc load --warehouses 1000000 needs about 100 TiB of disk on ", "(about 105 MiB per warehouse and 1.0 GiB for the engine's log"}},
		{"rows", []string{"oltp", "load", "--mix", huge},
			[]string{"oltp load --mix tiny --scale 1 needs about ", " TiB of disk on ", "the mix's rows by their column types"}},
		// --db names a database, so the runs get past "--out holds no load" to the estimate.
		{"postgres users", []string{"oltp", "run", "--engine", "postgres", "--mix", "policy", "--users", "10000000", "--db", filepath.Join(dir, "pgdb")},
			[]string{"oltp run --users 10000000 needs about ", " TiB of memory, but this host has ", "about 2.1 MiB per user: 2.0 MiB for the postgres session and 128 KiB for tierbench's own"}},
		{"mysql users in a sweep", []string{"tpcc", "run", "--engine", "mysql", "--users", "1,10000000", "--db", filepath.Join(dir, "mydb")},
			[]string{"tpcc run --users 1,10000000 needs about ", "1.0 MiB for the mysql session"}},
		{"external server", []string{"oltp", "run", "--engine", "postgres", "--dsn", "postgres://x@127.0.0.1:1/db", "--mix", "policy", "--users", "100000000"},
			[]string{"oltp run --users 100000000 needs about ", "(about 128 KiB per user for tierbench)"}},
		// refused before the managed server is set up, not after
		{"tpch scale factor", []string{"tpch", "run", "--engine", "postgres", "--sf", "30000"},
			[]string{"tpch run --sf 30000 --streams 10 needs about ", " of disk on ", "a postgres database of "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name)
			_, err := runCLI(t, append(tc.args, "--out", out)...)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tc.want, "give --ignore-limits to run it anyway") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			if _, err := os.Stat(filepath.Join(out, "db")); !os.IsNotExist(err) {
				t.Errorf("the refused command left %s/db (%v)", out, err)
			}
		})
	}
	// --ignore-limits lets the same command past the estimate: it goes on to the next
	// check, here that --db holds no database, without building one.
	t.Run("ignore-limits", func(t *testing.T) {
		db := filepath.Join(dir, "nodb")
		_, err := runCLI(t, "oltp", "run", "--engine", "postgres", "--mix", "policy", "--users", "10000000", "--db", db, "--ignore-limits", "--out", filepath.Join(dir, "ignored"))
		if err == nil || strings.Contains(err.Error(), "--ignore-limits") {
			t.Fatalf("error %v, want one past the estimate", err)
		}
		var none *engine.NoDatabaseError
		if !errors.As(err, &none) {
			t.Errorf("error %q (%T), want the missing database", err, err)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want nothing created", db, err)
		}
	})
}
