package study

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestCompare: two runs of one study, the second measuring 10% more, compared cell
// by cell: both means, +10.00%, and the text table.
func TestCompare(t *testing.T) {
	p := mustExpand(t, fakeStudy, "")
	base, next := t.TempDir(), t.TempDir()
	if _, err := fakeRunner(p, base).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := fakeRunner(p, next, fakeScaleEnv+"=1.1").Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := Load(base)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Load(next)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := Compare(b, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Tables) != 1 || cmp.Tables[0].Name != "tps" || len(cmp.Tables[0].Rows) != 4 {
		t.Fatalf("tables: %+v", cmp.Tables)
	}
	for _, row := range cmp.Tables[0].Rows {
		users := 1
		if strings.HasPrefix(row[0].Text, "users=2") {
			users = 2
		}
		mean := (fakeTPS(users, 1) + fakeTPS(users, 2)) / 2
		if *row[2].Value != mean || !near(*row[4].Value, 1.1*mean) || row[5].Text != "+10.00%" {
			t.Errorf("cell %s: base %s new %s diff %s; want %v, %v, +10.00%%", row[0].Text, row[2].Text, row[4].Text, row[5].Text, mean, 1.1*mean)
		}
	}
	var text bytes.Buffer
	cmp.WriteText(&text)
	if !strings.Contains(text.String(), "+10.00%") || !strings.Contains(text.String(), "users=2,think=10ms") {
		t.Errorf("text:\n%s", text.String())
	}
	if err := cmp.Doc.Write(t.TempDir()); err != nil {
		t.Fatal(err)
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-9*b && -d < 1e-9*b }
