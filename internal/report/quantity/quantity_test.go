package quantity

import (
	"encoding/json"
	"math"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		unit string
		want Range
		ok   bool
	}{
		{"%", Percent, true},
		{"pct", Percent, true},
		{"tx/s", NonNegative, true}, // a rate of a count
		{"transactions/s", NonNegative, true},
		{"new orders/min", NonNegative, true},
		{"MB/s", NonNegative, true},
		{"/s", NonNegative, true}, // events a second
		{"QphH@Size", NonNegative, true},
		{"ms", NonNegative, true},
		{"%/s", Real, false},     // a rate of a share is not a share
		{"degrees", Real, false}, // unknown: any value
		{"", Real, false},
	} {
		if got, ok := Of(tc.unit), Known(tc.unit); got != tc.want || ok != tc.ok {
			t.Errorf("Of(%q) = %v (known %v), want %v (%v)", tc.unit, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRange(t *testing.T) {
	if !Percent.Contains(100) || Percent.Contains(100.5) || NonNegative.Contains(-313) || !Real.Contains(-1e300) {
		t.Error("Contains")
	}
	if Percent.Clamp(130) != 100 || NonNegative.Clamp(-313) != 0 || Real.Clamp(-5) != -5 {
		t.Error("Clamp")
	}
	if Real.Bounded() || !NonNegative.Bounded() || !(Range{Min: math.Inf(-1), Max: 0}).Bounded() {
		t.Error("Bounded")
	}
	for r, want := range map[Range]string{Percent: "0 to 100", NonNegative: "0 or more", Real: "any value", {math.Inf(-1), 0}: "0 or less"} {
		if r.String() != want {
			t.Errorf("%v: %q, want %q", r, r.String(), want)
		}
	}
}

func TestJSON(t *testing.T) {
	for r, want := range map[Range]string{Percent: `{"min":0,"max":100}`, NonNegative: `{"min":0,"max":null}`, Real: `{"min":null,"max":null}`} {
		b, err := json.Marshal(r)
		if err != nil || string(b) != want {
			t.Errorf("%v: %s, %v; want %s", r, b, err, want)
		}
		var back Range
		if err := json.Unmarshal(b, &back); err != nil || back != r {
			t.Errorf("%s read back as %v, %v", b, back, err)
		}
	}
	var r Range
	if err := json.Unmarshal([]byte(`{"min":5,"max":1}`), &r); err == nil {
		t.Error("min above max accepted")
	}
}
