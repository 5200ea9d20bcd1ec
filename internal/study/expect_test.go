package study

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"tierbench/internal/report"
)

// claimsStudy has a categorical factor, a numeric one and a placement-like one, for
// claims of every kind; its expect is appended by each test.
const claimsStudy = `name: claims
workload: oltp
params: {mix: bbs, scale: 0.001, ramp: 0s, duration: 1s}
factors:
  cache:
    - {label: "off", data: sata-ssd}
    - {label: "on", data: nvme}
  users: [1, 4, 8]
repetitions: 3
expect:
`

// TestClaimErrors: a claim over an unknown metric, factor or level, a claim that
// leaves a varying factor open, a trend over categories and a malformed claim or
// band are each one line naming the file, the line of the mistake and the field.
func TestClaimErrors(t *testing.T) {
	entry := func(claim, more string) string {
		return fmt.Sprintf("  - id: c1\n    claim: %s\n    paper: 6.9\n    source: \"seed 002, Conclusion\"\n%s", claim, more)
	}
	held := "    held: within 25%\n"
	for _, c := range []struct{ name, expect, want string }{
		{"unknown metric", entry("tpz cache=on / cache=off at users=8", held),
			`test.yaml:12: expect[0].claim: "tpz cache=on / cache=off at users=8": unknown metric "tpz": oltp reports tps, qps (its headline metrics), latency_p50_ms,`},
		{"unknown factor", entry("tps cash=on / cache=off at users=8", held),
			`test.yaml:12: expect[0].claim: "tps cash=on / cache=off at users=8": "cash" is not a factor: factors are cache, users`},
		{"unknown level", entry("tps cache=on / cache=off at users=16", held),
			`test.yaml:12: expect[0].claim: "tps cache=on / cache=off at users=16": "16" is not a value of users: its values are 1, 4, 8`},
		{"unknown order level", entry("tps cache on > of", ""),
			`test.yaml:12: expect[0].claim: "tps cache on > of": "of" is not a value of cache: its values are off, on`},
		{"a varying factor left open", entry("tps cache=on / cache=off", held),
			`test.yaml:12: expect[0].claim: "tps cache=on / cache=off": users varies (1, 4, 8) and the claim does not say which: add at users=8`},
		{"a factor twice", entry("tps cache=on / cache=off at users=8 cache=on", held),
			`test.yaml:12: expect[0].claim: "tps cache=on / cache=off at users=8 cache=on": cache is given twice`},
		{"a trend over categories", entry("tps rises with cache at users=8", ""),
			`test.yaml:12: expect[0].claim: "tps rises with cache at users=8": cache's values (off, on) are not numbers or sizes: a trend runs over a numeric factor`},
		{"not a claim", entry("tps is higher with the cache", held),
			`test.yaml:12: expect[0].claim: "tps is higher with the cache": "is higher with the cache" is not a claim: write METRIC A / B`},
		{"a band missing", entry("tps cache=on / cache=off at users=8", ""),
			`test.yaml:11: expect[0]: held is missing: a ratio claim needs the band it holds within, e.g. held: within 25%`},
		{"a band on an order", entry("tps cache on > off at users=8", held),
			`test.yaml:15: expect[0].held: an order claim holds when every step is established at 95%`},
		{"a band without the paper", entry("tps cache=on / cache=off at users=8", "    held: 1 to 2\n"),
			`test.yaml:15: expect[0].held: 1 to 2 leaves out the paper's own figure 6.9`},
		{"a bad band", entry("tps cache=on / cache=off at users=8", "    held: about right\n"),
			`test.yaml:15: expect[0].held: "about right": give within P% or LOW to HIGH`},
		{"a paper figure that is no number", strings.Replace(entry("tps cache=on / cache=off at users=8", held), "paper: 6.9", "paper: much faster", 1),
			`test.yaml:11: expect[0]: paper: "much faster": a ratio's paper figure is a number, such as 6.9 or 6.9x`},
		{"a field missing", "  - id: c1\n    claim: tps cache=on / cache=off at users=8\n    paper: 6.9\n    held: within 25%\n",
			`test.yaml:11: expect[0]: source is missing: give source: "seed 002, Conclusion: 346 -> 2374 TPS"`},
		{"an unknown field", entry("tps cache=on / cache=off at users=8", held+"    figure: 3\n"),
			`test.yaml:16: expect[0].figure: unknown field: valid fields are id, claim, paper, source, held`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := expand(t, claimsStudy+c.expect, "")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// TestClaimForms: each form of claim reads into its kind, sides and levels, an
// order written with '<' highest first, a trend's levels in numeric order from its
// first.
func TestClaimForms(t *testing.T) {
	src := claimsStudy + `  - {id: r, claim: "tps cache=on / cache=off at users=8", paper: 6.9x, source: s, held: within 20%}
  - {id: o, claim: "tps users 1 < 4 < 8 at cache=on", paper: "1 < 4 < 8", source: s}
  - {id: up, claim: "tps cache=on / cache=off rises with users from 4", paper: "grows", source: s}
  - {id: flat, claim: "qps flat with users at cache=off", paper: "flat", source: s, held: 0.9 to 1.2}
`
	p := mustExpand(t, src, "")
	if len(p.Claims) != 4 {
		t.Fatalf("claims %+v", p.Claims)
	}
	r, o, up, flat := p.Claims[0], p.Claims[1], p.Claims[2], p.Claims[3]
	if r.Kind != ClaimRatio || r.Metric != "tps" || r.Num[0] != (report.Factor{Name: "cache", Value: "on"}) || r.At[0].Value != "8" ||
		math.Abs(r.Low-5.52) > 1e-9 || math.Abs(r.High-8.28) > 1e-9 {
		t.Errorf("ratio %+v: want tps on/off at users 8, held 5.52 to 8.28", r)
	}
	if o.Kind != ClaimOrder || o.Factor != "users" || strings.Join(o.Levels, ",") != "8,4,1" {
		t.Errorf("order %+v: want users 8, 4, 1 highest first", o)
	}
	if up.Kind != ClaimRises || strings.Join(up.Levels, ",") != "4,8" || up.Den[0].Value != "off" {
		t.Errorf("trend %+v: want the ratio on/off over users 4 and 8", up)
	}
	if flat.Kind != ClaimFlat || flat.Low != 0.9 || flat.High != 1.2 || strings.Join(flat.Levels, ",") != "1,4,8" {
		t.Errorf("flat %+v", flat)
	}
	// The plan lists each claim with the paper's figure, under one key.
	var plan strings.Builder
	writePlan(&plan, p, All, &status{out: "out"})
	want := "  expect     r: tps cache=on / cache=off at users=8 (the paper: 6.9x)\n             o: tps users 1 < 4 < 8 at cache=on (the paper: 1 < 4 < 8)\n"
	if !strings.Contains(plan.String(), want) {
		t.Errorf("plan:\n%s\nwant\n%s", plan.String(), want)
	}
	// A size replaces the claims; a claim whose cell is excluded is noted, not an error.
	sized := mustExpand(t, src+`exclude: [{cache: "on", users: 8}]
sizes:
  small: {expect: [{id: only, claim: "tps cache=on / cache=off at users=4", paper: 2, source: s, held: within 50%}]}
`, "")
	if len(sized.Claims) != 4 || !strings.Contains(strings.Join(sized.Notes, "\n"), "test.yaml:11: expect r cannot be judged: the exclude rules remove cache=on,users=8") {
		t.Errorf("notes %q", sized.Notes)
	}
}

// judged expands src's claims and judges them against cells' values by cell ID.
func judged(t *testing.T, src string, values map[string][]float64, failed ...string) []Judgement {
	t.Helper()
	p := mustExpand(t, src, "")
	var cells []report.Cell
	for _, c := range p.Cells {
		rc := report.Cell{ID: c.ID, Factors: c.Factors}
		for i, v := range values[c.ID] {
			rc.Runs = append(rc.Runs, report.Run{Repetition: i + 1, Metrics: map[string]float64{"tps": v}})
		}
		for _, f := range failed {
			if f == c.ID {
				rc.Runs = append(rc.Runs, report.Run{Repetition: len(rc.Runs) + 1, Error: "run: exit status 1"})
			}
		}
		cells = append(cells, rc)
	}
	sum, err := report.Summarise(cells, []report.Metric{{Key: "tps"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	return Judge(p.Claims, sum, p.Factors, p.Study.Repetitions)
}

// threeBy is every cell of claimsStudy with the same values, then those given.
func threeBy(vals []float64, over map[string][]float64) map[string][]float64 {
	out := map[string][]float64{}
	for _, c := range []string{"off", "on"} {
		for _, u := range []string{"1", "4", "8"} {
			out["cache="+c+",users="+u] = vals
		}
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// TestJudgeRatio: the ratio's figure and interval are those worked by hand in
// package stats (20,24,28 over 10,12,14: 2, 95% CI 1.370699 to 2.918219); its
// verdict follows the band and the interval.
func TestJudgeRatio(t *testing.T) {
	claim := func(paper, held string) string {
		return claimsStudy + fmt.Sprintf("  - {id: r, claim: \"tps cache=on / cache=off at users=8\", paper: %s, source: s, held: %q}\n", paper, held)
	}
	base, doubled := []float64{10, 12, 14}, []float64{20, 24, 28}
	vals := threeBy(base, map[string][]float64{"cache=on,users=8": doubled})
	for _, c := range []struct {
		name, paper, held string
		vals              map[string][]float64
		verdict, why      string
	}{
		{"held", "2.1", "within 25%", vals, VerdictHeld, "the ratio is within 1.58 to 2.62 and its 95% interval is above 1"},
		{"magnitude off", "6.9", "within 25%", vals, VerdictDirection, "the ratio is above 1 (established at 95%) but outside 5.18 to 8.62"},
		{"the other way", "0.4", "within 25%", vals, VerdictNotHeld, "the ratio is not below 1, as the paper's is"},
		{"not established", "0.4", "within 60%", threeBy(base, map[string][]float64{"cache=on,users=8": {4.9, 4.95, 5}, "cache=off,users=8": {5, 10, 15}}),
			VerdictDirection, "the ratio is within 0.16 to 0.64 but its 95% interval includes 1"},
		{"no difference, held", "1", "0.5 to 4", vals, VerdictHeld, "the ratio's 95% interval lies within 0.5 to 4"},
		{"no difference, not established", "1", "0.8 to 2.5", vals, VerdictDirection, "the ratio is within 0.8 to 2.5 but its 95% interval is not"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := judged(t, claim(c.paper, c.held), c.vals)[0]
			if j.Verdict != c.verdict || !strings.Contains(j.Why, c.why) {
				t.Errorf("%s: %s, want %s: %s", j.Verdict, j.Why, c.verdict, c.why)
			}
			if c.name == "held" {
				m := j.Measured
				if m == nil || math.Abs(m.Value-2) > 1e-12 || math.Abs(m.Low-1.370699) > 1e-6 || math.Abs(m.High-2.918219) > 1e-6 {
					t.Errorf("measured %+v, want 2 (1.370699 to 2.918219)", m)
				}
				if j.Figure != "2 (95% CI 1.37 to 2.92)" {
					t.Errorf("figure %q", j.Figure)
				}
				line := j.Line()
				want := `expect r: held: tps cache=on / cache=off at users=8: 2 (95% CI 1.37 to 2.92); the paper: 2.1 (s); held within 1.58 to 2.62; the ratio is within`
				if !strings.HasPrefix(line, want) {
					t.Errorf("line %q\nwant %q...", line, want)
				}
			}
		})
	}
}

// TestJudgeCannot: a claim on an excluded cell, a failed run, a run not made, one
// repetition or a mean of 0 cannot be judged, and says why.
func TestJudgeCannot(t *testing.T) {
	claim := claimsStudy + "  - {id: r, claim: \"tps cache=on / cache=off at users=8\", paper: 2, source: s, held: within 25%}\n"
	good := threeBy([]float64{10, 12, 14}, nil)
	for _, c := range []struct {
		name, src string
		vals      map[string][]float64
		failed    []string
		why       string
	}{
		{"excluded", claim + "exclude: [{cache: \"on\", users: 8}]\n", good, nil, "cell cache=on,users=8 is not in the study (its exclude rules remove it)"},
		{"a failed run", claim, good, []string{"cache=off,users=8"}, "1 of cell cache=off,users=8's 4 runs failed"},
		{"not run", claim, threeBy([]float64{10, 12, 14}, map[string][]float64{"cache=on,users=8": {10, 12}}), nil, "cell cache=on,users=8 has 2 of its 3 repetitions"},
		{"one repetition", strings.Replace(claim, "repetitions: 3", "repetitions: 1", 1), threeBy([]float64{10}, nil), nil, "cell cache=on,users=8 has one repetition"},
		{"a zero mean", claim, threeBy([]float64{10, 12, 14}, map[string][]float64{"cache=off,users=8": {0, 0, 0}}), nil, "tps is not positive in cache=on,users=8 or cache=off,users=8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := judged(t, c.src, c.vals, c.failed...)[0]
			if j.Verdict != VerdictCannot || !strings.Contains(j.Why, c.why) || j.Measured != nil {
				t.Errorf("%s: %s (measured %v), want cannot be judged: %s", j.Verdict, j.Why, j.Measured, c.why)
			}
			if c.name == "one repetition" && j.Figure != "1 (no interval)" {
				t.Errorf("one repetition: figure %q, want the ratio of the two values without an interval", j.Figure)
			}
		})
	}
}

// TestJudgeOrderAndTrends: an order by Welch's interval of each neighbouring
// difference; trends by the last level over the first and every step's direction.
func TestJudgeOrderAndTrends(t *testing.T) {
	order := claimsStudy + "  - {id: o, claim: \"tps users 8 > 4 > 1 at cache=on\", paper: \"8 > 4 > 1\", source: s}\n"
	rises := claimsStudy + "  - {id: t, claim: \"tps rises with users at cache=on\", paper: grows, source: s}\n"
	falls := claimsStudy + "  - {id: t, claim: \"tps cache=on / cache=off falls with users\", paper: shrinks, source: s}\n"
	flat := claimsStudy + "  - {id: f, claim: \"tps flat with users from 4 at cache=on\", paper: flat, source: s, held: within 10%}\n"
	on := func(u1, u4, u8 []float64) map[string][]float64 {
		return threeBy([]float64{10, 12, 14}, map[string][]float64{"cache=on,users=1": u1, "cache=on,users=4": u4, "cache=on,users=8": u8})
	}
	for _, c := range []struct {
		name, src    string
		vals         map[string][]float64
		verdict, why string
	}{
		{"order held", order, on([]float64{10, 11, 12}, []float64{20, 21, 22}, []float64{30, 31, 32}), VerdictHeld, "every difference between neighbours has its 95% interval above 0"},
		{"order unsure", order, on([]float64{10, 11, 12}, []float64{20, 21, 22}, []float64{15, 22, 29}), VerdictDirection, "the 95% interval of 8 - 4 includes 0"},
		{"order reversed", order, on([]float64{30, 31, 32}, []float64{20, 21, 22}, []float64{40, 41, 42}), VerdictNotHeld, "4 - 1 is not above 0"},
		{"rises held", rises, on([]float64{10, 11, 12}, []float64{20, 21, 22}, []float64{30, 31, 32}), VerdictHeld, "every step rises"},
		{"rises, not every step", rises, on([]float64{10, 11, 12}, []float64{40, 41, 42}, []float64{30, 31, 32}), VerdictDirection, "4 to 8 does not rise"},
		{"rises, not held", rises, on([]float64{30, 31, 32}, []float64{20, 21, 22}, []float64{10, 11, 12}), VerdictNotHeld, "the last level is not above the first"},
		{"falls held", falls, on([]float64{40, 48, 56}, []float64{30, 36, 42}, []float64{20, 24, 28}), VerdictHeld, "every step falls"},
		{"flat held", flat, on([]float64{10, 11, 12}, []float64{100, 101, 102}, []float64{101, 102, 103}), VerdictHeld, "every level's 95% interval over users=4's lies within 0.9 to 1.1"},
		{"flat, not established", flat, on([]float64{10, 11, 12}, []float64{100, 101, 102}, []float64{90, 105, 120}), VerdictDirection, "at users=8 its 95% interval is not"},
		{"rises, a zero mean", rises, on([]float64{0, 0, 0}, []float64{20, 21, 22}, []float64{30, 31, 32}), VerdictCannot, "tps is not positive at every level"},
		{"flat, not held", flat, on([]float64{10, 11, 12}, []float64{100, 101, 102}, []float64{150, 151, 152}), VerdictNotHeld, "at users=8 the value over users=4's is outside 0.9 to 1.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := judged(t, c.src, c.vals)[0]
			if j.Verdict != c.verdict || !strings.Contains(j.Why, c.why) {
				t.Errorf("%s: %s\nwant %s: %s\n(figure %s)", j.Verdict, j.Why, c.verdict, c.why, j.Figure)
			}
		})
	}
	// The figures, against the statistics worked by hand.
	j := judged(t, rises, on([]float64{10, 12, 14}, []float64{20, 21, 22}, []float64{20, 24, 28}))[0]
	// users=8 over users=1 is 20,24,28 over 10,12,14, the ratio package stats works
	// by hand: 2, 95% CI 1.370699 to 2.918219 with 4 degrees of freedom.
	if m := j.Measured; m == nil || math.Abs(m.Value-2) > 1e-12 || math.Abs(m.Low-1.370699) > 1e-6 || math.Abs(m.High-2.918219) > 1e-6 || math.Abs(m.DF-4) > 1e-9 {
		t.Errorf("rises: measured %+v, want 2 (95%% CI 1.370699 to 2.918219, 4 df)", m)
	}
	if !strings.HasPrefix(j.Figure, "users=8 over users=1: 2 (95% CI 1.37 to 2.92); at users=1 12, users=4 21, users=8 24") {
		t.Errorf("rises: figure %q", j.Figure)
	}
	// An order's figure is its weakest neighbouring difference: 31 - 21 = 10 here (both
	// are 10 apart; 8 - 4 comes first). By hand: each level has s² = 1 over 3 runs, so
	// se = sqrt(1/3 + 1/3) = 0.816497 with 4 Welch degrees of freedom, t(0.975, 4) =
	// 2.776445, half-width 2.266958: 7.733042 to 12.266958.
	j = judged(t, order, on([]float64{10, 11, 12}, []float64{20, 21, 22}, []float64{30, 31, 32}))[0]
	if m := j.Measured; m == nil || math.Abs(m.Value-10) > 1e-9 || math.Abs(m.Low-7.733042) > 1e-5 || math.Abs(m.High-12.266958) > 1e-5 || m.DF != 4 {
		t.Errorf("order: measured %+v, want 10 (95%% CI 7.733042 to 12.266958, 4 df)", m)
	}
	if !strings.HasPrefix(j.Figure, "8 31 > 4 21 > 1 11; differences: 8 - 4 10 (95% CI 7.73 to 12.3), 4 - 1 10 (95% CI 7.73 to 12.3)") {
		t.Errorf("order: figure %q", j.Figure)
	}
	// A trend of a ratio: on/off at users=1 is 48/12 = 4, at users=8 24/12 = 2, so the
	// last over the first is 0.5. By hand, on the log scale: each of the four cells has
	// s²/(n·mean²) = 1/108 (40,48,56: 64/(3·2304); 10,12,14: 4/(3·144); 20,24,28:
	// 16/(3·576)), se = sqrt(4/108) = 0.192450, Welch-Satterthwaite df = (4v)²/(4v²/2)
	// = 8, t(0.975, 8) = 2.306004, half-width 0.443791: 0.5·exp(∓0.443791) = 0.320800
	// to 0.779302.
	j = judged(t, falls, on([]float64{40, 48, 56}, []float64{30, 36, 42}, []float64{20, 24, 28}))[0]
	if m := j.Measured; m == nil || math.Abs(m.Value-0.5) > 1e-9 || math.Abs(m.Low-0.320800) > 1e-5 || math.Abs(m.High-0.779302) > 1e-5 || math.Abs(m.DF-8) > 1e-9 {
		t.Errorf("falls: measured %+v, want 0.5 (95%% CI 0.320800 to 0.779302, 8 df)", m)
	}
	if !strings.HasPrefix(j.Figure, "users=8 over users=1: 0.5 (95% CI 0.321 to 0.779); at users=1 4, users=4 3, users=8 2") {
		t.Errorf("falls: figure %q", j.Figure)
	}
}
