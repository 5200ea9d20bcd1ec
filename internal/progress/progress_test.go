package progress

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRender(t *testing.T) {
	p := &Bar{label: "load", unit: "rows", total: 1000, tty: true}
	got := p.render(250, 10*time.Second, false)
	// 250 of 1000 in 10 s: 750 more at the same rate take 30 s.
	want := "load       [=======                       ]  25%  250/1000 rows  10s  ETA 30s"
	if got != want {
		t.Errorf("render:\n got %q\nwant %q", got, want)
	}
	p.tty = false
	if got := p.render(1000, 40*time.Second, true); got != "load       100%  1000/1000 rows  40s" {
		t.Errorf("final render: %q", got)
	}
}

func TestQuietBar(t *testing.T) {
	quiet := Start(nil, "x", "y", 1)
	quiet.Add(1)
	quiet.Finish() // must not block or draw
}

func TestPlainOutputAndLineCounter(t *testing.T) {
	var log, sink bytes.Buffer
	bar := Start(&log, "gen", "rows", 3)
	var lines atomic.Int64
	w := LineCounter{W: &sink, Lines: &lines, Bar: bar}
	if _, err := w.Write([]byte("1|a|\n2|b|\n3|")); err != nil {
		t.Fatal(err)
	}
	bar.Finish()
	if lines.Load() != 2 || sink.String() != "1|a|\n2|b|\n3|" {
		t.Errorf("counted %d lines, passed %q", lines.Load(), sink.String())
	}
	// Not a terminal: no bar, no carriage returns, one final line.
	if got := log.String(); !strings.HasPrefix(got, "gen        ") || strings.Contains(got, "\r") || !strings.Contains(got, "2/3 rows") {
		t.Errorf("plain progress output %q", got)
	}
}
