package device

import "time"

// Readahead of the page cache model, after Linux's on-demand readahead (mm/readahead.c;
// docs/devices.md, "Caches and tiers"). Each file has a window: size pages from start,
// of which the last async pages were read ahead of the reader. The first of those is the
// marker: when a read reaches it, the next window goes to the device in the background,
// so that a file read in order finds its pages in the cache before it asks for them.
//
//   - A read miss that continues the file's previous read (on its last page or the one
//     after), or a read larger than the largest window, starts a window at the missing
//     page: the request's pages rounded up to a power of two, four times that if it is
//     at most 1/32 of the largest window, twice if at most 1/4, else the largest window.
//     The window's pages past the request are its async part.
//   - A read miss on the window's marker or just past the window moves the window on,
//     as reaching the marker does.
//   - Reaching the marker moves the window on: the next window starts where the last
//     ended, four times its size while that is below 1/16 of the largest window, then
//     twice, up to the largest; all of it async, so its first page is the next marker.
//   - Any other miss is a random read: only the requested pages, as without readahead.
//
// A miss's window goes to the device with the missing pages, contiguous pages in one
// request, and the reader waits for the request that carries its pages. A window that
// the marker sends does not delay the read that reached the marker; a later read that
// finds one of its pages before the device delivered it waits until then.
//
// Unlike Linux the model sees device offsets, not file offsets, so it neither starts a
// window at a file's first page nor stops one at the file's end (the pages past a
// file's end are whatever the device holds next), and it does not look in the cache for
// the earlier pages of a sequential stream when two streams interleave in one file
// (Linux's context readahead): such reads are random to it.

// maxReadaheadFiles bounds the files whose readahead state the cache keeps: beyond it
// the state of the file read least recently goes, as Linux's goes when a file is closed.
const maxReadaheadFiles = 1024

// raState is one file's readahead state (Linux's struct file_ra_state).
type raState struct {
	start, size, async int64 // the window: size pages from start; the last async read ahead
	marker             int64 // the page whose read sends the next window; -1: none
	prev               int64 // the last page of the file's previous read; -1: none
	// inflight are the reads that carried read-ahead pages and were not delivered when
	// the file was last read: a read of their pages waits for them.
	inflight []raRead
}

// raRead is a read the cache sent to the device: n pages from first, delivered at done.
type raRead struct {
	first, n int64
	done     time.Duration
}

// raRun collects contiguous pages into one read, as pageRun, noting whether it carries
// pages a reader asked for (the reader waits for it) or read ahead (later readers may).
type raRun struct {
	pageRun
	wait, ahead bool
}

// readAhead serves a buffered read of r.Size > 0 bytes with readahead on and returns
// when its pages are in the cache (the copy to the reader not included).
func (c *PageCache) readAhead(at time.Duration, r Request) time.Duration {
	ra := c.readaheadState(at, r.File)
	first, last := r.Offset/c.page, (r.Offset+r.Size-1)/c.page
	done := at
	run := raRun{pageRun: pageRun{op: OpRead, file: r.File}}
	decided, windowed := false, false
	reached := int64(-1) // the marker, if the read reached it
	for p := first; p <= last; p++ {
		if _, ok := c.cache.get(p); ok {
			c.st.Hits++
			done = max(done, ra.ready(p))
		} else {
			c.st.Misses++
			if !decided {
				decided = true
				windowed = c.missWindow(ra, p, last-p+1)
			}
			done = max(done, c.readPage(at, ra, &run, p, true))
		}
		if p == ra.marker {
			reached = p
		}
	}
	if windowed {
		done = max(done, c.readWindow(at, ra, &run, max(last+1, ra.start)))
	}
	done = max(done, c.sendRead(at, ra, &run))
	// The next window goes after this read's own requests, which the device serves
	// first. A miss may have moved the window since the read passed the marker: then
	// the marker is another page and nothing more goes.
	if reached >= 0 && reached == ra.marker {
		ra.start += ra.size
		ra.size = nextWindow(ra.size, c.raMax)
		ra.async = ra.size
		ra.marker = ra.start
		ahead := raRun{pageRun: pageRun{op: OpRead, file: r.File}}
		c.readWindow(at, ra, &ahead, ra.start)
		c.sendRead(at, ra, &ahead)
	}
	ra.prev = last
	return done
}

