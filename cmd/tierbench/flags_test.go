package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSF(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    float64
		wantErr string
	}{
		{"1", 1, ""},
		{"0.01", 0.01, ""},
		{" 0.37 ", 0.37, ""},
		{"10000", 10000, ""},
		{"0.001", 0, "at least 0.01"},
		{"-1", 0, "at least 0.01"},
		{"abc", 0, "not a number"},
		{"NaN", 0, "not a number"},
		{"1.5", 0, "whole numbers"},
		{"100000", 100000, ""},
		{"100001", 0, "too large"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseSF(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseSF(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("parseSF(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1048576", 1 << 20},
		{"256MB", 256 << 20},
		{"2GiB", 2 << 30},
		{"1g", 1 << 30},
		{"512 KiB", 512 << 10},
		{"1.5G", 3 << 29},
	} {
		got, err := parseSize("--buffer", tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "lots", "-5MB", "12XB"} {
		if _, err := parseSize("--buffer", bad); err == nil || !strings.Contains(err.Error(), "--buffer") {
			t.Errorf("parseSize(%q) error = %v, want one naming --buffer", bad, err)
		}
	}
}

// runCLI runs the tierbench command line in-process and returns stdout and the error.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
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
	got, err := runCLI(t, "tpch", "qgen", "--sf", "1", "--seed", "101000000", "--params")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("qgen --params differs from subparam_1:\n%s\nwant:\n%s", got, want)
	}
	sql, err := runCLI(t, "tpch", "qgen", "--dialect", "sqlite", "--default", "--stream", "1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(sql, "-- Q") != 22 || !strings.HasPrefix(sql, "-- Q21 (stream 1, position 1)") {
		t.Errorf("stream 1 should print 22 queries starting with Q21, got:\n%.200s", sql)
	}
}
