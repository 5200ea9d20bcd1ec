package engine

import (
	"context"
	"strings"
	"testing"
)

// testDriver is a driver of no engine, with the dialect it is given; open, when set,
// is its Open.
type testDriver struct {
	name string
	d    *Dialect
	open func(Config) (Engine, error)
}

func (t testDriver) Name() string      { return t.name }
func (t testDriver) Dialect() *Dialect { return t.d }

func (t testDriver) Open(_ context.Context, cfg Config) (Engine, error) {
	if t.open == nil {
		return nil, nil
	}
	return t.open(cfg)
}

// TestDialectOf: a command reads an engine's facts (its footprint) by name before it
// opens the engine; a driver without I/O settings has none.
func TestDialectOf(t *testing.T) {
	d := &Dialect{Name: "test-dialect", Footprint: Footprint{SessionMemory: 3 << 20}}
	Register(testDriver{name: "test-dialect", d: d})
	got, err := DialectOf("test-dialect")
	if err != nil || got != d || got.Footprint.SessionMemory != 3<<20 {
		t.Errorf("DialectOf = %+v, %v; want the registered dialect", got, err)
	}
	if _, err := DialectOf("oracle"); err == nil || !strings.Contains(err.Error(), `unknown engine "oracle": valid engines are`) {
		t.Errorf("DialectOf(oracle): %v", err)
	}
	io, err := IOSettingsOf("test-dialect")
	if err != nil || len(io.Emulated) != 0 || io.ServerMajor != nil {
		t.Errorf("IOSettingsOf a driver without IOSetter: %+v, %v", io, err)
	}
	if _, err := IOSettingsOf("oracle"); err == nil || !strings.Contains(err.Error(), `unknown engine "oracle"`) {
		t.Errorf("IOSettingsOf(oracle): %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second Register of one name did not panic")
		}
	}()
	Register(testDriver{name: "test-dialect", d: d})
}

func TestColumnType(t *testing.T) {
	d := &Dialect{ColumnTypes: map[string]string{"decimal": "DECIMAL(%d,%d)", "varchar": "VARCHAR(%d)", "date": "DATE"}}
	for _, tc := range []struct {
		kind string
		args []int
		want string
	}{
		{"decimal", []int{15, 2}, "DECIMAL(15,2)"},
		{"varchar", []int{40}, "VARCHAR(40)"},
		{"varchar", []int{12, 2}, "VARCHAR(12)"},
		{"date", []int{10}, "DATE"},
	} {
		if got := d.ColumnType(tc.kind, tc.args...); got != tc.want {
			t.Errorf("ColumnType(%s, %v) = %s, want %s", tc.kind, tc.args, got, tc.want)
		}
	}
}

// versionedDriver is a test driver that says which version it would run.
type versionedDriver struct {
	testDriver
	version string
}

func (v versionedDriver) InstalledVersion() (string, error) { return v.version, nil }

// TestInstalledVersion: a driver that implements Versioner says its version; one
// that does not says nothing, which is no error.
func TestInstalledVersion(t *testing.T) {
	Register(versionedDriver{testDriver{name: "test-versioned"}, "7.1.2"})
	Register(testDriver{name: "test-unversioned"})
	if v, err := InstalledVersion("test-versioned"); v != "7.1.2" || err != nil {
		t.Errorf("InstalledVersion(test-versioned) = %q, %v; want 7.1.2", v, err)
	}
	if v, err := InstalledVersion("test-unversioned"); v != "" || err != nil {
		t.Errorf("InstalledVersion(test-unversioned) = %q, %v; want nothing", v, err)
	}
	if _, err := InstalledVersion("oracle"); err == nil || !strings.Contains(err.Error(), `unknown engine "oracle"`) {
		t.Errorf("InstalledVersion(oracle): %v", err)
	}
}
