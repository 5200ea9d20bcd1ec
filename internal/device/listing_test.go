package device

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestListing: every profile is listed with its model's figures in the listing's
// units, the table has a row per profile and the composites, and the JSON the same
// profiles with the classes.
func TestListing(t *testing.T) {
	reg, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	list, err := List(reg)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(reg.Profiles()) || len(list) < 6 {
		t.Fatalf("%d listings of %d profiles", len(list), len(reg.Profiles()))
	}
	for _, l := range list {
		f, err := reg.Characterize(l.Name)
		if err != nil {
			t.Fatal(err)
		}
		if l.Figures.RandRead8KQD1us != float64(f.RandRead8KQD1.Nanoseconds())/1000 || l.Figures.SeqReadMBps != f.SeqReadMBps {
			t.Errorf("%s: figures %+v, model %+v", l.Name, l.Figures, f)
		}
	}
	var table bytes.Buffer
	if err := WriteListingTable(&table, list); err != nil {
		t.Fatal(err)
	}
	for _, l := range list {
		if !strings.Contains(table.String(), "\n"+l.Name+" ") {
			t.Errorf("no row for %s:\n%s", l.Name, table.String())
		}
	}
	if !strings.Contains(table.String(), "Composites wrap any profile") || !strings.Contains(table.String(), "pagecache") {
		t.Errorf("no composites:\n%s", table.String())
	}
	var js bytes.Buffer
	if err := WriteListingJSON(&js, list); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Profiles []struct {
			Name string `json:"name"`
		} `json:"profiles"`
		Classes []struct {
			Name string `json:"name"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Profiles) != len(list) || back.Profiles[0].Name != list[0].Name || len(back.Classes) != len(Classes()) || back.Classes[0].Name != Classes()[0].Name {
		t.Errorf("JSON: %v, %d profiles, %d classes", err, len(back.Profiles), len(back.Classes))
	}
}

func TestLatencyText(t *testing.T) {
	for us, want := range map[float64]string{22.2: "22.2 us", 999.94: "999.9 us", 1000: "1.00 ms", 8350: "8.35 ms"} {
		if got := LatencyText(us); got != want {
			t.Errorf("LatencyText(%v) = %q, want %q", us, got, want)
		}
	}
}
