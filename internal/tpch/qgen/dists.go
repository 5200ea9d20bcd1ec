package qgen

import (
	"bufio"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// distsDSS is the TPC's distribution file (kit revision 2.17.3), the word lists
// and weights qgen draws from (Clause 4.2.2.13, 4.2.3).
//
//go:embed dists.dss
var distsDSS string

// member is one entry of a distribution; cumWeight is the running sum of the
// weights up to and including it, as dbgen stores it.
type member struct {
	text      string
	cumWeight int64
}

// distribution is a named, weighted list from dists.dss.
type distribution struct {
	name    string
	members []member
}

func (d *distribution) total() int64 { return d.members[len(d.members)-1].cumWeight }

// parseDists reads every "BEGIN name ... END name" block of a dists.dss file.
// It follows dbgen's reader: '#' starts a comment, keywords are case-blind,
// "count|n" gives the number of members, other lines are "text|weight", and
// lines without that shape are skipped.
func parseDists(src string) (map[string]*distribution, error) {
	dists := make(map[string]*distribution)
	var cur *distribution
	var want int
	sc := bufio.NewScanner(strings.NewReader(src))
	for lineNo := 1; sc.Scan(); lineNo++ {
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
				cur = &distribution{name: strings.ToLower(f[1])}
				want = -1
			}
			continue
		}
		if len(line) >= 3 && strings.EqualFold(line[:3], "end") {
			if want >= 0 && len(cur.members) != want {
				return nil, fmt.Errorf("dists.dss line %d: distribution %q has %d members, count says %d",
					lineNo, cur.name, len(cur.members), want)
			}
			if len(cur.members) == 0 {
				return nil, fmt.Errorf("dists.dss line %d: distribution %q is empty", lineNo, cur.name)
			}
			dists[cur.name] = cur
			cur = nil
			continue
		}
		text, weight, ok := strings.Cut(line, "|")
		if !ok || text == "" {
			continue
		}
		w, err := strconv.ParseInt(strings.TrimSpace(weight), 10, 64)
		if err != nil {
			continue
		}
		if strings.EqualFold(text, "count") {
			want = int(w)
			continue
		}
		var sum int64
		if n := len(cur.members); n > 0 {
			sum = cur.members[n-1].cumWeight
		}
		cur.members = append(cur.members, member{text: text, cumWeight: sum + w})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dists.dss: %w", err)
	}
	if cur != nil {
		return nil, fmt.Errorf("dists.dss: distribution %q has no END", cur.name)
	}
	return dists, nil
}

// qgenDists are the distributions qgen loads (qgen.c setup()).
type qgenDists struct {
	containers, colors, types, nations, nations2, regions, shipModes, segments, q13a, q13b *distribution
}

var (
	loadOnce sync.Once
	loaded   *qgenDists
	loadErr  error
)

// dists returns the parsed embedded distributions, parsing them on first use.
func dists() (*qgenDists, error) {
	loadOnce.Do(func() {
		all, err := parseDists(distsDSS)
		if err != nil {
			loadErr = err
			return
		}
		get := func(name string) *distribution {
			d := all[strings.ToLower(name)]
			if d == nil && loadErr == nil {
				loadErr = fmt.Errorf("dists.dss: distribution %q missing", name)
			}
			return d
		}
		loaded = &qgenDists{
			containers: get("p_cntr"),
			colors:     get("colors"),
			types:      get("p_types"),
			nations:    get("nations"),
			nations2:   get("nations2"),
			regions:    get("regions"),
			shipModes:  get("smode"),
			segments:   get("msegmnt"),
			q13a:       get("Q13a"),
			q13b:       get("Q13b"),
		}
	})
	if loadErr != nil {
		return nil, fmt.Errorf("qgen: %w", loadErr)
	}
	return loaded, nil
}
