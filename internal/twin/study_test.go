package twin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tierbench/internal/device"
	"tierbench/internal/lifecycle"
	"tierbench/internal/study"
)

// TestTwinAsAStudyFactor: a fitted twin is a profile like any other, so a study
// compares it with other devices by naming it in a factor, the file given by the
// profiles parameter (or found in the user directory, where device fit writes): no
// study feature of its own. Every cell of the what-if validates as its commands would.
func TestTwinAsAStudyFactor(t *testing.T) {
	twinFile, err := filepath.Abs("testdata/twin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := `name: twin-whatif
description: my disk against other devices on the same workload
workload: oltp
params:
  mix: policy
  scale: 0.05
  profiles: [` + twinFile + `]
  duration: 5s
factors:
  data: ["pagecache(twin-test,size=1GiB)", "pagecache(hdd-7200,size=1GiB)", "pagecache(nvme,size=1GiB)"]
repetitions: 1
baseline: {data: "pagecache(twin-test,size=1GiB)"}
`
	path := filepath.Join(t.TempDir(), "whatif.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := study.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.At("")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := study.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Cells) != 3 {
		t.Fatalf("%d cells, want the twin and two other devices", len(plan.Cells))
	}
	out := t.TempDir()
	for _, c := range plan.Cells {
		if err := lifecycle.Validate(c.Spec(study.RunDir(out, c.ID, 1))); err != nil {
			t.Errorf("cell %s: %v", c.ID, err)
		}
	}
	// the twin is known through its file only: without it, the cell's device does
	// not build
	reg, err := device.Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Build("pagecache(twin-test,size=1GiB)"); err == nil || !strings.Contains(err.Error(), `unknown device profile "twin-test"`) {
		t.Errorf("error %v", err)
	}
	withTwin, err := device.Load(twinFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := withTwin.Build("pagecache(twin-test,size=1GiB)"); err != nil {
		t.Error(err)
	}
}
