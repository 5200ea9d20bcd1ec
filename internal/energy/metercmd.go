package energy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// MeterCommandError is a meter command that failed or printed no reading.
type MeterCommandError struct {
	Command string
	Why     string
}

func (e *MeterCommandError) Error() string {
	return fmt.Sprintf("--power-meter-cmd %q: %s", e.Command, e.Why)
}

var (
	dcmiReading     = regexp.MustCompile(`(?im)^\s*Instantaneous power reading\s*:\s*([0-9]+(?:\.[0-9]+)?)\s*Watts`)
	dcmiDeactivated = regexp.MustCompile(`(?im)^\s*Power reading state is\s*:\s*deactivated`)
)

// ParsePowerReading reads watts from a meter command's output: ipmitool dcmi power
// reading's "Instantaneous power reading: N Watts" line, or output that is numbers
// alone, one a line, whose sum is the reading (a script of the user's that prints the
// host's watts, or one line per power supply or PDU outlet that feeds it). Blank
// lines are skipped; any other line is an error naming it. Each number and the sum
// are 0 to MaxWatts.
func ParsePowerReading(out string) (float64, error) {
	if dcmiDeactivated.MatchString(out) {
		return 0, errors.New("the BMC's DCMI power reading is deactivated (\"Power reading state is: deactivated\"): ipmitool dcmi power activate")
	}
	if m := dcmiReading.FindStringSubmatch(out); m != nil {
		w, err := strconv.ParseFloat(m[1], 64)
		if err == nil {
			err = checkWatts(w)
		}
		if err != nil {
			return 0, fmt.Errorf("instantaneous power reading %q: %v", m[1], err)
		}
		return w, nil
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var sum float64
	numbers := 0
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		w, err := strconv.ParseFloat(l, 64)
		if err != nil {
			if len(lines) == 1 {
				return 0, fmt.Errorf("no \"Instantaneous power reading: N Watts\" line, nor a number of watts alone, in its output (%q)", clip(l))
			}
			return 0, fmt.Errorf("line %d of its output, %q, is not a number of watts: print the host's watts, or one number a line (one per power supply), which are added", i+1, clip(l))
		}
		if err := checkWatts(w); err != nil {
			if len(lines) == 1 {
				return 0, fmt.Errorf("%v: print the host's watts, 0 to %g", err, MaxWatts)
			}
			return 0, fmt.Errorf("line %d of its output: %v: print watts, 0 to %g", i+1, err, MaxWatts)
		}
		sum += w
		numbers++
	}
	if numbers == 0 {
		return 0, errors.New("printed nothing: print the host's watts, or ipmitool dcmi power reading's output")
	}
	if err := checkWatts(sum); err != nil {
		return 0, fmt.Errorf("the %d numbers of its output add up to %v", numbers, err)
	}
	return sum, nil
}

// clip shortens a line of output for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// maxCommandOutput bounds what a poll keeps of a meter command's output: a reading is
// a line, ipmitool's is a dozen, and a command that prints more is not a meter (or
// never stops: yes).
const maxCommandOutput = 64 << 10

// pollCommand runs command through sh, at most timeout, and reads its watts. The
// command runs in a process group of its own, which is killed when it ends, fails or
// times out: a child it left running in the background (a forgotten sleep &, a
// daemon it started) would hold its output open and outlive the run.
func pollCommand(ctx context.Context, command string, timeout time.Duration) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(why string) (float64, error) { return 0, &MeterCommandError{command, why} }
	// The output goes to pipes of our own rather than to buffers that exec copies
	// into: Wait then returns when sh ends, not when the last process holding the
	// pipes does.
	outR, outW, err := os.Pipe()
	if err != nil {
		return fail(err.Error())
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return fail(err.Error())
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Stdout, cmd.Stderr = outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return fail(err.Error())
	}
	killGroup := func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stdout, stderr := readOutput(outR, killGroup), readOutput(errR, killGroup)
	waitErr := cmd.Wait()
	killGroup() // what sh left behind
	out, errOut := stdout.wait(), stderr.wait()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return fail(fmt.Sprintf("gave no answer within %s", timeout))
	case out.tooLong:
		return fail(fmt.Sprintf("printed more than %d KiB (%q...): a meter command prints a reading", maxCommandOutput>>10, clip(out.String())))
	case waitErr != nil:
		why := waitErr.Error()
		if last := lastLine(errOut.String()); last != "" {
			why += ": " + last
		}
		return fail(why)
	}
	w, err := ParsePowerReading(out.String())
	if err != nil {
		return fail(err.Error())
	}
	return w, nil
}

// output is what a poll read from one of the command's pipes.
type output struct {
	bytes.Buffer
	tooLong bool
}

// outputReader reads a pipe in the background.
type outputReader struct {
	r    *os.File
	done chan *output
}

