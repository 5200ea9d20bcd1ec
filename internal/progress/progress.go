// Package progress draws how far a long phase has got: a redrawn bar with an ETA on a
// terminal, a plain line every few seconds on anything else (a log file, CI), nothing
// when there is no writer. Workers only add to an atomic counter; one goroutine draws,
// so progress costs the measured work nothing but an atomic add.
package progress

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Bar is one phase's progress. The zero value is not usable; call Start.
type Bar struct {
	w        io.Writer
	tty      bool
	interval time.Duration

	label string
	unit  string
	total int64
	done  atomic.Int64
	begun time.Time

	stop chan struct{}
	wg   sync.WaitGroup
}

// IsTerminal reports whether w is a character device (a terminal), without a
// terminal package.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Start begins a phase of total units (rows, queries, steps...). It returns a usable
// Bar even when w is nil, so callers never check.
func Start(w io.Writer, label, unit string, total int64) *Bar {
	p := &Bar{w: w, label: label, unit: unit, total: total, begun: time.Now(), stop: make(chan struct{})}
	if w == nil {
		return p
	}
	p.tty = IsTerminal(w)
	p.interval = 10 * time.Second
	if p.tty {
		p.interval = 250 * time.Millisecond
	}
	p.wg.Add(1)
	go p.loop()
	return p
}

// Add records n more units done.
func (p *Bar) Add(n int64) { p.done.Add(n) }

func (p *Bar) loop() {
	defer p.wg.Done()
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.draw(false)
		}
	}
}

// Finish draws the final state and ends the line.
func (p *Bar) Finish() {
	if p.w == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	p.draw(true)
}

func (p *Bar) draw(final bool) {
	line := p.render(p.done.Load(), time.Since(p.begun), final)
	if p.tty {
		end := ""
		if final {
			end = "\n"
		}
		fmt.Fprintf(p.w, "\r%s\x1b[K%s", line, end)
		return
	}
	fmt.Fprintln(p.w, line)
}

// render formats one progress line; split out so tests can pin it.
func (p *Bar) render(done int64, elapsed time.Duration, final bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s ", p.label)
	frac := 0.0
	if p.total > 0 {
		frac = min(float64(done)/float64(p.total), 1)
	}
	if p.tty {
		const width = 30
		filled := int(frac * width)
		b.WriteString("[" + strings.Repeat("=", filled) + strings.Repeat(" ", width-filled) + "] ")
	}
	fmt.Fprintf(&b, "%3.0f%%  %d/%d %s  %s", frac*100, done, p.total, p.unit, elapsed.Round(time.Second))
	if !final && done > 0 && done < p.total {
		eta := time.Duration(float64(elapsed) * float64(p.total-done) / float64(done))
		fmt.Fprintf(&b, "  ETA %s", eta.Round(time.Second))
	}
	return b.String()
}

// LineCounter passes writes through to W and counts the '\n'-terminated lines (rows in
// dbgen's format) into Lines, when set, and into Bar.
type LineCounter struct {
	W     io.Writer
	Lines *atomic.Int64
	Bar   *Bar
}

func (c LineCounter) Write(b []byte) (int, error) {
	n, err := c.W.Write(b)
	lines := int64(bytes.Count(b[:n], newline))
	if c.Lines != nil {
		c.Lines.Add(lines)
	}
	c.Bar.Add(lines)
	return n, err
}

var newline = []byte{'\n'}
