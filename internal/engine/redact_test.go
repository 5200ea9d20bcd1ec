package engine

import (
	"errors"
	"strings"
	"testing"
)

func TestRedactDSN(t *testing.T) {
	tests := []struct{ dsn, want string }{
		{"postgres://bob:s3cret@db.example:5432/tpch?sslmode=disable", "postgres://bob:xxxxx@db.example:5432/tpch?sslmode=disable"},
		{"postgres://bob@db.example/tpch", "postgres://bob@db.example/tpch"},
		{"postgresql://db.example/tpch?password=s3cret&user=bob", "postgresql://db.example/tpch?password=xxxxx&user=bob"},
		{"host=db.example user=bob password=s3cret dbname=tpch", "host=db.example user=bob password=xxxxx dbname=tpch"},
		{"host=db.example password='s3 cret' dbname=tpch", "host=db.example password=xxxxx dbname=tpch"},
		{"bob:s3cret@tcp(db.example:3306)/tpch", "bob:xxxxx@tcp(db.example:3306)/tpch"},
		{"bob:s3:cr@et@unix(/run/mysqld/mysqld.sock)/tpch", "bob:xxxxx@unix(/run/mysqld/mysqld.sock)/tpch"},
		{"bob@tcp(db.example:3306)/tpch", "bob@tcp(db.example:3306)/tpch"},
		{"mysql://bob:s3cret@db.example/tpch", "mysql://bob:xxxxx@db.example/tpch"},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			got := RedactDSN(tt.dsn)
			if got != tt.want {
				t.Errorf("RedactDSN(%q) = %q, want %q", tt.dsn, got, tt.want)
			}
			if strings.Contains(got, "s3") {
				t.Errorf("password left in %q", got)
			}
		})
	}
}

func TestRedactError(t *testing.T) {
	base := errors.New("failed to connect to `user=bob password=s3cret`:\n\tdial error")
	err := RedactError(base, "s3cret")
	if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %q", err)
	}
	if !errors.Is(err, base) {
		t.Error("errors.Is lost the wrapped error")
	}
}
