package device

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// sizes records the size of every read a model passes to the model inside it.
type sizes struct {
	Model
	reads []int64
}

func (s *sizes) Submit(at time.Duration, r Request) time.Duration {
	if r.Op == OpRead {
		s.reads = append(s.reads, r.Size)
	}
	return s.Model.Submit(at, r)
}

// recorded builds a page cache whose reads from its inner device are recorded.
func recorded(t *testing.T, r *Registry, spec string) (*PageCache, *sizes) {
	t.Helper()
	m := build(t, r, spec).(*PageCache)
	rec := &sizes{Model: m.inner}
	m.inner = rec
	return m, rec
}

func TestReadaheadWindows(t *testing.T) {
	for _, tt := range []struct{ req, want int64 }{
		// 32 pages (128 KiB of 4 KiB) at most: 1 rounds to 1, at most 32/32: x4; 2 and
		// 3 (rounded to 4) at most 32/4: x2; 8 likewise; 9 rounds to 16, above 32/4: 32.
		{1, 4}, {2, 4}, {3, 8}, {8, 16}, {9, 32}, {40, 32},
	} {
		if got := firstWindow(tt.req, 32); got != tt.want {
			t.Errorf("first window of a %d-page read: %d pages, want %d", tt.req, got, tt.want)
		}
	}
	for _, tt := range []struct{ size, want int64 }{
		// below 32/16 = 2: x4; up to 32/2 = 16: x2; then 32.
		{1, 4}, {2, 4}, {4, 8}, {16, 32}, {17, 32}, {32, 32},
	} {
		if got := nextWindow(tt.size, 32); got != tt.want {
			t.Errorf("window after %d pages: %d pages, want %d", tt.size, got, tt.want)
		}
	}
}

