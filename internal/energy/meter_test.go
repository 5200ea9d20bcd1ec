package energy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
			got, torn, err := parseMeter("m.csv", strings.NewReader(c.text))
			if err != nil || torn != nil {
				t.Fatal(err, torn)
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

// TestParseMeterTornLine: a last line without its newline is what a logger had
// written of a reading when the file was read; it is left out, whether it reads as a
// reading (watts "12" of 123.4) or not (a time cut to "17145", a missing column).
func TestParseMeterTornLine(t *testing.T) {
	for _, c := range []struct{ name, text, torn string }{
		{"watts cut short", "1714564800,200\n1714564801.5,210.5\n1714564803,12", "1714564803,12"},
		{"time cut short", "1714564800 200\n1714564801.5 210.5\n17145", "17145"},
		{"a header, then a cut line", "time;watts\n1714564800;200\n1714564801.5;210.5\n1714564803;", "1714564803;"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, torn, err := parseMeter("m.csv", strings.NewReader(c.text))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[1].Watts != 210.5 {
				t.Errorf("readings %v, want the two complete ones", got)
			}
			lines := strings.Count(c.text, "\n") + 1
			if torn == nil || torn.Line != lines || torn.Text != c.torn || torn.File != "m.csv" {
				t.Errorf("torn %+v, want line %d %q", torn, lines, c.torn)
			}
		})
	}
	// The same lines ended by a newline are whole: the last is read, nothing is torn.
	got, torn, err := parseMeter("m.csv", strings.NewReader("1714564800,200\r\n1714564803,12\r\n"))
	if err != nil || torn != nil || len(got) != 2 || got[1].Watts != 12 {
		t.Errorf("complete lines: %v %+v %v", got, torn, err)
	}
	// A comment or blank space without an end holds no reading: nothing is torn.
	if _, torn, err := parseMeter("m.csv", strings.NewReader("1714564800,200\n# stopped")); err != nil || torn != nil {
		t.Errorf("an unended comment: %+v %v", torn, err)
	}
	// A file of one unended line has no reading to use, and says why.
	_, _, err = parseMeter("m.csv", strings.NewReader("1714564800,200"))
	if err == nil || err.Error() != `--power-meter m.csv: no complete reading: its only one, line 1 ("1714564800,200"), has no newline at its end (a logger still writing it?); a reading is a line that ends` {
		t.Errorf("one unended line: %v", err)
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
		{"bad watts", "1714564800,200\n# note\n1714564801,lots\n", 3, `watts "lots": give a number of watts, 0 to 100000`},
		{"negative watts", "1714564800 -5\n", 1, `watts "-5": -5 W is below 0`},
		// 1e308 W over a second, summed by the trapezoid rule, is +Inf joules.
		{"watts beyond any host", "1714564800 200\n1714564801 1e308\n", 2, `watts "1e308": 1e+308 W is more than 100 kW`},
		{"milliwatts", "1714564800 250000\n", 1, `watts "250000": 250000 W is more than 100 kW, more than a rack of servers draws: give a number of watts, 0 to 100000`},
		{"infinite watts", "1714564800 +Inf\n", 1, `watts "+Inf": +Inf is not a number of watts`},
		{"missing column", "time,volts,watts\n1714564800,230,200\n1714564801,230\n", 3, "2 column(s), want a time in column 1 and watts in column 3"},
		{"back in time", "1714564801 200\n1714564800 200\n", 2, "readings must be in time order"},
		{"a header without watts", "time,volts\n1714564800,230\n", 1, "a header naming a time column"},
		{"an unclosed quote", "time,watts\n\"1714564800,200\n", 2, `a column that starts with a quote (") must end with one`},
		{"a quote inside a column", "time,watts\n1714564800,2\"00\n", 2, `a quote (") inside a column that does not start with one`},
		{"binary", "time,watts\n1714564800,200\n\x7fELF\x02\x01\x01\x00\x00\n", 3, "not text (a binary file?)"},
		{"not UTF-8", "1714564800 200\n\xff\xfe\n", 2, "not text (a binary file?)"},
		{"a line without end", "time,watts\n" + strings.Repeat("1", 70<<10), 2, "a line longer than 64 KiB (a binary file?)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := parseMeter("lab.csv", strings.NewReader(c.text))
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
	if _, _, err := parseMeter("empty.csv", strings.NewReader("time,watts\n# nothing yet\n")); err == nil || !strings.Contains(err.Error(), "no readings") {
		t.Errorf("empty file: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "none.csv")
	if _, _, err := ReadMeterFile(missing); err == nil || err.Error() != "--power-meter "+missing+": no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
	// A device or a pipe never ends, or cannot be read twice: refused before reading.
	fifo := filepath.Join(t.TempDir(), "meter.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{"/dev/zero": "a device", fifo: "a named pipe", t.TempDir(): "a directory"} {
		if _, _, err := ReadMeterFile(path); err == nil || !strings.Contains(err.Error(), "--power-meter "+path+": not a regular file but "+kind) {
			t.Errorf("%s: %v", path, err)
		}
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
		{"-3\n", 0, "-3 W is below 0: print the host's watts, 0 to 100000"},
		// Numbers alone, one a line (one per power supply), add up.
		{"50\n60\n", 110, ""},
		{"\n 50 \n\n60\r\n", 110, ""},
		{"", 0, "printed nothing"},
		{"50\nPSU2 failed\n", 0, `line 2 of its output, "PSU2 failed", is not a number of watts`},
		{"50\n-60\n", 0, "line 2 of its output: -60 W is below 0"},
		{"60000\n60000\n", 0, "the 2 numbers of its output add up to 120000 W is more than 100 kW"},
		// 1e308 W passed once, and made the run's joules +Inf.
		{"1e308\n", 0, "1e+308 W is more than 100 kW"},
		{"NaN\n", 0, "NaN is not a number of watts"},
		{strings.Replace(ipmitoolOutput, "220 Watts", "2200000 Watts", 1), 0, `instantaneous power reading "2200000": 2.2e+06 W is more than 100 kW`},
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

	// A child left running in the background holds the output open: the poll takes
	// the reading when sh ends, and the child ends with the command's process group.
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	w, err := pollCommand(ctx, "sleep 30 & echo $! > "+pidFile+"; echo 50", time.Minute)
	if err != nil || w != 50 {
		t.Errorf("a command that leaves a child running: %g, %v", w, err)
	}
	if b, err := os.ReadFile(pidFile); err != nil {
		t.Error(err)
	} else if pid := strings.TrimSpace(string(b)); !gone(pid) {
		t.Errorf("the command's child, process %s, is still running", pid)
		if n, err := strconv.Atoi(pid); err == nil {
			syscall.Kill(n, syscall.SIGKILL)
		}
	}
	// A command that prints without end is stopped once it has printed too much.
	if _, err := pollCommand(ctx, "yes 100", time.Minute); err == nil || !strings.Contains(err.Error(), "printed more than 64 KiB") {
		t.Errorf("endless output: %v", err)
	}
}

// gone reports whether process pid has ended (a zombie has), waiting up to 10 s for
// the kernel to deliver the signal.
func gone(pid string) bool {
	for range 100 {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return true
		}
		// The state follows the command's name in parentheses.
		if _, after, ok := strings.Cut(string(b), ") "); ok && strings.HasPrefix(after, "Z") {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}
