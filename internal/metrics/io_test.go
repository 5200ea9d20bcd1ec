package metrics

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestNewIORates(t *testing.T) {
	t0 := time.Unix(100, 0)
	a := IOSample{At: t0, Engine: &IOCount{Read: 1_000_000, Written: 5_000_000},
		Devices: []DeviceIO{{Name: "data", Read: 0, Written: 0, Busy: 0}, {Name: "gone", Read: 7}}}
	b := IOSample{At: t0.Add(2 * time.Second), Engine: &IOCount{Read: 5_000_000, Written: 11_000_000},
		Devices: []DeviceIO{{Name: "data", Read: 3_000_000, Written: 1_000_000, Busy: 500 * time.Millisecond},
			{Name: "new", Read: 9}}}
	r := NewIORates(a, b)
	if r == nil || r.Engine == nil {
		t.Fatalf("rates = %+v", r)
	}
	// 4 MB read and 6 MB written in 2 s; the device was busy 0.5 s of 2.
	if *r.Engine != (IORate{ReadMBs: 2, WriteMBs: 3}) {
		t.Errorf("engine rates %+v, want read 2, write 3 MB/s", *r.Engine)
	}
	if len(r.Devices) != 1 || r.Devices[0] != (DeviceRate{Name: "data", IORate: IORate{ReadMBs: 1.5, WriteMBs: 0.5}, Util: 0.25}) {
		t.Errorf("device rates %+v, want data only: 1.5 / 0.5 MB/s, util 0.25", r.Devices)
	}
	if got, want := r.Text(), "io MB/s r: 2.00 w: 3.00 | data r/w MB/s: 1.50/0.50 util 25%"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}

	// A counter that went back (a statistics reset) gives 0, not a negative rate.
	back := NewIORates(b, IOSample{At: t0.Add(3 * time.Second), Engine: &IOCount{Read: 0, Written: 12_000_000}})
	if back == nil || *back.Engine != (IORate{ReadMBs: 0, WriteMBs: 1}) {
		t.Errorf("after a reset: %+v", back)
	}
	if NewIORates(b, a) != nil {
		t.Error("samples out of order give rates")
	}
	if NewIORates(IOSample{At: t0}, IOSample{At: t0.Add(time.Second)}) != nil {
		t.Error("samples without counters give rates")
	}
	var none *IORates
	if none.Text() != "" {
		t.Error("nil rates have text")
	}
}

func ExampleIORates_Text() {
	start := time.Unix(0, 0)
	r := NewRegistry([]string{"x"}, start)
	r.NewHandle().Record("x", time.Millisecond, Counts{Queries: 1})
	iv, _ := r.Tick(start.Add(time.Second), start)
	rec := NewIntervalRecord(iv, "measure", 1)
	rec.IO = NewIORates(IOSample{At: start, Engine: &IOCount{}},
		IOSample{At: start.Add(time.Second), Engine: &IOCount{Read: 250_000, Written: 1_500_000}})
	fmt.Println(IntervalLine(rec))
	// Output:
	// [    1s ] users: 1 tps: 1.00 qps: 1.00 err/s: 0.00 lat (ms) p50: 1.00 p95: 1.00 p99: 1.00 max: 1.00 | io MB/s r: 0.25 w: 1.50
}

func TestWriteIOLine(t *testing.T) {
	var b strings.Builder
	WriteIOLine(&b, &IORates{Engine: &IORate{ReadMBs: 1, WriteMBs: 2.5}}, "")
	WriteIOLine(&b, nil, "postgres: I/O counters: timeout")
	WriteIOLine(&b, nil, "")
	want := "over the window: io MB/s r: 1.00 w: 2.50\nI/O counters not read: postgres: I/O counters: timeout\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
