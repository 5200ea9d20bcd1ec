package verdict

import (
	"strings"
	"testing"
)

// TestApplication: 8 users, 3.6 of them waiting for the connection pool on average and
// 1.2 for a critical section: (3.6 + 1.2) / 8 = 60% of their time, 45% and 15% apiece.
// The device beside it is saturated and explains more of the users' time than the
// application leaves it (its mean queue of 6.4 over 8 users: 80%), but the
// application's finding comes first: what it held back never reached the device.
func TestApplication(t *testing.T) {
	gates := []AppWait{{Name: "pool", Kind: "pool", Holders: 4, Waiting: 3.6}, {Name: "policy", Kind: "critical", Holders: 1, Waiting: 1.2}}
	w := newWindow(8).emu("data", 97, 6.4, 6)
	v := Judge(nil, w.ws, Facts{Users: 8, AppWaits: gates})
	f := v.Finding(Application)
	if v.Primary != Application || f == nil || !f.Fired || f.ExplainsPct != 60 {
		t.Fatalf("primary %s, application %+v", v.Primary, f)
	}
	if d := v.Finding(Device); d == nil || !d.Fired || d.ExplainsPct != 80 {
		t.Errorf("device %+v, want fired explaining 80%%", d)
	}
	if len(f.Waits) != 2 || f.Waits[0] != (Wait{"the connection pool (4 connections)", 45}) || f.Waits[1] != (Wait{"critical section policy (1 holder)", 15}) {
		t.Errorf("waits %+v", f.Waits)
	}
	want := "application-bound: users waited for the application's gates 60% of their time: the connection pool (4 connections) 45%, critical section policy (1 holder) 15%"
	if v.Headline != want {
		t.Errorf("headline %q\nwant      %q", v.Headline, want)
	}
	if v.TimePct["app"] != 60 {
		t.Errorf("time %v, want app 60", v.TimePct)
	}
	for _, tc := range []struct {
		name    string
		waiting float64
		fired   bool
	}{
		{"half the users", 4, true},
		{"just under half", 3.99, false},
		{"none", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWindow(8).emu("data", 97, 6.4, 6)
			v := Judge(nil, w.ws, Facts{Users: 8, AppWaits: []AppWait{{Name: "pool", Kind: "pool", Holders: 2, Waiting: tc.waiting}}})
			f := v.Finding(Application)
			if f.Fired != tc.fired {
				t.Fatalf("finding %+v, want fired %v", f, tc.fired)
			}
			if tc.fired && !strings.HasPrefix(v.Headline, "application-bound: users waited for the connection pool (2 connections) 50% of their time") {
				t.Errorf("headline %q", v.Headline)
			}
			if !tc.fired && v.Primary != Device {
				t.Errorf("primary %s, want the device", v.Primary)
			}
		})
	}
	// A workload without gates is not judged by this rule.
	if f := Judge(nil, newWindow(8).emu("data", 97, 6.4, 6).ws, Facts{Users: 8}).Finding(Application); f != nil {
		t.Errorf("application finding %+v without gates", f)
	}
}
