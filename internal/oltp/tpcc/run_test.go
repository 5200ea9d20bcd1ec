package tpcc

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tierbench/internal/engine"
)

// runAndCheck runs users for a short window on a loaded W=1 database, then checks the
// result file and the twelve conditions.
func runAndCheck(t *testing.T, e engine.Engine, info *LoadInfo, users []int) *Result {
	t.Helper()
	out := t.TempDir()
	var lines bytes.Buffer
	res, err := Run(context.Background(), e, RunConfig{
		Users: users, Ramp: time.Second, Duration: 5 * time.Second, Interval: 2 * time.Second,
		Seed: 1, Load: info.Constants, OutDir: out, Lines: &lines,
	})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, lines.String())
	}
	t.Logf("%s, users %v:\n%s", e.Dialect().Name, users, lines.String())
	data, err := os.ReadFile(filepath.Join(out, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"nopm", "tpm", "tps", "transactions", "definitions"} {
		if _, ok := back[k]; !ok {
			t.Errorf("result.json has no %q", k)
		}
	}
	if res.NOPM <= 0 || res.TPM < res.NOPM || res.Status != "ok" {
		t.Errorf("nopm %v tpm %v status %s", res.NOPM, res.TPM, res.Status)
	}
	for _, op := range TxnNames {
		r := res.Transactions[op]
		if r.Errors > 0 {
			t.Errorf("%s: %d errors", op, r.Errors)
		}
		if r.Count > 0 && (r.Latency.P50 <= 0 || r.Latency.P50 > r.Latency.P99 || r.Latency.P99 > r.Latency.Max) {
			t.Errorf("%s: inconsistent latencies %+v", op, r.Latency)
		}
	}
	// The server's count of new orders over the window tracks the users' count.
	if res.NOPMServer < res.NOPM*0.8 || res.NOPMServer > res.NOPM*1.2+60 {
		t.Errorf("nopm %v but the server counted %v", res.NOPM, res.NOPMServer)
	}
	jl, err := os.ReadFile(filepath.Join(out, IntervalsFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(jl), "\n"); n < 3 {
		t.Errorf("%d interval lines, want at least 3", n)
	}
	checkAll(t, e)
	return res
}

func TestRunSQLite(t *testing.T) {
	e := openSQLite(t)
	info := loadW1(t, e)
	res := runAndCheck(t, e, info, []int{2})
	t.Logf("sqlite 2 users: nopm %.0f (server %.0f), tpm %.0f", res.NOPM, res.NOPMServer, res.TPM)
}
