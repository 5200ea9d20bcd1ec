// Package dists holds the TPC's dists.dss (TPC-H kit revision 2.17.3) — the weighted
// word lists and text grammar that dbgen and qgen draw from (Clause 4.2.2, 4.2.3) —
// embedded in the binary, and the one parser both generators use.
package dists

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

//go:embed dists.dss
var file []byte

// Distribution is one named list of dists.dss. Cum holds the running sums of the
// weights, as the kit's read_dist stores them: a weighted pick draws j in [1, Max]
// and takes the first member whose Cum reaches j.
type Distribution struct {
	Name  string
	Words []string
	Cum   []int64
}

// Max is the total weight, the upper bound of a weighted pick's draw.
func (d *Distribution) Max() int64 { return d.Cum[len(d.Cum)-1] }

// Index returns the first member whose cumulative weight reaches j.
func (d *Distribution) Index(j int64) int {
	i := 0
	for d.Cum[i] < j {
		i++
	}
	return i
}

var (
	once   sync.Once
	parsed map[string]*Distribution
	err    error
)

// Get returns the named distributions of the embedded dists.dss (names are
// case-blind), parsed once per process. A missing name is an error.
func Get(names ...string) ([]*Distribution, error) {
	once.Do(func() { parsed, err = Parse(file) })
	if err != nil {
		return nil, err
	}
	out := make([]*Distribution, len(names))
	for i, n := range names {
		if out[i] = parsed[strings.ToLower(n)]; out[i] == nil {
			return nil, fmt.Errorf("dists.dss has no distribution %q", n)
		}
	}
	return out, nil
}

// Parse reads the dists.dss format the way the kit's reader does: '#' starts a
// comment, "BEGIN name" ... "END" delimit a list (keywords case-blind), "token|weight"
// lines add a member (the weight read like atoi), the "count" pseudo-member gives the
// number of members, and lines of any other shape are skipped.
func Parse(data []byte) (map[string]*Distribution, error) {
	out := map[string]*Distribution{}
	var cur *Distribution
	var want int64
	sc := bufio.NewScanner(bytes.NewReader(data))
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if cur == nil {
			f := strings.Fields(line)
			if len(f) >= 2 && strings.EqualFold(f[0], "begin") {
				cur = &Distribution{Name: strings.ToLower(f[1])}
				want = -1
			}
			continue
		}
		if len(line) >= 3 && strings.EqualFold(line[:3], "end") {
			if want >= 0 && int64(len(cur.Words)) != want {
				return nil, fmt.Errorf("dists.dss line %d: %s has %d members, count says %d", lineNo, cur.Name, len(cur.Words), want)
			}
			if len(cur.Words) == 0 {
				return nil, fmt.Errorf("dists.dss line %d: distribution %s is empty", lineNo, cur.Name)
			}
			out[cur.Name] = cur
			cur = nil
			continue
		}
		bar := strings.IndexByte(line, '|')
		if bar <= 0 {
			continue
		}
		token := line[:bar]
		ws := strings.TrimSpace(line[bar+1:])
		end := 0
		for end < len(ws) && (ws[end] == '-' || ws[end] >= '0' && ws[end] <= '9') {
			end++
		}
		w, err := strconv.ParseInt(ws[:end], 10, 64)
		if err != nil {
			continue
		}
		if strings.EqualFold(token, "count") {
			want = w
			continue
		}
		var prev int64
		if n := len(cur.Cum); n > 0 {
			prev = cur.Cum[n-1]
		}
		cur.Words = append(cur.Words, token)
		cur.Cum = append(cur.Cum, prev+w)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dists.dss: %w", err)
	}
	if cur != nil {
		return nil, fmt.Errorf("dists.dss: distribution %s has no END", cur.Name)
	}
	return out, nil
}
