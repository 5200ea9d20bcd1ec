package qgen

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// These tests run the generated SQL on real servers. They need a server, so
// they run only when given one:
//
//	TIERBENCH_QGEN_POSTGRES_DSN  e.g. "host=/tmp user=postgres dbname=postgres"
//	TIERBENCH_QGEN_MYSQL_DSN     e.g. "root@unix(/tmp/mysql.sock)/"
//
// Each creates a scratch schema/database, loads the empty TPC-H schema, runs
// streams 0..2 and the qualification set, and drops the scratch schema.

// schemaStatements returns the statements of testdata/schema_ansi.sql.
func schemaStatements(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("testdata/schema_ansi.sql")
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	for _, s := range strings.Split(string(src), ";") {
		var lines []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				lines = append(lines, l)
			}
		}
		if s := strings.TrimSpace(strings.Join(lines, "\n")); s != "" {
			stmts = append(stmts, s)
		}
	}
	return stmts
}

// serverStreams returns the queries the server tests run for a dialect.
func serverStreams(t *testing.T, dialect string) []Query {
	t.Helper()
	var all []Query
	for stream := range 3 {
		qs, err := Stream(dialect, 1, StreamSeed(1231235959, stream), stream, false)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, qs...)
	}
	qs, err := Stream(dialect, 1, 0, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	return append(all, qs...)
}

func TestStreamsRunOnPostgres(t *testing.T) {
	dsn := os.Getenv("TIERBENCH_QGEN_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("TIERBENCH_QGEN_POSTGRES_DSN not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	schema := fmt.Sprintf("qgen_test_%d", os.Getpid())
	exec := func(s string) {
		t.Helper()
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
	exec("create schema " + schema)
	defer conn.Exec(context.Background(), "drop schema "+schema+" cascade")
	exec("set search_path to " + schema)
	for _, s := range schemaStatements(t) {
		exec(s)
	}
	for _, q := range serverStreams(t, "postgres") {
		for _, s := range q.Setup {
			exec(s)
		}
		rows, err := conn.Query(ctx, q.SQL)
		if err != nil {
			t.Fatalf("Q%d: %v\n%s", q.Number, err, q.SQL)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("Q%d: %v\n%s", q.Number, err, q.SQL)
		}
		for _, s := range q.Teardown {
			exec(s)
		}
	}
}

func TestStreamsRunOnMySQL(t *testing.T) {
	dsn := os.Getenv("TIERBENCH_QGEN_MYSQL_DSN")
	if dsn == "" {
		t.Skip("TIERBENCH_QGEN_MYSQL_DSN not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx) // one session, so "use" applies to every statement
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	name := fmt.Sprintf("qgen_test_%d", os.Getpid())
	exec := func(s string) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
	exec("create database " + name)
	defer conn.ExecContext(context.Background(), "drop database "+name)
	exec("use " + name)
	for _, s := range schemaStatements(t) {
		exec(s)
	}
	for _, q := range serverStreams(t, "mysql") {
		for _, s := range q.Setup {
			exec(s)
		}
		rows, err := conn.QueryContext(ctx, q.SQL)
		if err != nil {
			t.Fatalf("Q%d: %v\n%s", q.Number, err, q.SQL)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("Q%d: %v\n%s", q.Number, err, q.SQL)
		}
		rows.Close()
		for _, s := range q.Teardown {
			exec(s)
		}
	}
}
