package emulator

import (
	"time"

	"tierbench/internal/device"
)

// NullSpec is the device spec of a device that takes no time: a mount on it measures
// the emulator's own latency floor.
const NullSpec = "null"

// nullModel completes every request at once.
type nullModel struct{ st device.Stats }

func (n *nullModel) Name() string { return NullSpec }

func (n *nullModel) Submit(at time.Duration, r device.Request) time.Duration {
	switch r.Op {
	case device.OpRead:
		n.st.Reads++
		n.st.ReadBytes += max(r.Size, 0)
	case device.OpWrite:
		n.st.Writes++
		n.st.WriteBytes += max(r.Size, 0)
	case device.OpFlush:
		n.st.Flushes++
	}
	return at
}

func (n *nullModel) Stats() device.Stats { return n.st }

// buildModel builds spec from reg, knowing the null device too.
func buildModel(reg *device.Registry, spec string) (device.Model, error) {
	if spec == NullSpec {
		return &nullModel{}, nil
	}
	return reg.Build(spec)
}
