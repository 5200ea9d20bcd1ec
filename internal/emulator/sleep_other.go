//go:build !linux

package emulator

import "time"

func sleepUntil(t time.Time, spin bool) { time.Sleep(time.Until(t)) }

func monoNow() int64 { return time.Now().UnixNano() }