// readOutput reads r until it ends, keeping up to maxCommandOutput; beyond that it
// calls overflow (which kills the command) and drains the rest.
func readOutput(r *os.File, overflow func()) *outputReader {
	or := &outputReader{r: r, done: make(chan *output, 1)}
	go func() {
		out := &output{}
		_, err := io.CopyN(&out.Buffer, r, maxCommandOutput+1)
		if err == nil {
			out.tooLong = true
			out.Truncate(maxCommandOutput)
			overflow()
			io.Copy(io.Discard, r)
		}
		or.done <- out
	}()
	return or
}

// outputGrace is how long a poll waits for its pipes to close once the command's
// process group is killed: only a process that left the group (setsid) keeps them
// open longer, and its output is not waited for.
const outputGrace = time.Second

// wait returns what was read, closing the pipe after outputGrace if it is still open.
func (or *outputReader) wait() *output {
	select {
	case out := <-or.done:
		or.r.Close()
		return out
	case <-time.After(outputGrace):
		or.r.Close() // ends the read
		return <-or.done
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// commandMeter polls a meter command in the background, one poll at a time: a poll
// is started at each sample unless the previous one is still running, and its
// reading is stamped with the middle of its run.
//
// Its cadence is not the median spacing of its readings, as a file's is: the samples
// that start the polls come at the monitor's ticks and at every window mark, a few
// milliseconds after a tick at the start and end of a window, so on a short run most
// readings are milliseconds apart and the median would call every tick-to-tick
// interval a gap. What the polls themselves say is used instead: the longest time
// between the readings of two polls in a row that both succeeded (spacing) is how
// far apart this meter's readings come when nothing fails.
type commandMeter struct {
	command string
	timeout time.Duration
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	// clock stamps the readings (time.Now; a test's own clock).
	clock func() time.Time

	mu       sync.Mutex // guards what follows
	readings []Reading
	polls    int
	failures int
	firstErr string
	busy     bool
	closing  bool // drain was called: no new polls
	skipped  int  // samples that found the previous poll still running
	// clean says the last reading came from a sample's poll and no poll has failed
	// since; spacing is the longest time between two such readings in a row.
	clean   bool
	spacing time.Duration
}

func newCommandMeter(command string, timeout time.Duration) *commandMeter {
	ctx, cancel := context.WithCancel(context.Background())
	return &commandMeter{command: command, timeout: timeout, ctx: ctx, cancel: cancel, clock: time.Now}
}

// check polls once and waits: a command that fails before the run fails the run.
func (m *commandMeter) check() error {
	t0 := m.clock()
	w, err := pollCommand(m.ctx, m.command, m.timeout)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.readings = append(m.readings, Reading{Time: t0.Add(m.clock().Sub(t0) / 2), Watts: w})
	m.polls++
	m.mu.Unlock()
	return nil
}

// poll starts a poll unless one is running.
func (m *commandMeter) poll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx.Err() != nil || m.closing {
		return
	}
	if m.busy {
		m.skipped++
		return
	}
	m.busy = true
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t0 := m.clock()
		w, err := pollCommand(m.ctx, m.command, m.timeout)
		mid := t0.Add(m.clock().Sub(t0) / 2)
		m.mu.Lock()
		defer m.mu.Unlock()
		m.busy = false
		if m.ctx.Err() != nil {
			return // stopped: a poll cut short is neither a reading nor a failure
		}
		m.polls++
		if err != nil {
			m.failures++
			if m.firstErr == "" {
				m.firstErr = err.Error()
			}
			m.clean = false
			return
		}
		if n := len(m.readings); n > 0 && m.clean {
			m.spacing = max(m.spacing, mid.Sub(m.readings[n-1].Time))
		}
		m.readings = append(m.readings, Reading{Time: mid, Watts: w})
		m.clean = true
	}()
}

// stop ends a running poll and waits for it.
func (m *commandMeter) stop() {
	m.cancel()
	m.wg.Wait()
}

// drain lets a running poll finish (within its timeout), starts no other, and stops:
// the poll started at the last sample is the reading at the end of the run, without
// which the run's last interval would rest on the reading before it.
func (m *commandMeter) drain() {
	m.mu.Lock()
	m.closing = true
	m.mu.Unlock()
	m.wg.Wait()
	m.stop()
}

// latest is the last reading's watts; ok is false before any.
func (m *commandMeter) latest() (watts float64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := len(m.readings); n > 0 {
		return m.readings[n-1].Watts, true
	}
	return 0, false
}

// result returns the readings, the longest spacing between two successful polls in a
// row (0 when no two came in a row) and a note on failed polls.
func (m *commandMeter) result() ([]Reading, time.Duration, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rs := append([]Reading(nil), m.readings...) // in time order: one poll runs at a time
	note := ""
	if m.failures > 0 {
		note = fmt.Sprintf("%d of %d polls failed, the first: %s", m.failures, m.polls, m.firstErr)
	}
	if m.skipped > 0 {
		note = strings.TrimPrefix(note+fmt.Sprintf("; %d samples found the previous poll still running", m.skipped), "; ")
	}
	return rs, m.spacing, note
}
