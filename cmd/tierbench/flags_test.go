package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the tierbench command line in-process and returns stdout and the error.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, _, err := runCLIStderr(t, args...)
	return out, err
}

// runCLIStderr is runCLI that also returns what the command wrote to stderr.
func runCLIStderr(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := newRootCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// parseFlag parses one flag of the command at path as the command line would and
// returns the value it holds afterwards.
func parseFlag(t *testing.T, path []string, flag, value string) (string, error) {
	t.Helper()
	cmd, _, err := newRootCommand().Find(path)
	if err != nil {
		t.Fatalf("%v: %v", path, err)
	}
	if err := cmd.ParseFlags([]string{"--" + flag, value}); err != nil {
		return "", err
	}
	return cmd.Flags().Lookup(flag).Value.String(), nil
}

// TestSeedFlagsAreDecimal checks all five --seed flags: pflag's own int flags read
// "0101000000" as octal 17039360 and refused "0923101500" with strconv's message.
func TestSeedFlagsAreDecimal(t *testing.T) {
	tpchSeed := [][]string{{"tpch", "qgen"}, {"tpch", "run"}}
	generatorSeed := [][]string{{"oltp", "load"}, {"oltp", "run"}, {"tpcc", "load"}, {"tpcc", "run"}}
	for _, tc := range []struct {
		commands [][]string
		in       string
		want     string // "" when the value is refused
	}{
		{append(tpchSeed, generatorSeed...), "0101000000", "101000000"},
		{append(tpchSeed, generatorSeed...), "0923101500", "923101500"},
		{append(tpchSeed, generatorSeed...), "1231235959", "1231235959"},
		{append(tpchSeed, generatorSeed...), "007", "7"},
		{append(tpchSeed, generatorSeed...), "0x10", ""},
		{append(tpchSeed, generatorSeed...), "0b101", ""},
		{append(tpchSeed, generatorSeed...), "1_000", ""},
		{append(tpchSeed, generatorSeed...), "12ab", ""},
		{append(tpchSeed, generatorSeed...), "", ""},
		{append(tpchSeed, generatorSeed...), "99999999999999999999", ""},
		{tpchSeed, "2147483646", "2147483646"},
		{tpchSeed, "2147483647", ""}, // holds qgen's generator at 0
		{tpchSeed, "-1", ""},
		{generatorSeed, "2147483647", "2147483647"},
		{generatorSeed, "-1", "-1"},
	} {
		for _, path := range tc.commands {
			t.Run(strings.Join(path, " ")+" "+tc.in, func(t *testing.T) {
				got, err := parseFlag(t, path, "seed", tc.in)
				if tc.want != "" {
					if err != nil || got != tc.want {
						t.Fatalf("--seed %q = %q, %v; want %s", tc.in, got, err, tc.want)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), `"--seed"`) || !strings.Contains(err.Error(), "decimal whole number") ||
					strings.Contains(err.Error(), "strconv") || strings.Contains(err.Error(), "\n") {
					t.Fatalf("--seed %q: error %v, want one line naming --seed and what is valid", tc.in, err)
				}
			})
		}
	}
}

// TestTPCHIntFlagsAreDecimal: the integer flags of the tpch commands read decimal
// only, as --seed does ("010" was 8, "0x4" 4).
func TestTPCHIntFlagsAreDecimal(t *testing.T) {
	for _, tc := range []struct {
		path []string
		flag string
	}{
		{[]string{"tpch", "run"}, "streams"},
		{[]string{"tpch", "qgen"}, "stream"},
		{[]string{"tpch", "gen"}, "chunks"},
		{[]string{"tpch", "gen"}, "step"},
		{[]string{"tpch", "gen"}, "updates"},
		{[]string{"tpch", "gen"}, "workers"},
	} {
		if got, err := parseFlag(t, tc.path, tc.flag, "010"); err != nil || got != "10" {
			t.Errorf("--%s 010 = %q, %v; want 10", tc.flag, got, err)
		}
		if _, err := parseFlag(t, tc.path, tc.flag, "0x4"); err == nil || !strings.Contains(err.Error(), `"--`+tc.flag+`"`) || !strings.Contains(err.Error(), "decimal") {
			t.Errorf("--%s 0x4: error %v, want one naming the flag", tc.flag, err)
		}
	}
}

func TestBadInputNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	readOnly := filepath.Join(dir, "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"unknown engine", []string{"tpch", "run", "--engine", "oracle", "--sf", "0.01", "--out", dir}, `--engine "oracle": unknown engine: valid engines are mysql, postgres, sqlite`},
		{"negative sf", []string{"tpch", "run", "--sf", "-2", "--out", dir}, "--sf -2 is too small"},
		{"malformed sf", []string{"tpch", "gen", "--sf", "1x", "--out", dir}, `--sf "1x" is not a number`},
		{"missing out", []string{"tpch", "run", "--sf", "0.01"}, "--out is required"},
		{"unknown table", []string{"tpch", "gen", "--sf", "0.01", "--tables", "orders,items", "--out", dir}, `unknown table "items"`},
		{"step beyond chunks", []string{"tpch", "gen", "--sf", "0.01", "--chunks", "4", "--step", "5", "--out", dir}, "--step 5: with --chunks 4 give a step from 1 to 4"},
		{"validate off SF 1", []string{"tpch", "run", "--sf", "0.1", "--validate", "--out", dir}, "only at SF 1"},
		{"set on external", []string{"tpch", "run", "--engine", "postgres", "--dsn", "postgres://x@127.0.0.1:1/db", "--set", "work_mem=1MB", "--sf", "0.01", "--out", dir}, "never does on an external server"},
		{"bad buffer", []string{"tpch", "run", "--buffer", "huge", "--sf", "0.01", "--out", dir}, `--buffer "huge" is not a size`},
		{"unknown dialect", []string{"tpch", "qgen", "--dialect", "oracle"}, `unknown SQL dialect "oracle"`},
		{"too many streams", []string{"tpch", "run", "--sf", "0.01", "--streams", "100000", "--out", dir}, "--streams 100000: give 0 (the spec minimum for the SF) up to 998"},
		{"stream seed stuck", []string{"tpch", "run", "--sf", "0.01", "--streams", "8", "--seed", "2147483640", "--out", dir}, "--seed 2147483640 with 8 query streams: stream 7 would use seed 2147483647"},
		{"default streams seed stuck", []string{"tpch", "run", "--sf", "0.01", "--seed", "2147483646", "--out", dir}, "stream 1 would use seed 2147483647"},
		{"seed beyond qgen", []string{"tpch", "qgen", "--params", "--seed", "2147483647"}, `invalid argument "2147483647" for "--seed" flag: a seed is a decimal whole number from 0 to 2147483646`},
		{"gen beyond the disk", []string{"tpch", "gen", "--sf", "100000", "--out", dir}, "tpch gen --sf 100000 needs about"},
		{"gen past the last update set", []string{"tpch", "gen", "--sf", "0.01", "--updates", "1000000000000", "--out", dir}, "--updates 1000000000000: at SF 0.01 dbgen's refresh data has sets 1 to 999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runCLI(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
	if os.Geteuid() != 0 { // root writes anywhere, so the check cannot fire there
		_, err := runCLI(t, "tpch", "gen", "--sf", "0.01", "--out", filepath.Join(readOnly, "x"))
		if err == nil || !strings.Contains(err.Error(), "choose a directory you can write to") {
			t.Fatalf("unwritable --out: error = %v", err)
		}
	}
}

func TestDSNPasswordNeverPrinted(t *testing.T) {
	_, err := runCLI(t, "tpch", "run", "--engine", "postgres", "--dsn", "postgres://bench:s3cretpw@127.0.0.1:1/db?connect_timeout=2", "--sf", "0.01", "--out", t.TempDir())
	if err == nil {
		t.Fatal("connecting to port 1 succeeded")
	}
	if strings.Contains(err.Error(), "s3cretpw") {
		t.Fatalf("the password appears in the error: %v", err)
	}
}

func TestGenAndQgenCommands(t *testing.T) {
	dir := t.TempDir()
	out, err := runCLI(t, "tpch", "gen", "--sf", "0.01", "--tables", "nation,region,supplier", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "generated nation, region, supplier at SF 0.01") {
		t.Errorf("gen output: %q", out)
	}
	for table, rows := range map[string]int{"nation": 25, "region": 5, "supplier": 100} {
		b, err := os.ReadFile(filepath.Join(dir, table+".tbl"))
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte("\n")); n != rows {
			t.Errorf("%s.tbl has %d rows, want %d", table, n, rows)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "orders.tbl")); !os.IsNotExist(err) {
		t.Errorf("orders.tbl was written although --tables did not ask for it (stat: %v)", err)
	}

	// --params must be exactly the TPC's reference file for the first seed of CMD_QGEN.
	ref := filepath.Join("..", "..", "..", "shared", "reference", "tpch", "ref_data_sf1", "subparam_1")
	want, err := os.ReadFile(ref)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("reference data missing under CI: %v", err)
		}
		t.Skipf("reference data not found: %v", err)
	}
	// CMD_QGEN writes the seed as 0101000000, which qgen's atol reads as decimal.
	for _, seed := range []string{"101000000", "0101000000"} {
		got, err := runCLI(t, "tpch", "qgen", "--sf", "1", "--seed", seed, "--params")
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("qgen --seed %s --params differs from subparam_1:\n%s\nwant:\n%s", seed, got, want)
		}
	}
	sql, err := runCLI(t, "tpch", "qgen", "--dialect", "sqlite", "--default", "--stream", "1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(sql, "-- Q") != 22 || !strings.HasPrefix(sql, "-- Q21 (stream 1, position 1)") {
		t.Errorf("stream 1 should print 22 queries starting with Q21, got:\n%.200s", sql)
	}
}
