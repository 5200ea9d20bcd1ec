package metrics

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// IOSample is one reading of the I/O counters a run can see: the engine's own (when it
// counts its I/O) and each emulated device's. Counters are cumulative; rates are the
// difference of two samples.
type IOSample struct {
	At time.Time
	// Engine is nil when the engine does not count its I/O.
	Engine  *IOCount
	Devices []DeviceIO
}

// IOCount are cumulative bytes read and written.
type IOCount struct {
	Read, Written int64
}

// DeviceIO are one emulated device's cumulative counters.
type DeviceIO struct {
	Name          string
	Read, Written int64
	// Busy is the device model's busy time (the union of its service intervals).
	Busy time.Duration
}

// IORates are the I/O rates between two samples, in MB/s (10^6 bytes a second).
type IORates struct {
	Engine  *IORate      `json:"engine,omitempty"`
	Devices []DeviceRate `json:"devices,omitempty"`
}

// IORate is a read and a write rate in MB/s.
type IORate struct {
	ReadMBs  float64 `json:"read_mb_s"`
	WriteMBs float64 `json:"write_mb_s"`
}

// DeviceRate is one emulated device's rates; Util is the fraction of the time it was
// busy (0..1).
type DeviceRate struct {
	Name string `json:"name"`
	IORate
	Util float64 `json:"util"`
}

// NewIORates are the rates from a to b; nil when b is not after a or neither sample
// has anything both share. Devices are matched by name.
func NewIORates(a, b IOSample) *IORates {
	secs := b.At.Sub(a.At).Seconds()
	if secs <= 0 {
		return nil
	}
	mbs := func(d int64) float64 { return round3(math.Max(0, float64(d)) / 1e6 / secs) }
	r := &IORates{}
	if a.Engine != nil && b.Engine != nil {
		r.Engine = &IORate{ReadMBs: mbs(b.Engine.Read - a.Engine.Read), WriteMBs: mbs(b.Engine.Written - a.Engine.Written)}
	}
	for _, db := range b.Devices {
		for _, da := range a.Devices {
			if da.Name != db.Name {
				continue
			}
			util := math.Min(1, math.Max(0, (db.Busy-da.Busy).Seconds()/secs))
			r.Devices = append(r.Devices, DeviceRate{Name: db.Name,
				IORate: IORate{ReadMBs: mbs(db.Read - da.Read), WriteMBs: mbs(db.Written - da.Written)},
				Util:   round3(util)})
		}
	}
	if r.Engine == nil && len(r.Devices) == 0 {
		return nil
	}
	return r
}

// WriteIOLine prints a summary's I/O line: the window's rates, or why they could not
// be read; nothing when the run read no I/O counters.
func WriteIOLine(w io.Writer, r *IORates, readErr string) {
	switch {
	case r != nil:
		fmt.Fprintf(w, "over the window: %s\n", r.Text())
	case readErr != "":
		fmt.Fprintf(w, "I/O counters not read: %s\n", readErr)
	}
}

// Text is the rates as the end of an interval line: "io MB/s r: 1.20 w: 3.40" for the
// engine, then "data r/w MB/s: 0.50/2.10 util 35%" per device.
func (r *IORates) Text() string {
	if r == nil {
		return ""
	}
	var parts []string
	if r.Engine != nil {
		parts = append(parts, fmt.Sprintf("io MB/s r: %.2f w: %.2f", r.Engine.ReadMBs, r.Engine.WriteMBs))
	}
	for _, d := range r.Devices {
		parts = append(parts, fmt.Sprintf("%s r/w MB/s: %.2f/%.2f util %.0f%%", d.Name, d.ReadMBs, d.WriteMBs, 100*d.Util))
	}
	return strings.Join(parts, " | ")
}
