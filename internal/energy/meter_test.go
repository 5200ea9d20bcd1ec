package energy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseMeter(t *testing.T) {
	want := []Reading{{at(0), 200}, {at(1.5), 210.5}, {at(3), 190}}
	for _, c := range []struct{ name, text string }{
		{"CSV with a header and other columns", "timestamp,volts,amps,watts\n" +
			"2024-05-01T12:00:00Z,230,0.87,200\n2024-05-01T12:00:01.5Z,230,0.91,210.5\n2024-05-01T14:00:03+02:00,230,0.83,190\n"},
		{"whitespace, Unix seconds, comments", "# meter log\n\n1714564800 200\n1714564801.5   210.5\n1714564803\t190\n"},
		{"semicolons and quotes", "\"Time\";\"Power (W)\"\n\"1714564800\";\"200\"\n1714564801.5;210.5\n1714564803;190\n"},
		{"header with the watts first", "w time\n200 1714564800\n210.5 1714564801.5\n190 1714564803\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseMeter("m.csv", strings.NewReader(c.text))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d readings, want %d: %v", len(got), len(want), got)
			}
			for i := range want {
				if !got[i].Time.Equal(want[i].Time) || got[i].Watts != want[i].Watts {
					t.Errorf("reading %d: %v %g, want %v %g", i, got[i].Time, got[i].Watts, want[i].Time, want[i].Watts)
				}
			}
		})
	}
}

// TestParseMeterBadLines: each bad line is named by file and line, with what would
// be valid.
func TestParseMeterBadLines(t *testing.T) {
	for _, c := range []struct {
		name, text string
		line       int
		why        string
	}{
		{"bad time", "time,watts\n1714564800,200\nyesterday,210\n", 3, `time "yesterday": give RFC 3339`},
		{"bad time on the first line", "2024-05-01 12:00:00,200\n", 1, `time "2024-05-01 12:00:00": give RFC 3339`},
		{"milliseconds", "1714564800000 200\n", 1, "milliseconds? divide by 1000"},
		{"bad watts", "1714564800,200\n# note\n1714564801,lots\n", 3, `watts "lots": give a number of watts, 0 or more`},
		{"negative watts", "1714564800 -5\n", 1, `watts "-5"`},
		{"missing column", "time,volts,watts\n1714564800,230,200\n1714564801,230\n", 3, "2 column(s), want a time in column 1 and watts in column 3"},
		{"back in time", "1714564801 200\n1714564800 200\n", 2, "readings must be in time order"},
		{"a header without watts", "time,volts\n1714564800,230\n", 1, "a header naming a time column"},
		{"an unclosed quote", "time,watts\n\"1714564800,200\n", 2, "extraneous or missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseMeter("lab.csv", strings.NewReader(c.text))
			var fe *MeterFileError
			if !errors.As(err, &fe) {
				t.Fatalf("want a MeterFileError, got %v", err)
			}
			if fe.File != "lab.csv" || fe.Line != c.line || !strings.Contains(fe.Why, c.why) {
				t.Errorf("got %q (line %d), want line %d with %q", err, fe.Line, c.line, c.why)
			}
			if !strings.HasPrefix(err.Error(), "--power-meter lab.csv:") {
				t.Errorf("error %q does not start with the flag and file:line", err)
			}
		})
	}
	if _, err := parseMeter("empty.csv", strings.NewReader("time,watts\n# nothing yet\n")); err == nil || !strings.Contains(err.Error(), "no readings") {
		t.Errorf("empty file: %v", err)
	}
	if _, err := ReadMeterFile(filepath.Join(t.TempDir(), "none.csv")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// ipmitoolOutput is what ipmitool dcmi power reading prints.
const ipmitoolOutput = `
    Instantaneous power reading:                   220 Watts
    Minimum during sampling period:                 60 Watts
    Maximum during sampling period:                335 Watts
    Average power reading over sample period:      222 Watts
    IPMI timestamp:                           Wed May  1 12:00:00 2024
    Sampling period:                          00000001 Seconds.
    Power reading state is:                   activated
`

func TestParsePowerReading(t *testing.T) {
	for _, c := range []struct {
		out  string
		want float64
		err  string
	}{
		{ipmitoolOutput, 220, ""},
		{"  151.5\n", 151.5, ""},
		{strings.Replace(ipmitoolOutput, "activated", "deactivated", 1), 0, "deactivated"},
		{"Could not open device at /dev/ipmi0\n", 0, `no "Instantaneous power reading: N Watts" line`},
		{"-3\n", 0, "no \"Instantaneous"},
	} {
		w, err := ParsePowerReading(c.out)
		if c.err == "" && (err != nil || w != c.want) {
			t.Errorf("ParsePowerReading(%q) = %g, %v, want %g", c.out, w, err, c.want)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ParsePowerReading(%q): %v, want an error with %q", c.out, err, c.err)
		}
	}
}

// TestPollCommand runs real commands through sh: one that prints a reading, one
// that fails (its exit status and last stderr line in the error), one that hangs
// (stopped at the timeout, with what sh started).
func TestPollCommand(t *testing.T) {
	ctx := context.Background()
	script := filepath.Join(t.TempDir(), "ipmitool")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat <<'EOF'\n"+ipmitoolOutput+"EOF\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if w, err := pollCommand(ctx, script+" dcmi power reading", time.Minute); err != nil || w != 220 {
		t.Errorf("ipmitool stand-in: %g, %v", w, err)
	}
	_, err := pollCommand(ctx, "echo 'Could not open device' >&2; exit 3", time.Minute)
	var ce *MeterCommandError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "exit status 3: Could not open device") ||
		!strings.HasPrefix(err.Error(), `--power-meter-cmd "echo`) {
		t.Errorf("failing command: %v", err)
	}
	if _, err := pollCommand(ctx, "echo nothing useful", time.Minute); err == nil || !strings.Contains(err.Error(), "nothing useful") {
		t.Errorf("command without a reading: %v", err)
	}
	start := time.Now()
	_, err = pollCommand(ctx, "sleep 30; echo 5", 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "gave no answer within 200ms") {
		t.Errorf("hanging command: %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the hanging command held the poll for %s", d)
	}
}
