package qgen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// QueryCount is the number of queries in a TPC-H query set (Clause 2.4).
const QueryCount = 22

// q11Fraction is Q11's FRACTION at SF 1; the query uses q11Fraction/SF
// (Clause 2.4.11.3).
const q11Fraction = 0.0001

// defaultParams are the qualification parameters (Clause 2.4.N.4, qgen -d),
// spelled as qgen's table spells them and logs them with -d -l.
var defaultParams = [QueryCount][]string{
	{"90"},
	{"15", "BRASS", "EUROPE"},
	{"BUILDING", "1995-03-15"},
	{"1993-07-01"},
	{"ASIA", "1994-01-01"},
	{"1994-01-01", ".06", "24"},
	{"FRANCE", "GERMANY"},
	{"BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL"},
	{"green"},
	{"1993-10-01"},
	{"GERMANY", "0.0001"},
	{"MAIL", "SHIP", "1994-01-01"},
	{"special", "requests"},
	{"1995-09-01"},
	{"1996-01-01"},
	{"Brand#45", "MEDIUM POLISHED", "49", "14", "23", "45", "19", "3", "36", "9"},
	{"Brand#23", "MED BOX"},
	{"300"},
	{"Brand#12", "Brand#23", "Brand#34", "1", "10", "20"},
	{"forest", "1994-01-01", "CANADA"},
	{"SAUDI ARABIA"},
	{"13", "31", "23", "29", "30", "18", "17"},
}

// checkQuery reports whether q is a TPC-H query number.
func checkQuery(q int) error {
	if q < 1 || q > QueryCount {
		return fmt.Errorf("qgen: query %d does not exist: valid query numbers are 1..%d", q, QueryCount)
	}
	return nil
}

// checkScale reports whether sf can scale Q11's fraction.
func checkScale(sf float64) error {
	if !(sf > 0) || math.IsInf(sf, 0) {
		return fmt.Errorf("qgen: scale factor %v is invalid: it must be a positive number such as 1, 10 or 0.01", sf)
	}
	return nil
}

// Params returns the substitution parameters of query q (1..22) as qgen draws them
// for scale factor sf and seed, in the order qgen prints them with -l.
func Params(sf float64, seed int64, q int) ([]string, error) {
	if err := checkQuery(q); err != nil {
		return nil, err
	}
	if err := checkScale(sf); err != nil {
		return nil, err
	}
	s, err := newStreams(seed)
	if err != nil {
		return nil, err
	}
	d, err := loadDists()
	if err != nil {
		return nil, err
	}
	return draw(d, s, sf, q), nil
}

// DefaultParams returns the qualification parameters of query q (qgen -d), spelled
// as qgen logs them: Q6's discount is ".06" and Q11's fraction the SF 1 value
// "0.0001". It returns nil for a number outside 1..22.
func DefaultParams(q int) []string {
	if checkQuery(q) != nil {
		return nil
	}
	return append([]string(nil), defaultParams[q-1]...)
}

// FormatParams returns what `qgen -s sf -r seed -l file` writes to file: one line
// per query 1..22, the query number and then its parameters, tab separated.
func FormatParams(sf float64, seed int64) (string, error) {
	if err := checkScale(sf); err != nil {
		return "", err
	}
	s, err := newStreams(seed)
	if err != nil {
		return "", err
	}
	d, err := loadDists()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for q := 1; q <= QueryCount; q++ {
		writeLogLine(&b, q, draw(d, s, sf, q))
	}
	return b.String(), nil
}

// FormatDefaultParams returns what `qgen -d -l file` writes to file.
func FormatDefaultParams() string {
	var b strings.Builder
	for q := 1; q <= QueryCount; q++ {
		writeLogLine(&b, q, defaultParams[q-1])
	}
	return b.String()
}

func writeLogLine(b *strings.Builder, q int, params []string) {
	b.WriteString(strconv.Itoa(q))
	for _, p := range params {
		b.WriteByte('\t')
		b.WriteString(p)
	}
	b.WriteByte('\n')
}

// queryParams returns the parameters a stream substitutes into query q: the drawn
// ones, or with useDefault the qualification ones with Q11's fraction scaled to
// sf, as qgen -d substitutes it into the query text.
func queryParams(d *qgenDists, s *streams, sf float64, q int, useDefault bool) []string {
	if !useDefault {
		return draw(d, s, sf, q)
	}
	p := DefaultParams(q)
	if q == 11 {
		p[1] = formatFraction(sf)
	}
	return p
}

func formatFraction(sf float64) string {
	return fmt.Sprintf("%11.10f", q11Fraction/sf)
}

// monthDate formats the first day of the month that lies m months after
// January 1993, the way qgen spells dates it builds from a month offset.
func monthDate(m int64) string {
	return fmt.Sprintf("19%02d-%02d-01", 93+m/12, m%12+1)
}

// yearDate formats January 1 of 19yy.
func yearDate(yy int64) string { return fmt.Sprintf("19%02d-01-01", yy) }

