package vuser

import (
	"fmt"
	"io"
	"maps"
	"math"

	"tierbench/internal/metrics"
	"tierbench/internal/result"
)

// Definitions are a vuser workload's definitions of its metrics: its own (own) with
// those every run of users reports (io, client_cpu, status, schedule_lag), which
// each result carries.
func Definitions(own map[string]string) map[string]string {
	out := map[string]string{
		"io":           IODefinition,
		"client_cpu":   ClientCPUDefinition,
		"status":       StatusDefinition,
		"schedule_lag": ScheduleLagDefinition,
	}
	maps.Copy(out, own)
	return out
}

// IODefinition says what the I/O rates (LevelReport.IO, the interval records' io)
// count, for the definitions every result carries.
const IODefinition = "MB/s (10^6 bytes a second): engine = what the engine counts it read from and wrote to its files, page cache hits included (PostgreSQL: blocks read, relation extensions included up to version 15, blocks written and WAL bytes; MariaDB: Innodb_data_read, Innodb_data_written + Innodb_os_log_written; SQLite counts nothing); devices = each emulated device's bytes and busy fraction"

// LevelReport is what every workload reports for one concurrency level.
type LevelReport struct {
	Users   int           `json:"users"`
	Status  result.Status `json:"status"`
	Error   string        `json:"error,omitempty"`
	Seconds float64       `json:"measured_seconds"`
	// ConnectSeconds is how long the users took to open their sessions, all of them
	// before the ramp began: neither part of the ramp nor of the window.
	ConnectSeconds float64 `json:"connect_seconds"`
	// TPS counts completed transactions (commits and rollbacks the workload asked
	// for) per second of the window, QPS the statements they sent, BEGIN and COMMIT
	// included.
	TPS    float64 `json:"tps"`
	QPS    float64 `json:"qps"`
	Errors int64   `json:"errors"`
	// Latency is over every transaction type.
	Latency      metrics.Latency             `json:"latency"`
	Transactions map[string]metrics.OpReport `json:"transactions"`
	// IO is the I/O rates over the window (engine counters, emulated devices) when the
	// run read them; IOError is why a reading failed.
	IO      *metrics.IORates `json:"io,omitempty"`
	IOError string           `json:"io_error,omitempty"`
	// ClientCPU is what tierbench itself spent over the window (ClientCPUDefinition).
	ClientCPU *ClientCPU `json:"client_cpu,omitempty"`
	// ScheduleLag is how far an open loop fell behind its schedule (ScheduleLagDefinition).
	ScheduleLag *ScheduleLag `json:"schedule_lag,omitempty"`
	// AppWaits is the time users waited for the application's gates over the window
	// (AppWaitDefinition); none for a workload without gates.
	AppWaits []AppWait `json:"app_waits,omitempty"`
}

// AppWaitDefinition says what a level's app_waits count, for the definitions of the
// results of workloads with gates.
const AppWaitDefinition = "time the users waited for the application's own gates before their statements reached the database: a connection pool smaller than the users (kind pool), a critical section at most holders users are in at once (kind critical); seconds in all over the window, the mean number of users waiting (seconds a second), and that as a share of the users' time (users x window)"

// AppWait is what users waited for one gate over a level's window.
type AppWait struct {
	Gate
	Seconds float64 `json:"seconds"`
	// Waiting is the mean number of users waiting, SharePct the share of the users'
	// time that is.
	Waiting  float64 `json:"users_waiting"`
	SharePct float64 `json:"share_pct"`
}

// appWaits sums the window's waits for each gate.
func appWaits(sum *Summary) []AppWait {
	if len(sum.Gates) == 0 {
		return nil
	}
	secs := sum.Measured.WaitSeconds()
	window := sum.Measured.Duration().Seconds()
	out := make([]AppWait, len(sum.Gates))
	for i, g := range sum.Gates {
		w := AppWait{Gate: g}
		if i < len(secs) {
			w.Seconds = round3(secs[i])
		}
		if window > 0 {
			w.Waiting = round3(secs[i] / window)
			w.SharePct = round2(100 * secs[i] / window / float64(max(1, sum.Users)))
		}
		out[i] = w
	}
	return out
}

// NewLevelReport summarises a run's measured window, one entry per operation in ops.
func NewLevelReport(sum *Summary, ops []string) LevelReport {
	m := sum.Measured
	l := LevelReport{Users: sum.Users, Status: sum.Status, Error: sum.Cause,
		Seconds: round2(m.Duration().Seconds()), ConnectSeconds: round3(sum.Connect.Seconds()), Transactions: map[string]metrics.OpReport{},
		Latency: m.Combined().Summary(), IO: sum.IO, IOError: sum.IOError, ClientCPU: sum.ClientCPU, ScheduleLag: sum.Lag,
		AppWaits: appWaits(sum)}
	l.TPS = round2(m.Rate(m.Count("")))
	l.QPS = round2(m.Rate(m.Total().Queries))
	l.Errors = m.Total().Errors
	for _, op := range ops {
		l.Transactions[op] = m.Report(op)
	}
	return l
}

// WriteStatus begins a run's summary: a blank line then, for a run that is not ok,
// what it ended as and why, before any number a reader might take for the result.
func WriteStatus(w io.Writer, r *RunResult) {
	fmt.Fprintln(w)
	if r.Status == result.StatusOK {
		return
	}
	why := r.Error // "run failed: ..."
	if why == "" {
		why = "run " + string(r.Status)
	}
	fmt.Fprintf(w, "NOT OK: %s\n", why)
}

// WriteFirstErrors prints the first error of each transaction type in order that has
// one.
func WriteFirstErrors(w io.Writer, order []string, firstErrors map[string]string) {
	for _, op := range order {
		if e, ok := firstErrors[op]; ok {
			fmt.Fprintf(w, "first error of %s: %s\n", op, e)
		}
	}
}

// SweepTable turns levels into the sweep table with the saturation point marked.
func SweepTable(levels []LevelReport) []metrics.Level {
	out := make([]metrics.Level, 0, len(levels))
	for _, l := range levels {
		out = append(out, metrics.Level{Users: l.Users, TPS: l.TPS, P95: l.Latency.P95, P99: l.Latency.P99})
	}
	metrics.MarkSaturation(out)
	return out
}

// Best is the index of the level with the highest TPS (-1 for none).
func Best(levels []LevelReport) int {
	best := -1
	for i, l := range levels {
		if best < 0 || l.TPS > levels[best].TPS {
			best = i
		}
	}
	return best
}

func round3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*1000) / 1000
}

func round2(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*100) / 100
}
