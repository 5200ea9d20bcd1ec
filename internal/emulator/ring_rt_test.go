//go:build linux

package emulator

import (
	"errors"
	"testing"

	"tierbench/internal/emulator/preload"
)

// The consumer is real-time only while the host is contended, tells the clients so,
// and stops asking once the host has refused.
func TestConsumerRealtimeWhileContended(t *testing.T) {
	r, err := preload.Create(t.TempDir(), preload.Config{Devices: []preload.Device{{Dir: t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var rtCalls, normalCalls int
	refuse := false
	oldRT, oldNormal := realtimeThread, normalThread
	t.Cleanup(func() { realtimeThread, normalThread = oldRT, oldNormal })
	realtimeThread = func() error {
		rtCalls++
		if refuse {
			return errors.New("operation not permitted")
		}
		return nil
	}
	normalThread = func() error { normalCalls++; return nil }

	s := &ringServer{ring: r, tune: preload.Tuning{RTConsumer: true}}
	s.realtime(false) // quiet host: stays normal
	if rtCalls != 0 || s.rt || r.Health().RealtimeConsumer {
		t.Fatalf("quiet host: %d real-time calls, rt %v", rtCalls, s.rt)
	}
	s.realtime(true)
	s.realtime(true) // no second call while it is real-time
	if rtCalls != 1 || !s.rt || !r.Health().RealtimeConsumer {
		t.Fatalf("contended: %d real-time calls, rt %v, health %v", rtCalls, s.rt, r.Health().RealtimeConsumer)
	}
	s.realtime(false)
	if normalCalls != 1 || s.rt {
		t.Fatalf("no longer contended: %d normal calls, rt %v", normalCalls, s.rt)
	}
	if !r.Health().RealtimeConsumer {
		t.Error("the result would not say the consumer ran real-time")
	}

	refuse = true
	s.realtime(true)
	s.realtime(false)
	s.realtime(true)
	if rtCalls != 2 || s.rt || !s.rtRefused {
		t.Errorf("refused: %d real-time calls (want 2: asked once more, then never), rt %v, refused %v", rtCalls, s.rt, s.rtRefused)
	}

	off := &ringServer{ring: r, tune: preload.Tuning{}}
	off.realtime(true)
	if rtCalls != 2 || off.rt {
		t.Errorf("consumer_rt=0: %d real-time calls, rt %v", rtCalls, off.rt)
	}
}