// missWindow sets the file's window for a read miss at page p of a request of req pages
// from p on, and says whether there is one: false for a random read.
func (c *PageCache) missWindow(ra *raState, p, req int64) bool {
	switch {
	case ra.size > 0 && (p == ra.start+ra.size-ra.async || p == ra.start+ra.size):
		ra.start += ra.size
		ra.size = nextWindow(ra.size, c.raMax)
		ra.async = ra.size
	case req > c.raMax || ra.prev >= 0 && (p == ra.prev || p == ra.prev+1):
		ra.start, ra.size = p, firstWindow(req, c.raMax)
		ra.async = ra.size - req
		if ra.async <= 0 {
			ra.async = ra.size
		}
	default:
		return false
	}
	if p == ra.start && ra.size == ra.async {
		// The read itself would reach the marker: the next window goes with this one.
		if more := nextWindow(ra.size, c.raMax); ra.size+more <= c.raMax {
			ra.size, ra.async = ra.size+more, more
		} else {
			ra.size, ra.async = c.raMax, c.raMax/2
		}
	}
	ra.marker = -1
	if ra.async > 0 {
		ra.marker = ra.start + ra.size - ra.async
	}
	return true
}

// firstWindow is the size of a window that a read of req pages starts.
func firstWindow(req, most int64) int64 {
	n := int64(1)
	for n < req {
		n <<= 1
	}
	switch {
	case n <= most/32:
		return 4 * n
	case n <= most/4:
		return 2 * n
	}
	return most
}

// nextWindow is the size of the window after one of size pages.
func nextWindow(size, most int64) int64 {
	switch {
	case size < most/16:
		return 4 * size
	case size <= most/2:
		return 2 * size
	}
	return most
}

// readWindow adds the window's pages from page from on that the cache lacks to run, as
// read ahead, and returns the completion of any request sent that a reader waits for.
func (c *PageCache) readWindow(at time.Duration, ra *raState, run *raRun, from int64) time.Duration {
	var done time.Duration
	for q := from; q < ra.start+ra.size; q++ {
		if _, ok := c.cache.peek(q); !ok {
			c.st.ReadaheadPages++
			done = max(done, c.readPage(at, ra, run, q, false))
		}
	}
	return done
}

// readPage adds page p to run, sending the run so far if p does not continue it, and
// puts p in the cache (evicting first). It returns the completion of what was sent if
// a reader waits for it (0 otherwise).
func (c *PageCache) readPage(at time.Duration, ra *raState, run *raRun, p int64, asked bool) time.Duration {
	var done time.Duration
	if run.n > 0 && p != run.first+run.n {
		done = c.sendRead(at, ra, run)
	}
	if run.n == 0 {
		run.first, run.wait, run.ahead = p, false, false
	}
	run.n++
	run.wait = run.wait || asked
	run.ahead = run.ahead || !asked
	c.evict(at, c.pages-1)
	c.cache.put(p, pageState{file: run.file})
	return done
}

// sendRead sends the run, if any, remembers it while in flight if it read ahead, and
// returns its completion if a reader waits for it (0 otherwise).
func (c *PageCache) sendRead(at time.Duration, ra *raState, run *raRun) time.Duration {
	if run.n == 0 {
		return 0
	}
	first, n := run.first, run.n
	done := run.flush(c, at)
	if run.ahead {
		ra.inflight = append(ra.inflight, raRead{first: first, n: n, done: done})
	}
	if c.watch != nil {
		for p := first; p < first+n; p++ {
			c.watch.In(p, done)
		}
	}
	if !run.wait {
		return 0
	}
	return done
}

// readaheadState is the file's readahead state, without the reads delivered by at.
func (c *PageCache) readaheadState(at time.Duration, file uint64) *raState {
	key := int64(file) // the LRU's keys are int64; the conversion is one to one
	if st, ok := c.ra.get(key); ok {
		ra := *st
		keep := ra.inflight[:0]
		for _, rd := range ra.inflight {
			if rd.done > at {
				keep = append(keep, rd)
			}
		}
		ra.inflight = keep
		return ra
	}
	for c.ra.len() >= maxReadaheadFiles {
		k, _, _ := c.ra.oldest()
		c.ra.remove(k)
	}
	ra := &raState{marker: -1, prev: -1}
	c.ra.put(key, ra)
	return ra
}

// ready is when page p, read ahead, is delivered: 0 if it is not in flight.
func (ra *raState) ready(p int64) time.Duration {
	var t time.Duration
	for _, rd := range ra.inflight {
		if rd.first <= p && p < rd.first+rd.n {
			t = max(t, rd.done)
		}
	}
	return t
}
