package dbgen

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Base cardinalities at SF 1 (Clause 4.2.5).
const (
	basePart       = 200000
	baseSupplier   = 10000
	baseCustomer   = 150000
	baseOrderCount = 1500000
	numNations     = 25
	numRegions     = 5
	suppPerPart    = 4
	startDate      = 92001 // dbgen's STARTDATE, 1992-01-01
	currentDate    = 95168 // CURRENTDATE, 1995-06-17 (Clause 4.2.3)
	totalDates     = 2557
	// MaxSF is the largest scale factor TPC-H defines (Clause 4.1.3.1).
	MaxSF = 100000
	// wideScale is where dbgen switches O_CUSTKEY and L_PARTKEY to its 64-bit generator.
	wideScale = 30000
)

// scaling holds the table sizes and the integer scale dbgen uses in its
// formulas. Like dbgen, a fractional SF below 1 scales the base row counts by
// int(1000*SF)/1000 and keeps the integer scale at 1; an SF of 1 or more is
// truncated to an integer.
type scaling struct {
	scale                           int64
	part, supplier, customer, order int64 // per unit of scale
}

func newScaling(sf float64) (scaling, error) {
	if math.IsNaN(sf) || sf <= 0 {
		return scaling{}, fmt.Errorf("dbgen: scale factor %v: must be positive (e.g. 0.01, 1, 10)", sf)
	}
	if sf > MaxSF {
		return scaling{}, fmt.Errorf("dbgen: scale factor %v: TPC-H defines scale factors up to %d", sf, MaxSF)
	}
	s := scaling{scale: 1, part: basePart, supplier: baseSupplier, customer: baseCustomer, order: baseOrderCount}
	if sf < 1 {
		k := int64(1000 * sf)
		adj := func(b int64) int64 {
			v := k * b / 1000
			if v < 1 {
				v = 1
			}
			return v
		}
		s.part, s.supplier, s.customer, s.order = adj(s.part), adj(s.supplier), adj(s.customer), adj(s.order)
	} else {
		s.scale = int64(sf)
	}
	return s, nil
}

// wide tells whether dbgen draws O_CUSTKEY and L_PARTKEY from its 64-bit generator.
func (s scaling) wide() bool { return s.scale >= wideScale }

func (s scaling) parts() int64     { return s.part * s.scale }
func (s scaling) suppliers() int64 { return s.supplier * s.scale }
func (s scaling) customers() int64 { return s.customer * s.scale }
func (s scaling) orders() int64    { return s.order * s.scale }

// updateRows is the number of orders per refresh set (dbgen: base/10000*scale*UPD_PCT).
func (s scaling) updateRows() int64 { return s.order / 10000 * s.scale * 10 }

// dateStr[i] is day i after 1992-01-01 as yyyy-mm-dd; shippedBy[i] tells
// whether that day is on or before CURRENTDATE.
var (
	dateStr    [totalDates + 200][10]byte
	onOrBefore [totalDates + 200]bool
)

func init() {
	t0 := time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range dateStr {
		copy(dateStr[i][:], t0.AddDate(0, 0, i).Format("2006-01-02"))
		onOrBefore[i] = julian(int64(startDate+i)) <= currentDate
	}
}

func leap(y int64) int64 {
	if y%4 == 0 && y%100 != 0 {
		return 1
	}
	return 0
}

// julian converts dbgen's linear day number (STARTDATE + days) to yyddd.
func julian(date int64) int64 {
	offset := date - startDate
	result := int64(startDate)
	for {
		yr := result / 1000
		yend := yr*1000 + 365 + leap(yr)
		if result+offset > yend {
			offset -= yend - result + 1
			result += 1000
			continue
		}
		return result + offset
	}
}

// --- byte formatting helpers (no fmt in hot paths) ---

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// appendMoney formats cents as dbgen's DT_MONEY (via a 32-bit int).
func appendMoney(b []byte, v int64) []byte {
	c := int64(int32(v))
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	c %= 100
	return append(b, '.', byte('0'+c/10), byte('0'+c%10))
}
