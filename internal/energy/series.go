package energy

import (
	"slices"
	"sort"
	"time"
)

// Series is power over time as linear pieces: watts that are averages over an
// interval (a RAPL counter's delta, the model at an interval's utilisation) are flat
// pieces; instantaneous readings (a meter) are joined by straight lines, so integrating
// them is the trapezoid rule. Where there is no piece the series says nothing: that
// time is not covered.
type Series struct {
	ref    time.Time // times are seconds since ref
	pieces []piece   // in time order, not overlapping
}

type piece struct {
	x0, x1 float64 // seconds since ref
	y0, y1 float64 // watts at x0 and x1
}

func (p piece) at(x float64) float64 {
	if p.x1 == p.x0 {
		return p.y0
	}
	return p.y0 + (p.y1-p.y0)*(x-p.x0)/(p.x1-p.x0)
}

func newSeries(ref time.Time) *Series { return &Series{ref: ref} }

func (s *Series) sec(t time.Time) float64 { return t.Sub(s.ref).Seconds() }

// addStep adds an average of watts over (from, to]. Steps must come in time order.
func (s *Series) addStep(from, to time.Time, watts float64) {
	x0, x1 := s.sec(from), s.sec(to)
	if x1 <= x0 {
		return
	}
	s.pieces = append(s.pieces, piece{x0, x1, watts, watts})
}

// Reading is one instantaneous power reading.
type Reading struct {
	Time  time.Time
	Watts float64
}

// Gap and hold of a series of readings, in units of their spacing (a file's median
// spacing, a command's longest between two successful polls in a row): readings
// further apart than GapSpacings are not joined (the time between is not covered),
// and the first and last reading of each run are held for HoldSpacings beyond it, so
// that a meter reading every second covers a window that starts or ends between its
// readings.
const (
	GapSpacings  = 3
	HoldSpacings = 1
)

// readingsSeries joins readings (in time order) into a series, spacing seconds apart
// (0: their median spacing), and returns the spacing used (0 with fewer than two
// readings: a lone reading covers nothing).
func readingsSeries(rs []Reading, spacing float64) (*Series, float64) {
	if len(rs) == 0 {
		return newSeries(time.Time{}), 0
	}
	s := newSeries(rs[0].Time)
	if spacing <= 0 {
		spacing = medianSpacing(s, rs)
	}
	if spacing <= 0 {
		return s, 0
	}
	gap, hold := GapSpacings*spacing, HoldSpacings*spacing
	start := 0 // first reading of the current run
	for i := 1; i <= len(rs); i++ {
		if i < len(rs) && s.sec(rs[i].Time)-s.sec(rs[i-1].Time) <= gap {
			continue
		}
		// rs[start:i] is a run of readings no further apart than gap.
		first, last := rs[start], rs[i-1]
		x0, xn := s.sec(first.Time), s.sec(last.Time)
		s.pieces = append(s.pieces, piece{x0 - hold, x0, first.Watts, first.Watts})
		for j := start + 1; j < i; j++ {
			if a, b := s.sec(rs[j-1].Time), s.sec(rs[j].Time); b > a {
				s.pieces = append(s.pieces, piece{a, b, rs[j-1].Watts, rs[j].Watts})
			}
		}
		s.pieces = append(s.pieces, piece{xn, xn + hold, last.Watts, last.Watts})
		start = i
	}
	return s, spacing
}

// medianSpacing is the median time between readings in a row that are not at the
// same time; 0 without two such readings.
func medianSpacing(s *Series, rs []Reading) float64 {
	var gaps []float64
	for i := 1; i < len(rs); i++ {
		if d := s.sec(rs[i].Time) - s.sec(rs[i-1].Time); d > 0 {
			gaps = append(gaps, d)
		}
	}
	if len(gaps) == 0 {
		return 0
	}
	slices.Sort(gaps)
	if len(gaps)%2 == 0 {
		return (gaps[len(gaps)/2-1] + gaps[len(gaps)/2]) / 2
	}
	return gaps[len(gaps)/2]
}

// Integrate returns the joules over [from, to] and how many seconds of it the series
// covers.
func (s *Series) Integrate(from, to time.Time) (joules, covered float64) {
	f, t := s.sec(from), s.sec(to)
	i := sort.Search(len(s.pieces), func(i int) bool { return s.pieces[i].x1 > f })
	for ; i < len(s.pieces) && s.pieces[i].x0 < t; i++ {
		p := s.pieces[i]
		lo, hi := max(p.x0, f), min(p.x1, t)
		if hi <= lo {
			continue
		}
		joules += (p.at(lo) + p.at(hi)) / 2 * (hi - lo)
		covered += hi - lo
	}
	return joules, covered
}

// span is the first and last time the series covers.
func (s *Series) span() (from, to time.Time, ok bool) {
	if len(s.pieces) == 0 {
		return time.Time{}, time.Time{}, false
	}
	at := func(x float64) time.Time { return s.ref.Add(time.Duration(x * float64(time.Second))) }
	return at(s.pieces[0].x0), at(s.pieces[len(s.pieces)-1].x1), true
}

// last is the watts at the end of the series (0 when empty).
func (s *Series) last() float64 {
	if len(s.pieces) == 0 {
		return 0
	}
	return s.pieces[len(s.pieces)-1].y1
}
