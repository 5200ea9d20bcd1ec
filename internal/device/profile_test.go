package device

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinProfiles(t *testing.T) {
	r, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range r.Profiles() {
		names = append(names, p.Name)
		for key, f := range p.Fields {
			if f.Source == "" && (f.Value != 0 || f.Text != "") {
				t.Errorf("%s: field %s has no source", p.Name, key)
			}
		}
		if p.Power().IdleW <= 0 || p.Power().ActiveW < p.Power().IdleW {
			t.Errorf("%s: power %+v", p.Name, p.Power())
		}
	}
	if got := strings.Join(names, ","); got != "hdd-7200,hdd-10k,hdd-15k,sata-ssd,nvme,dram-ssd,"+
		"aws-gp3,aws-io2,aws-st1,gcp-pd-balanced,gcp-pd-ssd,gcp-hyperdisk-balanced,azure-premium-ssd-v2" {
		t.Errorf("built-ins %s", got)
	}
}

// The models of the built-ins land in the ranges of docs/devices.md, "Published figures".
func TestBuiltinFiguresMatchPublishedRanges(t *testing.T) {
	r := testRegistry(t)
	tests := []struct {
		name             string
		lat8KLo, lat8KHi float64 // us
		qd1Lo, qd1Hi     float64 // 4K IOPS at QD1
		qd32Lo, qd32Hi   float64
	}{
		{"hdd-7200", 11000, 14000, 70, 90, 70, 90},  // ~80 IOPS
		{"hdd-10k", 6000, 8000, 125, 155, 125, 155}, // ~140
		{"hdd-15k", 4800, 6000, 165, 205, 165, 205}, // ~185
		{"sata-ssd", 55, 80, 12000, 18000, 35000, 68000},
		{"nvme", 15, 25, 40000, 60000, 400000, 500000}, // ~20 us, ~50K QD1, 460K
		{"dram-ssd", 12, 20, 50000, 80000, 350000, 600000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := r.Characterize(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			lat := float64(f.RandRead8KQD1.Nanoseconds()) / 1e3
			if lat < tt.lat8KLo || lat > tt.lat8KHi {
				t.Errorf("8K read QD1 %.1f us, want %v-%v", lat, tt.lat8KLo, tt.lat8KHi)
			}
			if f.RandRead4KQD1IOPS < tt.qd1Lo || f.RandRead4KQD1IOPS > tt.qd1Hi {
				t.Errorf("4K QD1 %.0f IOPS, want %v-%v", f.RandRead4KQD1IOPS, tt.qd1Lo, tt.qd1Hi)
			}
			if f.RandRead4KQD32IOPS < tt.qd32Lo || f.RandRead4KQD32IOPS > tt.qd32Hi {
				t.Errorf("4K QD32 %.0f IOPS, want %v-%v", f.RandRead4KQD32IOPS, tt.qd32Lo, tt.qd32Hi)
			}
		})
	}
}

