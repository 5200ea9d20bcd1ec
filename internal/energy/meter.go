package energy

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Scope says what an external meter measures, and so how it enters the total.
type Scope string

const (
	// ScopeHost is the whole host at the wall (a lab meter on its plug, IPMI's DCMI
	// reading of its power supplies): where it covers a window, it replaces the CPU,
	// DRAM and base components in the total, which it contains.
	ScopeHost Scope = "host"
	// ScopeExtra is equipment outside the host (an external storage array, as the
	// SAN study metered each system): it adds to the total.
	ScopeExtra Scope = "extra"
)

// ParseScope reads a meter's scope; "" is host.
func ParseScope(text string) (Scope, error) {
	switch Scope(text) {
	case "", ScopeHost:
		return ScopeHost, nil
	case ScopeExtra:
		return ScopeExtra, nil
	}
	return "", fmt.Errorf("power meter scope %q: give %s (the whole host at the wall) or %s (equipment outside the host)", text, ScopeHost, ScopeExtra)
}

// MeterConfig is one external meter: a file of readings (--power-meter FILE) or a
// command polled at each sample (--power-meter-cmd).
type MeterConfig struct {
	// Name names the component ("meter" when empty).
	Name    string
	File    string
	Command string
	Scope   Scope
	// Offset is added to the file's times: how far the meter's clock is behind this
	// host's.
	Offset time.Duration
	// Timeout bounds one run of Command (DefaultMeterTimeout when 0).
	Timeout time.Duration
}

// DefaultMeterTimeout bounds one poll of a meter command: ipmitool answers within a
// second on a healthy BMC.
const DefaultMeterTimeout = 5 * time.Second

func (c MeterConfig) name() string {
	if c.Name == "" {
		return "meter"
	}
	return c.Name
}

// MeterFileError is a meter file that cannot be read: Line is 0 for the file as a
// whole.
type MeterFileError struct {
	File string
	Line int
	Why  string
}

func (e *MeterFileError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("--power-meter %s: %s", e.File, e.Why)
	}
	return fmt.Sprintf("--power-meter %s:%d: %s", e.File, e.Line, e.Why)
}

// ReadMeterFile reads a meter's readings: one a line, a time and watts, in columns
// separated by commas, semicolons, tabs or spaces. The first line may be a header
// naming the columns (a time column: time, timestamp, date; a watts column: watts,
// power, w), which picks them out of others (volts, amps); without one the first two
// columns are time and watts. Times are RFC 3339 (2024-05-01T12:00:00.5Z) or Unix
// seconds (1714564800.5), and must not go back; watts are 0 to MaxWatts; lines that
// are empty or start with # are skipped. The file must be a regular file: it is read
// before the run and again after it, which a pipe or a device cannot be.
//
// Only complete lines are read: a last line without its newline is what a meter's
// logger had written when the file was read (123.4 W cut to "12"), so it is left out
// and described by the *TornMeterLine returned.
func ReadMeterFile(path string) ([]Reading, *TornMeterLine, error) {
	if err := statMeterFile(path); err != nil {
		return nil, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &MeterFileError{File: path, Why: pathErr(err)}
	}
	defer f.Close()
	return parseMeter(path, f)
}

// TornMeterLine is a meter file's last line, without its newline: the part of a
// reading its logger had written when the file was read. It is left out, since its
// watts may be cut short ("12" of 123.4).
type TornMeterLine struct {
	File string
	// Line is its number; Text what there is of it.
	Line int
	Text string
}

func (t *TornMeterLine) String() string {
	return fmt.Sprintf("%s: its last line %d (%q) has no end: the part of a reading its logger was writing when the file was read, left out; the %d complete lines before it are used",
		t.File, t.Line, t.Text, t.Line-1)
}

// statMeterFile checks that path is a regular file. It is looked at before it is
// opened: opening a named pipe waits for a writer.
func statMeterFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return &MeterFileError{File: path, Why: pathErr(err)}
	}
	if !fi.Mode().IsRegular() {
		return &MeterFileError{File: path, Why: fmt.Sprintf("not a regular file but %s: give a file of readings, which is read before the run and again after it", fileKind(fi.Mode()))}
	}
	return nil
}

// CheckMeterFile is what a run's settings ask of --power-meter before anything
// starts: the file is there and is a regular file. A meter's logger may go on
// appending to it during the run (New reads it, Finish again), but a file that is
// not there before the run is a mistyped path far more often than a logger yet to
// start, and would only be found missing once the run is over.
func CheckMeterFile(path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return &MeterFileError{File: path, Why: "no such file: give a file of (time, watts) readings that is there before the run starts (the meter's logger may append to it during the run)"}
	}
	return statMeterFile(path)
}

// pathErr is err without the path that the error naming the file already gives.
func pathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// maxMeterLine bounds a line of a meter file: a reading is a few dozen bytes, and a
// longer line is a file that is not a meter's (a binary file has few newlines).
const maxMeterLine = 64 << 10

// scanLines is bufio.ScanLines that notes in *unended whether the line it returns
// is the file's last without a newline.
func scanLines(unended *bool) bufio.SplitFunc {
	return func(data []byte, atEOF bool) (int, []byte, error) {
		advance, token, err := bufio.ScanLines(data, atEOF)
		*unended = token != nil && atEOF && advance == len(data) && (len(data) == 0 || data[len(data)-1] != '\n')
		return advance, token, err
	}
}

