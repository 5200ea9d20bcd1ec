package energy

import (
	"sync"
	"testing"
	"time"
)

// stepClock is a clock that stands still at the time a test sets: a poll started at a
// sample is stamped with the sample's time.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func (c *stepClock) read() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// commandRecorder is a recorder with one meter command whose polls are stamped by a
// stepClock that starts 3 ms after the check's poll.
func commandRecorder(t *testing.T, command string) (*Recorder, *stepClock, time.Time) {
	t.Helper()
	rec, err := New(Config{SysRoot: noSys(t), ProcRoot: "testdata/proc-epyc-vm", Meters: []MeterConfig{{Command: command}}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := rec.meters[0].cmd
	start := cmd.readings[0].Time.Add(3 * time.Millisecond)
	clock := &stepClock{now: start}
	cmd.clock = clock.read
	return rec, clock, start
}

// sampleAt takes samples at start plus each offset in seconds, each stamped by the
// clock; all but the last poll finish before the next sample, as they do when the
// command answers in less than a sampling interval.
func sampleAt(rec *Recorder, clock *stepClock, start time.Time, offsets ...float64) {
	for i, s := range offsets {
		now := start.Add(time.Duration(s * float64(time.Second)))
		clock.set(now)
		rec.Sample(now, 0.5)
		if i < len(offsets)-1 {
			rec.meters[0].cmd.wg.Wait()
		}
	}
}

// TestRecorderMeterCommandShortRun: a 2 s run sampled as the run lifecycle samples it,
// at the monitor's first sample, the window's start mark 2 ms later, two ticks 1 s
// apart, the window's end mark and the monitor's last sample. With the check's poll
// 3 ms before the first sample, four of the six spacings between readings are a few
// milliseconds: their median, 5 ms, would make each second between ticks a gap, and
// the meter would cover 1% of the run. The meter's cadence is the longest time
// between two successful polls in a row, 1 s, so it covers the whole run and is the
// host's energy in the total: 123.4 W x 2.01 s = 248.034 J.
func TestRecorderMeterCommandShortRun(t *testing.T) {
	rec, clock, start := commandRecorder(t, "echo 123.4")
	sampleAt(rec, clock, start, 0, 0.002, 1.002, 2.002, 2.006, 2.01)
	sec, err := rec.Finish(Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	m := figure(t, sec, "run", "meter")
	if !m.InTotal || !near(m.CoveredS, 2.01) || !near(m.Joules, 248.034) || m.Note != "" {
		t.Errorf("meter %+v, want 248.034 J over the whole 2.01 s, in the total", m)
	}
	if total := figure(t, sec, "run", "total"); !near(total.Joules, 248.034) || !total.Measured {
		t.Errorf("total %+v, want the meter's 248.034 J", total)
	}
}

// TestRecorderMeterCommandLastPoll: Finish waits for the poll the last sample started
// rather than cutting it short: it is the meter's reading at the end of the run. The
// command takes 200 ms; the samples are 1 s apart, and Finish comes at once after the
// last: 3 readings (the check's, the first sample's, the last sample's).
func TestRecorderMeterCommandLastPoll(t *testing.T) {
	rec, clock, start := commandRecorder(t, "sleep 0.2; echo 80")
	sampleAt(rec, clock, start, 0, 1)
	sec, err := rec.Finish(Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	rs, _, _ := rec.meters[0].cmd.result()
	if len(rs) != 3 || !rs[2].Time.Equal(start.Add(time.Second)) {
		t.Fatalf("readings %v: want the last sample's poll among them", rs)
	}
	if m := figure(t, sec, "run", "meter"); !m.InTotal || !near(m.Joules, 80) {
		t.Errorf("meter %+v, want 80 W over the 1 s run", m)
	}
}
