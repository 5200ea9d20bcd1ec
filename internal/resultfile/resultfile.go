package resultfile

import (
	"encoding/json"
	"fmt"
	"os"

	"tierbench/internal/engine"
	"tierbench/internal/metrics"
	"tierbench/internal/result"
	"tierbench/internal/workload"
	_ "tierbench/internal/workload/all" // every workload's result type
	"tierbench/internal/workload/vuser"
)

// Common are the members of a result file that a report reads whatever the workload:
// those every result has, or may have, at its top level, and the sections the run
// lifecycle attaches.
type Common struct {
	// Benchmark names the workload (its registry name; older files an older one).
	Benchmark string        `json:"benchmark"`
	Status    result.Status `json:"status"`
	Error     string        `json:"error"`
	Started   string        `json:"started"`
	Engine    *engine.Info  `json:"engine"`
	// A run of virtual users' (TPC-C, OLTP mixes): the headline level's users, I/O
	// rates and tierbench's CPU, every level, and the intervals file.
	Users         int                 `json:"users"`
	Levels        []vuser.LevelReport `json:"levels"`
	IO            *metrics.IORates    `json:"io"`
	ClientCPU     *vuser.ClientCPU    `json:"client_cpu"`
	IntervalsFile string              `json:"intervals_file"`
	result.Sections
}

// Decoded is a result file as read.
type Decoded struct {
	Path string
	Common
	// Workload is the workload that wrote the file; nil when this tierbench does
	// not know it.
	Workload *workload.Meta
	// Result is the file decoded into Workload's result type (nil with Workload).
	Result workload.Result
}

// Read reads the result file at path. A missing file is an error that wraps
// fs.ErrNotExist; a file that is not a result, or not a result of the workload it
// names, is an error naming the file.
func Read(path string) (*Decoded, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := &Decoded{Path: path}
	if err := json.Unmarshal(data, &d.Common); err != nil {
		return nil, fmt.Errorf("%s: not a result of tierbench: %w", path, err)
	}
	var members map[string]json.RawMessage
	has := func(member string) bool {
		if members == nil {
			if json.Unmarshal(data, &members) != nil {
				return false
			}
		}
		_, ok := members[member]
		return ok
	}
	m, ok := workload.ForResult(d.Benchmark, has)
	if !ok {
		return d, nil
	}
	res := m.Result.New()
	if err := json.Unmarshal(data, res); err != nil {
		return nil, fmt.Errorf("%s: not a %s result: %w", path, m.Title, err)
	}
	d.Workload, d.Result = &m, res
	return d, nil
}

// Title names the file's workload for people: its title, or else the benchmark the
// file names, or "an unknown workload".
func (d *Decoded) Title() string {
	switch {
	case d.Workload != nil:
		return d.Workload.Title
	case d.Benchmark != "":
		return d.Benchmark
	}
	return "an unknown workload"
}

// Headline is the result's headline numbers (workload.Headliner); none for a workload
// this tierbench does not know.
func (d *Decoded) Headline() []result.Metric {
	if d.Result == nil {
		return nil
	}
	return d.Result.HeadlineMetrics()
}

// RunStatus says how the run ended: as the workload's result says
// (workload.Statuser), or else as the file's status and error members say.
func (d *Decoded) RunStatus() (result.Status, string) {
	if d.Result != nil {
		return d.Result.RunStatus()
	}
	return d.Status, d.Error
}