func TestProfileFileErrors(t *testing.T) {
	const good = `name: my-disk
class: hdd
source: my datasheet
capacity_gb: 500
rpm: 7200
cylinders: 50000
seek_t2t_ms: 1
seek_avg_ms: 8
seek_full_ms: 16
transfer_mbps: 100
interface_mbps: 300
controller_ms: 0.1
idle_w: 5
active_w: 8
`
	tests := []struct {
		name, text, want string
	}{
		{"negative field", strings.Replace(good, "seek_avg_ms: 8", "seek_avg_ms: -3", 1),
			"devices/my.yaml:8: field seek_avg_ms must be >= 0, got -3"},
		{"negative in value form", strings.Replace(good, "rpm: 7200", "rpm: {value: -1, source: x}", 1),
			"devices/my.yaml:5: field rpm must be > 0, got -1"},
		{"missing field", strings.Replace(good, "seek_avg_ms: 8\n", "", 1),
			`devices/my.yaml:1: profile "my-disk" (class hdd) is missing field seek_avg_ms`},
		{"unknown field", strings.Replace(good, "rpm:", "rmp:", 1),
			"devices/my.yaml:5: unknown field rmp for class hdd"},
		{"not a number", strings.Replace(good, "rpm: 7200", "rpm: fast", 1),
			`devices/my.yaml:5: field rpm: "fast" is not a number`},
		{"unknown class", strings.Replace(good, "class: hdd", "class: tape", 1),
			`unknown class "tape": use one of cloud, hdd, limit, measured, pagecache, raid10, raidcache, san, ssd, ssd-cache`},
		{"order", strings.Replace(good, "seek_t2t_ms: 1", "seek_t2t_ms: 9", 1),
			"devices/my.yaml:7: field seek_t2t_ms (9) must not exceed seek_avg_ms (8)"},
		{"whole number", strings.Replace(good, "cylinders: 50000", "cylinders: 10.5", 1),
			"devices/my.yaml:6: field cylinders must be a whole number, got 10.5"},
		{"no name", strings.Replace(good, "name: my-disk\n", "", 1),
			"devices/my.yaml:1: profile has no name"},
		{"bad yaml", good + "broken: [\n", "devices/my.yaml:15: the '[' opened on this line is not closed"},
		{"tab", good + "\tbroken: 1\n", "devices/my.yaml:15: a tab in the indentation"},
		{"taken name", strings.Replace(good, "name: my-disk", "name: hdd-7200", 1),
			`profile "hdd-7200" is already defined (builtin profile hdd-7200)`},
		{"watts beyond any device", strings.Replace(good, "active_w: 8", "active_w: 1e308", 1),
			"devices/my.yaml:14: field active_w must be at most 1e+06 (a megawatt), got 1e+308"},
		{"infinite watts", strings.Replace(good, "idle_w: 5", "idle_w: .inf", 1),
			`devices/my.yaml:13: field idle_w: ".inf" is not a number`},
		{"watts swapped", strings.Replace(strings.Replace(good, "idle_w: 5", "idle_w: 8", 1), "active_w: 8", "active_w: 5", 1),
			"devices/my.yaml:13: field idle_w (8) must not exceed active_w (5)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "devices")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "my.yaml"), []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Chdir(filepath.Dir(dir))
			_, err := Load("devices")
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), ": yaml: ") {
				t.Errorf("error %v\nwant it to contain %q, in words", err, tt.want)
			}
		})
	}
	t.Run("good file loads, composite profile too", func(t *testing.T) {
		dir := t.TempDir()
		comp := "---\nname: my-array\nclass: san\ninner: raid10(my-disk,devices=8)\nlink_mbps: {value: 400, source: 4GFC}\n" +
			"idle_w: 263.8\nactive_w: 281.3\npower_scope: system\n"
		if err := os.WriteFile(filepath.Join(dir, "my.yaml"), []byte(good+comp), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		p, err := r.Lookup("my-disk")
		if err != nil || p.Fields["rpm"].Source != "my datasheet" || p.Fields["rpm"].Line != 5 {
			t.Errorf("my-disk: %+v %v", p, err)
		}
		if _, err := r.Characterize("my-array"); err != nil {
			t.Error(err)
		}
	})
}

func TestSpecs(t *testing.T) {
	r := testRegistry(t)
	good := []struct{ in, canonical string }{
		{"hdd-7200", "hdd-7200"},
		{" san( dram-ssd , link=8gfc ) ", "san(dram-ssd,link=8gfc)"},
		{"pagecache(ssd-cache(raid10(hdd-15k,devices=4),ssd=nvme,size=1GiB,mode=writeback),size=4GiB)",
			"pagecache(ssd-cache(raid10(hdd-15k,devices=4),ssd=nvme,size=1GiB,mode=writeback),size=4GiB)"},
		{"hdd-7200(write_cache=off)", "hdd-7200(write_cache=off)"},
		{"ssd-cache(hdd-7200,ssd=sata-ssd(write_buffer=0),size=1GiB)", "ssd-cache(hdd-7200,ssd=sata-ssd(write_buffer=0),size=1GiB)"},
	}
	for _, tt := range good {
		s, err := ParseSpec(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if s.String() != tt.canonical {
			t.Errorf("%q parsed as %q", tt.in, s.String())
		}
		if _, err := r.Build(tt.in); err != nil {
			t.Errorf("build %q: %v", tt.in, err)
		}
	}
	bad := []struct{ in, want string }{
		{"hdd-9000", `unknown device profile "hdd-9000": known profiles are hdd-7200, hdd-10k, hdd-15k, sata-ssd, nvme, dram-ssd`},
		{"san(dram-ssd", "missing ) to close san("},
		{"san(dram-ssd,link=9xfc)", `link_mbps: "9xfc": unit "xfc" does not fit link_mbps`},
		{"san(dram-ssd,speed=8gfc)", `san has no field "speed"`},
		{"san()", "san needs inner (the device in the array): write san(INNER"},
		{"ssd-cache(hdd-7200)", "ssd-cache needs size_gib"},
		{"san(hdd-9000)", `unknown device profile "hdd-9000"`},
		{"hdd-7200(dram-ssd)", "hdd-7200 is a hdd profile and wraps no inner device"},
		{"raid10(hdd-7200,devices=3)", "field devices must be even"},
		{"ssd-cache(hdd-7200,size=1GiB,mode=sometimes)", `field mode must be one of readonly, writeback, got "sometimes"`},
		{"hdd-7200(write_cache=maybe)", "field write_cache must be true or false"},
		{"san(dram-ssd,controller=-5us)", "field controller_us must be >= 0, got -5"},
		{"san(dram-ssd,a,b)", "takes one inner device"},
		{"", "expected a profile name"},
	}
	for _, tt := range bad {
		_, err := r.Build(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v\nwant it to contain %q", tt.in, err, tt.want)
		}
	}
}

func TestCompositeProfileErrors(t *testing.T) {
	dir := t.TempDir()
	text := "name: arr\nclass: raid10\ninner: hdd-9000\n"
	if err := os.WriteFile(filepath.Join(dir, "arr.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	for _, want := range []string{`arr.yaml:3: profile "arr"`, `unknown device profile "hdd-9000"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant it to contain %q", err, want)
		}
	}
}

