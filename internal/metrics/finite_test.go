package metrics

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FiniteSection, finiteWindow and finiteDoc have a number JSON cannot hold at every
// kind of place a result holds numbers: a field, through a pointer, in a slice, in a
// map, in an interface, as a float32, in an embedded struct.
type FiniteSection struct {
	Joules float64 `json:"joules"`
}

type finiteWindow struct {
	Label string  `json:"label"`
	AvgW  float32 `json:"avg_w"`
}

type finiteDoc struct {
	FiniteSection
	Status  string             `json:"status"`
	Started time.Time          `json:"started"`
	Energy  *FiniteSection     `json:"energy"`
	Windows []finiteWindow     `json:"windows"`
	Values  map[string]float64 `json:"values"`
	Extra   any                `json:"extra"`
	Skipped float64            `json:"-"`
	TPS     float64            `json:"tps"`
}

// TestWriteJSONFileNonFinite: a result with +Inf, -Inf and NaN in every kind of place
// is written whole, those numbers null and the others as they are, and the error
// names each by its JSON path; the value written is not changed. Before, the file was
// not written at all (json: unsupported value: +Inf) and an earlier one stayed.
func TestWriteJSONFileNonFinite(t *testing.T) {
	inf := math.Inf(1)
	started := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	doc := finiteDoc{
		FiniteSection: FiniteSection{Joules: math.NaN()},
		Status:        "ok",
		Started:       started,
		Energy:        &FiniteSection{Joules: inf},
		Windows:       []finiteWindow{{"run", 12.5}, {"power", float32(math.Inf(-1))}},
		Values:        map[string]float64{"a": 1, "b": inf},
		Extra:         map[string]any{"w": math.NaN(), "n": 3},
		Skipped:       inf,
		TPS:           1500.25,
	}
	path := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(path, []byte(`{"status": "an earlier run"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteJSONFile(path, doc)
	var nf *NonFiniteError
	if !errors.As(err, &nf) || nf.File != path {
		t.Fatalf("error %v, want a NonFiniteError naming %s", err, path)
	}
	want := []string{"joules (NaN)", "energy.joules (+Inf)", "windows[1].avg_w (-Inf)", "values.b (+Inf)", "extra.w (NaN)"}
	if !reflect.DeepEqual(nf.Fields, want) {
		t.Errorf("fields %q, want %q", nf.Fields, want)
	}
	if !strings.Contains(err.Error(), "energy.joules (+Inf)") || !strings.Contains(err.Error(), "written as null") {
		t.Errorf("message %q", err)
	}
	b, rerr := os.ReadFile(path)
	if rerr != nil {
		t.Fatal(rerr)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s does not decode: %v\n%s", path, err, b)
	}
	wantJSON := map[string]any{
		"joules": nil, "status": "ok", "started": "2024-05-01T12:00:00Z", "energy": map[string]any{"joules": nil},
		"windows": []any{map[string]any{"label": "run", "avg_w": 12.5}, map[string]any{"label": "power", "avg_w": nil}},
		"values":  map[string]any{"a": 1.0, "b": nil}, "extra": map[string]any{"w": nil, "n": 3.0}, "tps": 1500.25,
	}
	if !reflect.DeepEqual(got, wantJSON) {
		t.Errorf("written %s\nwant %v", b, wantJSON)
	}
	if !math.IsInf(doc.Energy.Joules, 1) || !math.IsInf(doc.Values["b"], 1) || !math.IsNaN(doc.Extra.(map[string]any)["w"].(float64)) ||
		!math.IsInf(float64(doc.Windows[1].AvgW), -1) {
		t.Errorf("the value written was changed: %+v", doc)
	}
	// A value without such numbers is written as before, without an error.
	if err := WriteJSONFile(path, fileDoc{"x", 1}); err != nil {
		t.Errorf("a finite value: %v", err)
	}
	// A number in an embedded struct of an unexported type can be read, not
	// replaced: the write fails, naming it, and the file is left as it was.
	type hidden struct {
		Watts float64 `json:"watts"`
	}
	err = WriteJSONFile(path, struct {
		hidden
		Name string `json:"name"`
	}{hidden{math.Inf(1)}, "x"})
	if err == nil || errors.As(err, &nf) || !strings.Contains(err.Error(), "encode the result") || !strings.Contains(err.Error(), "(watts (+Inf))") {
		t.Errorf("an unexported embedded struct: %v", err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `"tps": 1`) {
		t.Errorf("the file was changed: %s", b)
	}
}