func parseMeter(path string, r io.Reader) ([]Reading, *TornMeterLine, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4<<10), maxMeterLine)
	unended := false
	sc.Split(scanLines(&unended))
	var out []Reading
	var torn *TornMeterLine
	delim := rune(0)
	timeCol, wattsCol := 0, 1
	first := true
	line := 0
	for sc.Scan() {
		line++
		lineErr := func(format string, a ...any) error {
			return &MeterFileError{File: path, Line: line, Why: fmt.Sprintf(format, a...)}
		}
		if b := sc.Bytes(); bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
			return nil, nil, lineErr("not text (a binary file?): give a text file of readings, a time and watts a line")
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if unended {
			// Whether it reads well or not, it may be a reading cut short.
			torn = &TornMeterLine{File: path, Line: line, Text: text}
			break
		}
		if first {
			delim = delimiter(text)
		}
		fields, err := split(text, delim)
		if err != nil {
			return nil, nil, lineErr("%v", err)
		}
		if first {
			first = false
			if _, terr := parseMeterTime(field(fields, 0)); terr != nil {
				if _, werr := strconv.ParseFloat(field(fields, 1), 64); werr == nil {
					return nil, nil, lineErr("%v", terr) // a reading with a bad time, not a header
				}
				var ok bool
				if timeCol, wattsCol, ok = headerColumns(fields); !ok {
					return nil, nil, lineErr("neither a reading (time, watts) nor a header naming a time column (time, timestamp) and a watts column (watts, power): %q", text)
				}
				continue
			}
		}
		if len(fields) <= max(timeCol, wattsCol) {
			return nil, nil, lineErr("%d column(s), want a time in column %d and watts in column %d", len(fields), timeCol+1, wattsCol+1)
		}
		t, err := parseMeterTime(fields[timeCol])
		if err != nil {
			return nil, nil, lineErr("%v", err)
		}
		w, err := parseWatts(fields[wattsCol])
		if err != nil {
			return nil, nil, lineErr("%v", err)
		}
		if n := len(out); n > 0 && t.Before(out[n-1].Time) {
			return nil, nil, lineErr("time %s is before the previous reading's %s: readings must be in time order",
				t.Format(time.RFC3339Nano), out[n-1].Time.Format(time.RFC3339Nano))
		}
		out = append(out, Reading{Time: t, Watts: w})
	}
	if err := sc.Err(); err != nil {
		why := err.Error()
		if errors.Is(err, bufio.ErrTooLong) {
			why = fmt.Sprintf("a line longer than %d KiB (a binary file?): give a text file of readings, a time and watts a line", maxMeterLine>>10)
		}
		return nil, nil, &MeterFileError{File: path, Line: line + 1, Why: why}
	}
	if len(out) == 0 {
		why := "no readings (want lines of a time and watts)"
		if torn != nil {
			why = fmt.Sprintf("no complete reading: its only one, line %d (%q), has no newline at its end (a logger still writing it?); a reading is a line that ends", torn.Line, torn.Text)
		}
		return nil, nil, &MeterFileError{File: path, Why: why}
	}
	return out, torn, nil
}

// delimiter picks the column separator from a file's first line: comma, semicolon,
// tab, or (0) runs of spaces.
func delimiter(line string) rune {
	for _, d := range []rune{',', ';', '\t'} {
		if strings.ContainsRune(line, d) {
			return d
		}
	}
	return 0
}

func split(line string, delim rune) ([]string, error) {
	if delim == 0 {
		return strings.Fields(line), nil
	}
	cr := csv.NewReader(strings.NewReader(line))
	cr.Comma, cr.FieldsPerRecord = delim, -1
	fields, err := cr.Read()
	switch {
	case errors.Is(err, csv.ErrBareQuote):
		return nil, errors.New(`a quote (") inside a column that does not start with one: quote the whole column or leave the quote out`)
	case errors.Is(err, csv.ErrQuote):
		return nil, errors.New(`a column that starts with a quote (") must end with one, with any quote inside it doubled ("")`)
	case err != nil:
		return nil, err
	}
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	return fields, nil
}

func field(fields []string, i int) string {
	if i < len(fields) {
		return fields[i]
	}
	return ""
}

// headerColumns finds the time and watts columns of a header line.
func headerColumns(fields []string) (timeCol, wattsCol int, ok bool) {
	timeCol, wattsCol = -1, -1
	for i, f := range fields {
		name := strings.ToLower(f)
		switch {
		case timeCol < 0 && (strings.Contains(name, "time") || strings.Contains(name, "date") || name == "ts" || name == "t"):
			timeCol = i
		case wattsCol < 0 && (strings.Contains(name, "watt") || strings.Contains(name, "power") || name == "w" || strings.HasPrefix(name, "w ")):
			wattsCol = i
		}
	}
	return timeCol, wattsCol, timeCol >= 0 && wattsCol >= 0
}

// latestUnix bounds Unix seconds (2200-01-01): a larger value is milliseconds or
// nanoseconds, not seconds.
const latestUnix = 7258118400

func parseMeterTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !finite(v) {
		return time.Time{}, fmt.Errorf("time %q: give RFC 3339 (2024-05-01T12:00:00Z) or Unix seconds (1714564800.5)", s)
	}
	if v < 0 || v > latestUnix {
		return time.Time{}, fmt.Errorf("time %s: Unix seconds should fall between 1970 and 2200 (milliseconds? divide by 1000)", s)
	}
	sec, frac := math.Modf(v)
	return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), nil
}
