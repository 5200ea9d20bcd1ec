package vuser

import (
	"math"
	"sync"
	"time"
)

// ScheduleLagDefinition says what ScheduleLag counts, for the definitions every result
// carries.
const ScheduleLagDefinition = "open loop only: how far behind its schedule each transaction of the measured window started (a user still busy with its previous one starts the next late; latency counts from the schedule all the same): mean_ms, max_ms, and late_share, the share that started one of its user's intervals (users / rate) or more behind"

// ScheduleLag is how far an open loop's transactions started behind their schedule
// over a window. A lag that grows says the users could not keep the rate: each was
// still busy when its next transaction was due.
type ScheduleLag struct {
	MeanMs float64 `json:"mean_ms"`
	MaxMs  float64 `json:"max_ms"`
	// LateShare is the share of transactions that started one user's interval (users
	// / rate) or more behind their schedule: by then the next was due too.
	LateShare float64 `json:"late_share"`
}

// lagMeter sums the lags the users report; it is reset when the window begins.
type lagMeter struct {
	mu         sync.Mutex
	late       time.Duration // what counts as late: one user's interval
	n, lateN   int64
	sum, worst time.Duration
}

func (m *lagMeter) add(lag time.Duration) {
	lag = max(lag, 0)
	m.mu.Lock()
	m.n++
	m.sum += lag
	m.worst = max(m.worst, lag)
	if lag >= m.late {
		m.lateN++
	}
	m.mu.Unlock()
}

func (m *lagMeter) reset() {
	m.mu.Lock()
	m.n, m.lateN, m.sum, m.worst = 0, 0, 0, 0
	m.mu.Unlock()
}

// result is the lag since the last reset, nil when no transaction started.
func (m *lagMeter) result() *ScheduleLag {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == 0 {
		return nil
	}
	ms := func(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }
	return &ScheduleLag{MeanMs: ms(m.sum / time.Duration(m.n)), MaxMs: ms(m.worst), LateShare: round3(float64(m.lateN) / float64(m.n))}
}
