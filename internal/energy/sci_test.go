package energy

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// A window of an hour that emitted 10 g operationally, at 100 transactions a second,
// with a 100 kg device over five years and a 1,000 kg host over six, by hand:
//
//	device: 100,000 g x 3600 / (5 x 31,557,600) = 2.281542322... g
//	host:   1,000,000 g x 3600 / (6 x 31,557,600) = 19.01285268... g
//	SCI:    (10 + 2.2815 + 19.0129) / 360,000 = 8.6929...e-5 g a transaction
func TestSCIByHand(t *testing.T) {
	s := &Section{Windows: []WindowResult{{Label: "run", Seconds: 7200}, {Label: "measured", Seconds: 3600, Total: Figures{CO2g: 10}}}}
	items := []Embodied{{Name: "nvme", Kg: 100, LifeYears: 5}, {Name: "host", Kg: 1000, LifeYears: 6}, {Name: "none", Kg: 0, LifeYears: 5}}
	if err := s.AddSCI("measured", items, nil, 100); err != nil {
		t.Fatal(err)
	}
	dev := 100000.0 * 3600 / (5 * 31557600)
	host := 1000000.0 * 3600 / (6 * 31557600)
	if math.Abs(dev-2.281542322) > 1e-8 || math.Abs(host-19.01285268) > 1e-7 {
		t.Fatalf("hand figures %v %v", dev, host) // the arithmetic the test is checked against
	}
	sci := s.SCI
	if len(sci.Embodied) != 2 || math.Abs(sci.Embodied[0].G-dev) > 1e-9 || math.Abs(sci.EmbodiedG-(dev+host)) > 1e-9 {
		t.Errorf("embodied %+v total %v, want %v + %v", sci.Embodied, sci.EmbodiedG, dev, host)
	}
	if want := (10 + dev + host) / 360000; math.Abs(sci.GPerTransaction-want) > 1e-15 {
		t.Errorf("SCI %v g a transaction, want %v", sci.GPerTransaction, want)
	}
	if sci.OperationalG != 10 || sci.Seconds != 3600 {
		t.Errorf("operational %v over %v s, want 10 over 3600", sci.OperationalG, sci.Seconds)
	}
	if err := s.AddSCI("nope", items, nil, 1); err == nil || !strings.Contains(err.Error(), `no window "nope"`) {
		t.Errorf("error %v", err)
	}
}

// A default figure is labelled so in result.json and in the summary; a given one is
// not.
func TestSCIDefaultLabelled(t *testing.T) {
	s := &Section{Windows: []WindowResult{{Label: "measured", Seconds: 60, Total: Figures{CO2g: 1}}}}
	items := []Embodied{{Name: "nvme", Kg: 100, LifeYears: 5, Source: "profile"}, {Name: "host", Kg: HostEmbodiedKg, LifeYears: HostLifeYears, Source: HostEmbodiedSource, Default: true}}
	if err := s.AddSCI("measured", items, nil, 10); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s.SCI)
	if err != nil {
		t.Fatal(err)
	}
	var back SCI
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Embodied) != 2 || back.Embodied[0].Default || !back.Embodied[1].Default {
		t.Errorf("embodied %+v, want only the host's marked default", back.Embodied)
	}
	if strings.Count(string(b), `"default":true`) != 1 {
		t.Errorf("result.json %s, want one default:true", b)
	}
	var out bytes.Buffer
	WriteSummary(&out, s, "measured")
	if !strings.Contains(out.String(), "embodied host: 1314.1 kg CO2e over 6 years is a default (a published server's figure; its source is in result.json), not this hardware's: give --host-embodied-kg") ||
		strings.Contains(out.String(), "embodied nvme") {
		t.Errorf("summary:\n%s\nwant the host's figure labelled a default and the device's not", out.String())
	}
}
