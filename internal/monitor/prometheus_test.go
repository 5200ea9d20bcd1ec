package monitor

import (
	"regexp"
	"testing"
)

// TestPrometheusNames: every series of every source has a valid Prometheus name,
// labels from its <label> segments, and no two series share a metric name; nor does a
// value share its name with a counter (metrics.csv has one column a name).
func TestPrometheusNames(t *testing.T) {
	var all []SeriesInfo
	for _, list := range [][]SeriesInfo{hostSeries, processSeries, storageSeries, emulatedSeries, monitorSeries} {
		all = append(all, list...)
	}
	valid := regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	seen, flat := map[string]string{}, map[string]bool{}
	for _, s := range all {
		if flat[s.Name] {
			t.Errorf("two series are named %s", s.Name)
		}
		flat[s.Name] = true
		name, labels := promName(s)
		if !valid.MatchString(name) {
			t.Errorf("%s: metric name %q", s.Name, name)
		}
		for _, l := range labels {
			if !valid.MatchString(l) {
				t.Errorf("%s: label %q", s.Name, l)
			}
		}
		if other, dup := seen[name]; dup {
			t.Errorf("%s and %s are both %s", s.Name, other, name)
		}
		seen[name] = s.Name
	}
	if name, labels := promName(value("disk.<disk>.util_pct", "pct", "")); name != "tierbench_disk_util_pct" || len(labels) != 1 || labels[0] != "disk" {
		t.Errorf("disk.<disk>.util_pct: %s %v", name, labels)
	}
}
