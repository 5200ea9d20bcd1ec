package device

import (
	"strings"
	"testing"
	"time"
)

// recorder passes requests to a model and keeps the writes, in submission order, as
// (first line, lines) of 4 KiB.
type recorder struct {
	Model
	writes [][2]int64
}

func (r *recorder) Submit(at time.Duration, req Request) time.Duration {
	if req.Op == OpWrite {
		r.writes = append(r.writes, [2]int64{req.Offset / 4096, req.Size / 4096})
	}
	return r.Model.Submit(at, req)
}

// raidcache(tslow): 4 KiB lines. tslow (one die, no firmware time) writes 4 KiB in
// 10 us over its interface + 1000 program + 10 channel = 1020 us, and reads 4 KiB in
// 1000 + 10 channel + 10 interface = 1020 us. The controller: 10 us a command, 4 KiB
// over its interface in 10 us (409.6 MB/s).
const rcBase = "raidcache(tslow,size=16KiB,line=4KiB,controller=10us,interface=409.6MB/s,destage_depth=1" // 4 lines

func line(n int64) int64 { return n * 4096 }

func TestRAIDCache(t *testing.T) {
	r := testRegistry(t)
	t.Run("writes are absorbed, reads of dirty lines hit, others go to the device", func(t *testing.T) {
		m := build(t, r, rcBase+",dirty_threshold=0.5)").(*RAIDCache)
		runSteps(t, m, []step{
			{0, wr(0, 4096), 20 * us},                // interface 0-10, controller 10-20
			{100 * us, rd(0, 4096), 120 * us},        // hit: controller 100-110, interface 110-120
			{200 * us, rd(line(5), 4096), 1240 * us}, // miss: device read at 210 ends 1230; interface 1230-1240
		})
		if st := m.Stats(); st.Hits != 1 || st.Misses != 1 {
			t.Errorf("hits %d misses %d, want 1 and 1", st.Hits, st.Misses)
		}
		if st := m.inner.Stats(); st.Reads != 1 || st.Writes != 0 {
			t.Errorf("device reads %d writes %d, want 1 and 0 (1 dirty line is under the threshold of 2)", st.Reads, st.Writes)
		}
	})
	t.Run("a hit is not held behind an earlier miss", func(t *testing.T) {
		m := build(t, r, rcBase+",dirty_threshold=1)")
		runSteps(t, m, []step{
			{0, wr(0, 4096), 20 * us},
			// Miss: the device reads from 110 until 1130 (die 1120, its interface 1130);
			// the controller's interface 1130-1140.
			{100 * us, rd(line(5), 4096), 1140 * us},
			// Hit, submitted later, ready at 210: the interface is free 210-220.
			{200 * us, rd(0, 4096), 220 * us},
		})
	})
	t.Run("above the threshold, destaged in elevator order", func(t *testing.T) {
		p, err := r.Resolve(rcBase + ",dirty_threshold=0.5)") // 2 lines may be dirty
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder{Model: build(t, r, "tslow")}
		m := NewRAIDCache("rc", p, rec)
		runSteps(t, m, []step{
			{0, wr(line(6), 4096), 20 * us},
			{0, wr(line(2), 4096), 30 * us},
			// The third dirty line starts a destage, which does not delay the writer:
			// interface 20-30, controller 30-40.
			{0, wr(line(4), 4096), 40 * us},
		})
		// The sweep sorted {2, 4, 6} and began at line 2. Line 0, dirtied during the
		// sweep, waits for the next one (FSCAN); line 8 is above the cursor but came
		// after the sweep began too. The next sweep starts at the cursor (7): line 8,
		// then wraps to 0 and 1, contiguous, as one request.
		for i, l := range []int64{0, 8, 1, 10} {
			m.Submit(time.Duration(i+1)*5*ms, wr(line(l), 4096))
		}
		want := [][2]int64{{2, 1}, {4, 1}, {6, 1}, {8, 1}, {0, 2}}
		if len(rec.writes) != len(want) {
			t.Fatalf("destage writes %v, want %v", rec.writes, want)
		}
		for i := range want {
			if rec.writes[i] != want[i] {
				t.Fatalf("destage writes %v, want %v", rec.writes, want)
			}
		}
		if got := m.DirtyLines(); got != 1 || !m.Dirty(line(10)) {
			t.Errorf("dirty lines %d (line 10 dirty: %v), want only line 10", got, m.Dirty(line(10)))
		}
		if st := m.Stats(); st.Writebacks != 6 {
			t.Errorf("writebacks %d lines, want 6", st.Writebacks)
		}
	})
	t.Run("a full cache makes the writer wait for a destage", func(t *testing.T) {
		m := build(t, r, rcBase+",dirty_threshold=1)") // no background destaging
		runSteps(t, m, []step{
			{0, wr(line(0), 4096), 20 * us},
			{0, wr(line(2), 4096), 30 * us},
			{0, wr(line(4), 4096), 40 * us},
			{0, wr(line(6), 4096), 50 * us},
			// Full: line 0 (the elevator's first) is destaged from 1000 and ends at 2020;
			// then the interface 2020-2030 and the controller 2030-2040.
			{1000 * us, wr(line(8), 4096), 2040 * us},
		})
	})
	t.Run("reads of lines being destaged hit", func(t *testing.T) {
		m := build(t, r, rcBase+",dirty_threshold=0.5)")
		m.Submit(0, wr(line(0), 4096))
		m.Submit(0, wr(line(2), 4096))
		m.Submit(0, wr(line(4), 4096)) // destages line 0 from 0 to 1020
		runSteps(t, m, []step{
			{500 * us, rd(line(0), 4096), 520 * us},
			// Written by 2000: a miss. Device read at 2010 ends 3030; interface 3030-3040.
			{2000 * us, rd(line(0), 4096), 3040 * us},
		})
	})
	t.Run("flush: protected at once, unprotected after a destage", func(t *testing.T) {
		m := build(t, r, rcBase+",dirty_threshold=1)").(*RAIDCache)
		runSteps(t, m, []step{
			{0, wr(0, 4096), 20 * us},
			{100 * us, fl(0), 110 * us},
		})
		if st := m.inner.Stats(); st.Flushes != 0 || st.Writes != 0 {
			t.Errorf("device flushes %d writes %d, want 0 and 0", st.Flushes, st.Writes)
		}
		u := build(t, r, rcBase+",dirty_threshold=1,bbu=off)").(*RAIDCache)
		runSteps(t, u, []step{
			{0, wr(line(0), 4096), 20 * us},
			{0, wr(line(1), 4096), 30 * us},
			// Lines 0-1 as one 8 KiB write from 100: its interface 100-120, then two
			// programs on the one die 120-1130-2140; the device's flush waits for them
			// (2140); then the controller's 10 us.
			{100 * us, fl(0), 2150 * us},
		})
		if st := u.inner.Stats(); st.Writes != 1 || st.WriteBytes != 8192 || st.Flushes != 1 || u.DirtyLines() != 0 {
			t.Errorf("device writes %d (%d bytes), flushes %d, dirty lines %d; want 1 of 8192, 1, 0",
				st.Writes, st.WriteBytes, st.Flushes, u.DirtyLines())
		}
	})
	t.Run("a write larger than the cache goes through", func(t *testing.T) {
		m := build(t, r, rcBase+")").(*RAIDCache)
		// 20 KiB: interface 0-50, controller 50-60; the device's interface 60-110,
		// then five programs on its one die, 1010 us each: 110 + 5050.
		runSteps(t, m, []step{{0, wr(0, 5*4096), 5160 * us}})
		if m.DirtyLines() != 0 {
			t.Errorf("dirty lines %d, want 0", m.DirtyLines())
		}
	})
	t.Run("destage depth defaults to one per drive", func(t *testing.T) {
		for spec, want := range map[string]int{
			"raidcache(tslow,size=1MiB)":                                    1,
			"raidcache(raid10(tslow,devices=4),size=1MiB)":                  4,
			"raidcache(raid10(tslow,devices=16),size=1MiB)":                 16,
			"raidcache(raid10(tslow,devices=16),size=1MiB,destage_depth=3)": 3,
		} {
			if got := build(t, r, spec).(*RAIDCache).depth; got != want {
				t.Errorf("%s: depth %d, want %d", spec, got, want)
			}
		}
	})
	t.Run("bad fields are named", func(t *testing.T) {
		for spec, want := range map[string]string{
			"raidcache(tslow)": "raidcache needs size_gib",
			"raidcache(tslow,size=1MiB,dirty_threshold=2)": "field dirty_threshold must be <= 1",
			"raidcache(tslow,size=1MiB,bbu=maybe)":         "field bbu must be true or false",
		} {
			_, err := r.Build(spec)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %v, want one saying %q", spec, err, want)
			}
		}
	})
}
