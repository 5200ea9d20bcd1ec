package engine

import (
	"reflect"
	"testing"
)

// TestUnverified names the settings an engine could not confirm, sorted, with why;
// verified ones are not named.
func TestUnverified(t *testing.T) {
	got := Unverified([]AppliedSetting{
		{Name: "work_mem", Requested: "8MB", Value: "8MB", Verified: true},
		{Name: "z.x", Requested: "1", Why: "a custom parameter"},
		{Name: "case_sensitive_like", Requested: "on", Why: "not reported"},
	})
	want := []string{"case_sensitive_like=on (not reported)", "z.x=1 (a custom parameter)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	if got := Unverified([]AppliedSetting{{Name: "a", Verified: true}}); len(got) != 0 {
		t.Errorf("%q, want none", got)
	}
}

// TestSettingKey: MariaDB's - and _ and either case name one setting.
func TestSettingKey(t *testing.T) {
	for _, k := range []string{"max_connections", "Max-Connections", " max-connections "} {
		if SettingKey(k) != "max_connections" {
			t.Errorf("%q: %q", k, SettingKey(k))
		}
	}
}