func TestReadahead(t *testing.T) {
	r := testRegistry(t)
	const kib = 1024
	t.Run("a sequential stream reads in growing windows", func(t *testing.T) {
		// 4 KiB reads of pages 0-127, readahead=128KiB (32 pages), a millisecond apart so
		// that every read is delivered before the next comes:
		//   page 0: the file's first read, random to the model: 4 KiB;
		//   page 1: continues it: window 1-4 (1 page rounded to 1, x4), marker 2 (the
		//     first of the 3 pages past the request), one 16 KiB read with page 1;
		//   page 2 (marker): window 5-12 (4 x2, as 4 is not below 32/16), 32 KiB;
		//   page 5: window 13-28 (16 pages), 64 KiB; page 13: 29-60 (32), 128 KiB;
		//   pages 29, 61, 93, 125: 61-92, 93-124, 125-156, 157-188, 128 KiB each.
		// Read ahead: 3 + 8 + 16 + 5 x 32 = 187 pages; the other 126 reads hit.
		m, rec := recorded(t, r, "pagecache(tssd,size=16MiB,readahead=128KiB)")
		for p := int64(0); p < 128; p++ {
			m.Submit(time.Duration(p)*ms, rd(p*4096, 4096))
		}
		want := []int64{4 * kib, 16 * kib, 32 * kib, 64 * kib, 128 * kib, 128 * kib, 128 * kib, 128 * kib, 128 * kib}
		if !slices.Equal(rec.reads, want) {
			t.Errorf("reads from the device %v, want %v", rec.reads, want)
		}
		if st := m.Stats(); st.Hits != 126 || st.Misses != 2 || st.ReadaheadPages != 187 {
			t.Errorf("hits %d misses %d read ahead %d, want 126, 2 and 187", st.Hits, st.Misses, st.ReadaheadPages)
		}
		none, rec0 := recorded(t, r, "pagecache(tssd,size=16MiB)")
		for p := int64(0); p < 128; p++ {
			none.Submit(time.Duration(p)*ms, rd(p*4096, 4096))
		}
		if len(rec0.reads) != 128 || none.Stats().ReadaheadPages != 0 {
			t.Errorf("without readahead: %d reads from the device, %d pages read ahead; want 128 and 0", len(rec0.reads), none.Stats().ReadaheadPages)
		}
	})
	t.Run("128 KiB reads keep a window ahead", func(t *testing.T) {
		// Pages 0-31: random (the first read). 32-63: continues it; the request is the
		// whole 32-page window, so the next goes with it: 32 pages with the marker at 48
		// (half of 32), inside the request, which so sends 64-95 after its own read.
		// 64-95 hit; its marker 64 sends 96-127; 96-127 likewise sends 128-159.
		m, rec := recorded(t, r, "pagecache(tssd,size=16MiB,readahead=128KiB)")
		for i := int64(0); i < 4; i++ {
			m.Submit(time.Duration(i)*ms, rd(i*128*kib, 128*kib))
		}
		if want := []int64{128 * kib, 128 * kib, 128 * kib, 128 * kib, 128 * kib}; !slices.Equal(rec.reads, want) {
			t.Errorf("reads from the device %v, want %v", rec.reads, want)
		}
		if st := m.Stats(); st.Hits != 64 || st.Misses != 64 || st.ReadaheadPages != 96 {
			t.Errorf("hits %d misses %d read ahead %d, want 64, 64 and 96", st.Hits, st.Misses, st.ReadaheadPages)
		}
	})
	t.Run("a random stream reads as without readahead", func(t *testing.T) {
		// No read continues the one before it (page 7 again is a hit; 50 does not follow it).
		pages := []int64{40, 7, 90, 23, 61, 7, 50, 15, 3, 70}
		on, recOn := recorded(t, r, "pagecache(tssd,size=16MiB,readahead=128KiB)")
		off, recOff := recorded(t, r, "pagecache(tssd,size=16MiB)")
		for i, p := range pages {
			at := time.Duration(i) * 100 * us // some reads queue behind others
			if a, b := on.Submit(at, rd(p*4096, 4096)), off.Submit(at, rd(p*4096, 4096)); a != b {
				t.Errorf("read %d (page %d): completion %v with readahead, %v without", i, p, a, b)
			}
		}
		if !slices.Equal(recOn.reads, recOff.reads) || on.Stats() != off.Stats() {
			t.Errorf("with readahead: reads %v, %+v; without: %v, %+v", recOn.reads, on.Stats(), recOff.reads, off.Stats())
		}
	})
	t.Run("a window read ahead delays only the reads that come before it", func(t *testing.T) {
		// tslow reads n pages in 1010n us (one die) then sends them in 10n: 1020n us.
		// Copy 4.096 GB/s: a page in 1 us.
		m := build(t, r, "pagecache(tslow,size=1MiB,copy=4.096GB/s,readahead=128KiB)")
		runSteps(t, m, []step{
			{0, rd(0, 4096), 1021 * us}, // random: one page, 1020 + 1
			// window 1-4 in one read: 2000 + 4 x 1020 = 6080, + 1.
			{2 * ms, rd(4096, 4096), 6081 * us},
			// The marker (page 2): window 5-12 goes at 7000, delivered at 7000 + 8 x
			// 1020 = 15160; this read does not wait for it: 7000 + 1.
			{7 * ms, rd(2*4096, 4096), 7001 * us},
			{7500 * us, rd(3*4096, 4096), 7501 * us}, // delivered at 6080
			// Page 5 is still on its way: the read waits for it, 15160 + 1.
			{8 * ms, rd(5*4096, 4096), 15161 * us},
			// Page 6 came with it.
			{16 * ms, rd(6*4096, 4096), 16001 * us},
		})
		// 4 KiB, 16 KiB, 32 KiB, and the 64 KiB window page 5 (the marker) sent.
		if st := m.(*PageCache).inner.Stats(); st.Reads != 4 || st.ReadBytes != 116*kib {
			t.Errorf("device reads %d of %d bytes, want 4 of %d", st.Reads, st.ReadBytes, 116*kib)
		}
	})
	t.Run("O_DIRECT reads and buffered writes read nothing ahead", func(t *testing.T) {
		m, rec := recorded(t, r, "pagecache(tssd,size=16MiB,readahead=128KiB)")
		for p := int64(0); p < 8; p++ {
			m.Submit(time.Duration(p)*ms, Request{Op: OpRead, Offset: p * 4096, Size: 4096, File: 1, Direct: true})
		}
		for p := int64(100); p < 108; p++ {
			m.Submit(10*ms, wr(p*4096+100, 512)) // each reads its page first
		}
		if len(rec.reads) != 16 || m.Stats().ReadaheadPages != 0 {
			t.Errorf("reads from the device %v, %d pages read ahead; want 16 of 4096 and none", rec.reads, m.Stats().ReadaheadPages)
		}
	})
	t.Run("readahead=0 times requests as before", func(t *testing.T) {
		// pagecache(tslow, 4 pages); times as in the readahead subtest above.
		steps := []step{
			{0, rd(0, 4096), 1021 * us},
			{2 * ms, rd(4096, 4096), 3021 * us}, // sequential, but one page: 2000 + 1020 + 1
			{4 * ms, rd(0, 8192), 4002 * us},    // hits: 2 us of copy
			{5 * ms, wr(8192, 4096), 5001 * us}, // a whole page: no read
			// Pages 3 and 4, one 8 KiB read: 6000 + 2040, + 2; page 0 is evicted for 4.
			{6 * ms, rd(3*4096, 8192), 8042 * us},
			// Page 0 again: tslow's die is busy until 6000 + 2020 = 8020, reads
			// 8020-9030, sends 9030-9040; + 1.
			{7 * ms, rd(0, 4096), 9041 * us},
			// Page 2 is cached (dirty): a partial write copies 512 B: 125 ns.
			{10 * ms, wr(2*4096+100, 512), 10*ms + 125},
		}
		for _, spec := range []string{"pagecache(tslow,size=16KiB,copy=4.096GB/s)", "pagecache(tslow,size=16KiB,copy=4.096GB/s,readahead=0)"} {
			t.Run(spec, func(t *testing.T) { runSteps(t, build(t, r, spec), steps) })
		}
		// The same requests with readahead differ from the second on: window 1-4 is
		// read with page 1, 2000 + 4 x 1020 + 1.
		m := build(t, r, "pagecache(tslow,size=16KiB,copy=4.096GB/s,readahead=128KiB)")
		runSteps(t, m, steps[:1])
		if got := m.Submit(steps[1].at, steps[1].req); got != 6081*us {
			t.Errorf("with readahead the second read completes at %v, want 6.081ms", got)
		}
	})
	t.Run("bad values", func(t *testing.T) {
		for _, tt := range []struct{ spec, want string }{
			{"pagecache(tssd,size=1GiB,readahead=-4KiB)", "field readahead_kib must be >= 0, got -4"},
			{"pagecache(tssd,size=1GiB,readahead=fast)", "readahead"},
		} {
			_, err := r.Build(tt.spec)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: error %v, want one with %q", tt.spec, err, tt.want)
			}
		}
	})
	t.Run("memory stays bounded", func(t *testing.T) {
		m := build(t, r, "pagecache(tssd,size=16MiB,readahead=128KiB)").(*PageCache)
		for f := uint64(1); f <= 2*maxReadaheadFiles; f++ {
			m.Submit(0, Request{Op: OpRead, Offset: int64(f) * 4096, Size: 4096, File: f})
		}
		if got := m.ra.len(); got != maxReadaheadFiles {
			t.Errorf("readahead state of %d files, want %d", got, maxReadaheadFiles)
		}
		// A file read in order, each read when the one before returned, keeps at most
		// the window it waits for and the one its marker sent.
		var at time.Duration
		for p := int64(0); p < 4096; p++ {
			at = m.Submit(at, Request{Op: OpRead, Offset: (1<<20 + p) * 4096, Size: 4096, File: 99999})
			st, _ := m.ra.peek(99999)
			if n := len((*st).inflight); n > 2 {
				t.Fatalf("read %d: %d reads in flight kept for one file, want at most 2", p, n)
			}
		}
	})
}
