package tpch

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

// progress shows how far a phase has got: a redrawn bar with an ETA on a terminal,
// a line every few seconds on anything else, nothing when the writer is nil. Workers
// only add to an atomic counter; one goroutine draws.
type progress struct {
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

// isTerminal reports whether w is a character device, without a terminal package.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// startProgress begins a phase of total units. It returns a usable progress even
// when w is nil, so callers never check.
func startProgress(w io.Writer, label, unit string, total int64) *progress {
	p := &progress{w: w, label: label, unit: unit, total: total, begun: time.Now(), stop: make(chan struct{})}
	if w == nil {
		return p
	}
	p.tty = isTerminal(w)
	p.interval = 10 * time.Second
	if p.tty {
		p.interval = 250 * time.Millisecond
	}
	p.wg.Add(1)
	go p.loop()
	return p
}

func (p *progress) add(n int64) { p.done.Add(n) }

func (p *progress) loop() {
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

// finish draws the final state and ends the line.
func (p *progress) finish() {
	if p.w == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	p.draw(true)
}

func (p *progress) draw(final bool) {
	done := p.done.Load()
	elapsed := time.Since(p.begun)
	line := p.render(done, elapsed, final)
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
func (p *progress) render(done int64, elapsed time.Duration, final bool) string {
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

// lineCounter counts the rows written through it ('\n'-terminated lines), on the
// way from the generator to the engine, into the table's count and the progress.
type lineCounter struct {
	w     io.Writer
	lines *atomic.Int64
	p     *progress
}

func (c lineCounter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	lines := int64(countLines(b[:n]))
	c.lines.Add(lines)
	c.p.add(lines)
	return n, err
}

func countLines(b []byte) int { return bytes.Count(b, newline) }

var newline = []byte{'\n'}
