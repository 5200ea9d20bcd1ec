package device

import (
	"math"
	"testing"
	"time"
)

func TestRAID10(t *testing.T) {
	r := testRegistry(t)
	const spec = "raid10(tssd,devices=4,stripe=4KiB)"
	t.Run("reads go to either mirror", func(t *testing.T) {
		m := build(t, r, spec).(*RAID10)
		// Alone, the second read of page 0 would wait for die 0 (140 us, see
		// ssd_test.go); here it goes to the other mirror and also ends at 80.
		runSteps(t, m, []step{
			{0, rd(0, 4096), 80 * us},
			{0, rd(0, 4096), 80 * us},
		})
		for i, want := range []int64{1, 1, 0, 0} {
			if got := m.Members()[i].Stats().Reads; got != want {
				t.Errorf("member %d reads %d, want %d", i, got, want)
			}
		}
	})
	t.Run("writes go to both mirrors, stripes spread", func(t *testing.T) {
		m := build(t, r, spec).(*RAID10)
		// 4K at 0: pair 0, both members: 230 us each (ssd_test.go).
		runSteps(t, m, []step{{0, wr(0, 4096), 230 * us}})
		for i, want := range []int64{1, 1, 0, 0} {
			if got := m.Members()[i].Stats().Writes; got != want {
				t.Errorf("after 4K: member %d writes %d, want %d", i, got, want)
			}
		}
		// 8K at 8K: chunk 2 -> pair 0 row 1, chunk 3 -> pair 1 row 1.
		m.Submit(ms, wr(8192, 8192))
		for i, want := range []int64{2, 2, 1, 1} {
			if got := m.Members()[i].Stats().Writes; got != want {
				t.Errorf("after 8K: member %d writes %d, want %d", i, got, want)
			}
		}
		if got := m.Capacity(); got != 2e9 {
			t.Errorf("capacity %d, want 2 x 1 GB", got)
		}
	})
}

func TestSAN(t *testing.T) {
	r := testRegistry(t)
	// Link 409.6 MB/s (4K in 10 us), controller 100 us, switch 1 us.
	m := build(t, r, "san(tssd,link=409.6MB/s,controller=100us,switch=1us)")
	runSteps(t, m, []step{
		// Read: inner at 0 + 1 + 100 = 101: 101-111-171-181; link 181-191; + 1 = 192
		// (80 us of tssd + 2 x 1 switch + 100 controller + 10 link).
		{0, rd(0, 4096), 192 * us},
		// Write: link 1000-1010; inner at 1111: interface -1121, controller -1131,
		// program -1341; + 1 = 1342.
		{1000 * us, wr(0, 4096), 1342 * us},
	})
	if got, err := r.Resolve("san(tssd,link=8gfc)"); err != nil || got.Num("link_mbps") != 800 {
		t.Errorf("link=8gfc: %v MB/s, %v; want 800", got.Num("link_mbps"), err)
	}
}

func TestEnergyAndBusyTime(t *testing.T) {
	r := testRegistry(t)
	m := build(t, r, "tssd") // 1 W idle, 3 W active
	// The QD4 reads of ssd_test.go: busy [0,80] u [10,90] u [20,100] u [30,110] = 110 us.
	for i := int64(0); i < 4; i++ {
		m.Submit(0, rd(i*4096, 4096))
	}
	if got := m.Stats().Busy; got != 110*us {
		t.Errorf("busy %v, want 110us (union, not the 320us sum)", got)
	}
	// E = 1 W x 1 s + (3 - 1) W x 110 us = 1.00022 J.
	if got := Energy(m, time.Second); math.Abs(got-1.00022) > 1e-9 {
		t.Errorf("energy %v J, want 1.00022", got)
	}
	// Composites add their members: raid10 of 2 tssd idle for 1 s = 2 J.
	if got := Energy(build(t, r, "raid10(tssd,devices=2)"), time.Second); got != 2 {
		t.Errorf("raid10 idle energy %v J, want 2", got)
	}
	// A system figure replaces the members': 100 W for 1 s.
	sys := build(t, r, "san(tssd,idle_w=100,active_w=150,power_scope=system)")
	if got := Energy(sys, time.Second); got != 100 {
		t.Errorf("system energy %v J, want 100", got)
	}
}

// The same request sequence gives the same completions, and a fingerprint catches
// changes to any model.
func TestDeterminism(t *testing.T) {
	r := testRegistry(t)
	const spec = "pagecache(ssd-cache(raid10(hdd-7200,devices=4),ssd=sata-ssd,size=64MiB,mode=writeback),size=16MiB)"
	run := func(spec string) (uint64, Stats) {
		m := build(t, r, spec)
		rng := splitmix64(42)
		var at time.Duration
		h := uint64(14695981039346656037)
		for i := 0; i < 3000; i++ {
			x := rng.next()
			req := Request{Offset: int64(x%(1<<16)) * 8192, Size: 8192, File: x%3 + 1, Direct: x%7 == 0}
			switch x % 10 {
			case 0, 1, 2:
				req.Op = OpWrite
			case 3:
				req.Op = OpFlush
			}
			done := m.Submit(at, req)
			h = (h ^ uint64(done)) * 1099511628211
			at += time.Duration(x % uint64(2*ms))
		}
		return h, m.Stats()
	}
	h1, s1 := run(spec)
	h2, s2 := run(spec)
	if h1 != h2 || s1 != s2 {
		t.Fatalf("two runs differ: %x %+v vs %x %+v", h1, s1, h2, s2)
	}
	// A controller cache in front of an SSD cache: the same too.
	const rc = "raidcache(ssd-cache(raid10(hdd-15k,devices=4),ssd=sata-ssd,size=16MiB),size=4MiB,bbu=off)"
	if a, sa := run(rc); func() bool { b, sb := run(rc); return a != b || sa != sb }() {
		t.Fatalf("two runs of %s differ", rc)
	}
	// Integer time arithmetic and explicit float64 conversions (no fused multiply-add)
	// keep this the same on every platform.
	const fingerprint = 0x54ef4f46c931803b
	if h1 != fingerprint {
		t.Errorf("fingerprint %#x, want %#x: a model changed (update the constant if that was meant)", h1, uint64(fingerprint))
	}
}
