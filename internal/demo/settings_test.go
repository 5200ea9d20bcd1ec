package demo

import (
	"strings"
	"testing"

	"tierbench/internal/params"
)

// TestSettingsRefuse: every bad parameter of the demo is one line naming its flag,
// before anything runs; good ones come out as the configuration's values.
func TestSettingsRefuse(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sf", "lots"}, `--sf "lots" is not a number`},
		{[]string{"--grid-intensity", "-1"}, "--grid-intensity -1: give grams of CO2 per kWh, 0 or more"},
		{[]string{"--cache", "big"}, `--cache "big" is not a size`},
		{[]string{"--cache", "32KiB"}, "--cache 32KiB: give at least 64KiB"},
		{[]string{"--page-cache", "512KiB"}, "--page-cache 512KiB: give at least 1MiB, or none"},
		{[]string{"--devices", "hdd-7200,hdd-9000"}, `--devices: unknown device profile "hdd-9000"`},
		{[]string{"--emulator", "mmap"}, `--emulator "mmap": give fuse`},
	} {
		s := NewSettings()
		err := params.FlagError(s.Params().FlagSet().Parse(tc.args))
		if err == nil {
			_, err = s.Config()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", tc.args, err, tc.want)
		}
	}
	s := NewSettings()
	if err := s.Params().FlagSet().Parse([]string{"--page-cache", "none", "--cache", "1MiB", "--devices", "nvme, hdd-7200", "--sf", "0.1"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.PageCache != -1 || cfg.CacheBytes != 1<<20 || cfg.SF != 0.1 || len(cfg.Slots) != 2 || cfg.Slots[1].Want != "hdd-7200" || cfg.Emulator.Path != "auto" {
		t.Errorf("config %+v", cfg)
	}
}