// brand formats a Brand#MN value from its two digits (Clause 4.2.3, P_BRAND).
func brand(m, n int64) string { return fmt.Sprintf("Brand#%d%d", m, n) }

// lastWord returns the last blank-separated word of s; allButLastWord the rest.
func lastWord(s string) string       { return s[strings.LastIndexByte(s, ' ')+1:] }
func allButLastWord(s string) string { return s[:max(strings.LastIndexByte(s, ' '), 0)] }

// pickTwo picks a member of dist, then picks again until it has a different one.
func pickTwo(s *streams, dist *distribution, q int) (string, string) {
	a := s.pick(dist, q)
	b := s.pick(dist, q)
	for b == a {
		b = s.pick(dist, q)
	}
	return dist.Words[a], dist.Words[b]
}

// draw makes query q's draws from stream q in qgen's order (varsub.c) and
// returns the parameters as qgen formats them. The ranges are those of each
// query's "Substitution Parameters" clause (2.4.N.3).
func draw(d *qgenDists, s *streams, sf float64, q int) []string {
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	pick := func(dist *distribution) string { return dist.Words[s.pick(dist, q)] }
	uni := func(lo, hi int64) int64 { return s.unifInt(lo, hi, q) }
	switch q {
	case 1: // DELTA in [60, 120] days
		return []string{i64(uni(60, 120))}
	case 2: // SIZE in [1, 50], TYPE a syllable 3 of P_TYPE, REGION
		size := uni(1, 50)
		typ := lastWord(pick(d.types))
		return []string{i64(size), typ, pick(d.regions)}
	case 3: // SEGMENT, DATE a day of March 1995
		seg := pick(d.segments)
		day := uni(0, 30)
		march1 := time.Date(1995, time.March, 1, 0, 0, 0, 0, time.UTC)
		return []string{seg, march1.AddDate(0, 0, int(day)).Format(time.DateOnly)}
	case 4, 15: // first of a month in [1993-01, 1997-10]
		return []string{monthDate(uni(0, 57))}
	case 5: // REGION, January 1 of a year in [1993, 1997]
		r := pick(d.regions)
		return []string{r, yearDate(uni(93, 97))}
	case 6: // DATE, DISCOUNT in [0.02, 0.09], QUANTITY in [24, 25]
		year := uni(93, 97)
		disc := uni(2, 9)
		qty := uni(24, 25)
		return []string{yearDate(year), fmt.Sprintf("0.%02d", disc), i64(qty)}
	case 7: // two different nations
		a, b := pickTwo(s, d.nations2, q)
		return []string{a, b}
	case 12: // two different ship modes, January 1 of a year in [1993, 1997]
		a, b := pickTwo(s, d.shipModes, q)
		return []string{a, b, yearDate(uni(93, 97))}
	case 8: // NATION, its REGION, TYPE
		n := s.pick(d.nations2, q)
		region := d.regions.Words[d.nations.Cum[n]]
		return []string{d.nations2.Words[n], region, pick(d.types)}
	case 9: // COLOR
		return []string{pick(d.colors)}
	case 10: // first of a month in [1993-02, 1995-01]
		return []string{monthDate(uni(1, 24))}
	case 11: // NATION, FRACTION
		return []string{pick(d.nations2), formatFraction(sf)}
	case 13: // WORD1, WORD2
		w1 := pick(d.q13a)
		return []string{w1, pick(d.q13b)}
	case 14: // first of a month in [1993-01, 1997-12]
		return []string{monthDate(uni(0, 59))}
	case 16: // BRAND, TYPE (syllables 1 and 2), 8 distinct sizes
		b := brand(uni(1, 5), uni(1, 5))
		typ := allButLastWord(pick(d.types))
		sizes := make([]int64, 50)
		for i := range sizes {
			sizes[i] = int64(i + 1)
		}
		s.permute(sizes, q)
		p := []string{b, typ}
		for _, v := range sizes[:8] {
			p = append(p, i64(v))
		}
		return p
	case 17: // BRAND, CONTAINER
		b := brand(uni(1, 5), uni(1, 5))
		return []string{b, pick(d.containers)}
	case 18: // QUANTITY in [312, 315]
		return []string{i64(uni(312, 315))}
	case 19: // three brands, QUANTITY1..3
		var p []string
		for range 3 {
			p = append(p, brand(uni(1, 5), uni(1, 5)))
		}
		return append(p, i64(uni(1, 10)), i64(uni(10, 20)), i64(uni(20, 30)))
	case 20: // COLOR, DATE, NATION
		c := pick(d.colors)
		date := yearDate(uni(93, 97))
		return []string{c, date, pick(d.nations2)}
	case 21: // NATION
		return []string{pick(d.nations2)}
	case 22: // seven distinct country codes in [10, 34]
		codes := make([]int64, 25)
		for i := range codes {
			codes[i] = int64(i)
		}
		s.permute(codes, q)
		p := make([]string, 7)
		for i := range p {
			p[i] = i64(10 + codes[i])
		}
		return p
	}
	panic(fmt.Sprintf("qgen: draw called for query %d", q))
}
