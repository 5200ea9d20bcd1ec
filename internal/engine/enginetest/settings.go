package enginetest

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"tierbench/internal/engine"
)

// RefusedSetting is settings an engine refuses, and what its error says.
type RefusedSetting struct {
	Settings map[string]string
	Says     []string
}

// Settings checks how engine name takes its settings (docs/engines.md, "Settings:
// --set"): each of refused is a *engine.SettingError from the driver's CheckSettings
// saying all its Says; settings pass it, and the engine open (open opens it with
// them) reports each as want, in the order of their names.
func Settings(t *testing.T, name string, refused []RefusedSetting, settings map[string]string, want []engine.AppliedSetting,
	open func(t *testing.T, settings map[string]string) engine.Engine) {
	t.Helper()
	d, err := engine.DriverOf(name)
	if err != nil {
		t.Fatal(err)
	}
	checker, ok := d.(engine.SettingsChecker)
	if !ok {
		t.Fatalf("%s does not check its settings (engine.SettingsChecker)", name)
	}
	for _, r := range refused {
		err := checker.CheckSettings(r.Settings)
		var se *engine.SettingError
		if !errors.As(err, &se) {
			t.Errorf("%v: %v, want a *engine.SettingError", r.Settings, err)
			continue
		}
		for _, says := range r.Says {
			if !strings.Contains(err.Error(), says) {
				t.Errorf("%v: %q does not say %q", r.Settings, err, says)
			}
		}
	}
	if err := checker.CheckSettings(settings); err != nil {
		t.Fatalf("%v: %v", settings, err)
	}
	e := open(t, settings)
	defer e.Close()
	info, err := e.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(info.Applied, want) {
		t.Errorf("applied %+v\nwant    %+v", info.Applied, want)
	}
}