func TestSelfNestingProfileStops(t *testing.T) {
	dir := t.TempDir()
	loop := "name: loop\nclass: san\ninner: loop\n"
	if err := os.WriteFile(filepath.Join(dir, "loop.yaml"), []byte(loop), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "does a profile contain itself?") {
		t.Errorf("error %v", err)
	}
}

// TestSpecFieldBounds: figures beyond what a device can be (typos, or values the models'
// int64 nanoseconds and bytes cannot hold) are refused naming the field, instead of
// building a different device: controller=1e300ms gave negative completion times,
// transfer=1e-12MB/s an instant transfer, size=1e12GiB a one-page cache and
// devices=100000000 ran out of memory.
func TestSpecFieldBounds(t *testing.T) {
	r := testRegistry(t)
	for _, tt := range []struct{ in, want string }{
		{"hdd-7200(controller=1e300ms)", "field controller_ms must be at most 60000 (a minute), got 1e+300"},
		{"san(dram-ssd,controller=2min)", `"2min": unit "min" does not fit`},
		{"san(dram-ssd,controller=61s)", "field controller_us must be at most 6e+07 (a minute), got 6.1e+07"},
		{"hdd-7200(transfer=1e-12MB/s)", "field transfer_mbps must be at least 0.001 (1 kB/s), got 1e-12"},
		{"san(dram-ssd,link=1e9gfc)", "field link_mbps must be at most 1e+07 (10 TB/s)"},
		{"pagecache(hdd-7200,size=1e12GiB)", "field size_gib must be at most 1.04858e+06 (1 PiB)"},
		{"pagecache(hdd-7200,size=1GiB,page=0.00001KiB)", "field page_kib must be >= 0.5, got 1e-05"},
		{"pagecache(hdd-7200,size=16TiB)", "a cache of 16384 GiB in units of 4 KiB is 4.295e+09 entries, more than the 2147483648 the model indexes: give larger page or a smaller size"},
		{"ssd-cache(hdd-7200,size=1GiB,block=1B)", "field block_kib must be >= 0.5"},
		{"raid10(hdd-7200,devices=100000000)", "field devices must be <= 1024, got 1e+08"},
		{"raid10(hdd-7200,stripe=0.1KiB)", "field stripe_kib must be >= 0.5"},
		{"sata-ssd(channels=100000)", "field channels must be <= 256"},
		{"sata-ssd(write_buffer=1e300MiB)", "field write_buffer_mib must be at most 1.07374e+09 (1 PiB)"},
		{"sata-ssd(write_amplification=1e9)", "field write_amplification must be <= 100"},
		{"hdd-7200(cylinders=1e18)", "field cylinders must be <= 1e+07"},
		{"hdd-7200(capacity=2e6GB)", "field capacity_gb must be at most 1.1259e+06 (1 PiB)"},
		{"hdd-7200(rpm=1e9)", "field rpm must be <= 100000"},
		{"ssd-cache(hdd-7200,size=1GiB,admit_reads=1e300)", "field admit_reads must be <= 1e+06"},
		{"hdd-7200(active_w=1e9W)", "field active_w must be at most 1e+06 (a megawatt)"},
		{"hdd-7200(idle_w=1e308)", "field idle_w must be at most 1e+06 (a megawatt)"},
		{"hdd-7200(idle_w=-1)", "field idle_w must be >= 0"},
		{"hdd-7200(idle_w=9,active_w=5)", "field idle_w (9) must not exceed active_w (5)"},
	} {
		_, err := r.Build(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v\nwant it to contain %q", tt.in, err, tt.want)
		}
	}
	// the largest of each still builds
	for _, in := range []string{"pagecache(hdd-7200,size=8TiB)", "raid10(tssd,devices=1024)", "hdd-7200(controller=60s)", "hdd-7200(transfer=0.001)"} {
		if _, err := r.Build(in); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}
