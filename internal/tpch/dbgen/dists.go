package dbgen

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// distsFile is the TPC's dists.dss (rev 2.17.3): weighted word lists and the
// text grammar (Clause 4.2.2, text strings). It is embedded so generation never
// depends on files at run time.
//
//go:embed dists.dss
var distsFile []byte

// distribution is one named list of dists.dss. cum holds cumulative weights as
// dbgen's read_dist stores them; pick maps a drawn weight to an index.
type distribution struct {
	name  string
	words []string
	cum   []int64
	pick  []int32 // pick[j] = first index with cum >= j, for j in 1..max
}

func (d *distribution) max() int64 { return d.cum[len(d.cum)-1] }

// pickIndex is dbgen's pick_str: draw j in [1, max] and return the first member
// whose cumulative weight reaches j.
func (d *distribution) pickIndex(r *rowSeeds, s int) int {
	j := r.random(1, d.max(), s)
	return int(d.pick[j])
}

type distSet struct {
	nations, regions, priorities, instructs, shipModes, returnFlags *distribution
	segments, colors, partTypes, containers                         *distribution
	nouns, verbs, adjectives, adverbs, auxiliaries, terminators     *distribution
	articles, prepositions, grammar, nounPhrases, verbPhrases       *distribution
}

var (
	distsOnce sync.Once
	dists     *distSet
	distsErr  error
)

func loadDists() (*distSet, error) {
	distsOnce.Do(func() {
		all, err := parseDists(distsFile)
		if err != nil {
			distsErr = err
			return
		}
		get := func(name string) *distribution {
			d := all[name]
			if d == nil && distsErr == nil {
				distsErr = fmt.Errorf("dbgen: dists.dss has no distribution %q", name)
			}
			return d
		}
		ds := &distSet{
			nations: get("nations"), regions: get("regions"), priorities: get("o_oprio"),
			instructs: get("instruct"), shipModes: get("smode"), returnFlags: get("rflag"),
			segments: get("msegmnt"), colors: get("colors"), partTypes: get("p_types"),
			containers: get("p_cntr"), nouns: get("nouns"), verbs: get("verbs"),
			adjectives: get("adjectives"), adverbs: get("adverbs"), auxiliaries: get("auxillaries"),
			terminators: get("terminators"), articles: get("articles"), prepositions: get("prepositions"),
			grammar: get("grammar"), nounPhrases: get("np"), verbPhrases: get("vp"),
		}
		if distsErr == nil {
			dists = ds
		}
	})
	return dists, distsErr
}

// parseDists reads the dists.dss format the way read_dist does: '#' starts a
// comment, "BEGIN name" ... "END" delimit a list, "token|weight" lines add a
// member, and the "count" pseudo-member gives the number of members.
func parseDists(data []byte) (map[string]*distribution, error) {
	out := map[string]*distribution{}
	var cur *distribution
	var want int64
	sc := bufio.NewScanner(bytes.NewReader(data))
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if line == "" {
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
			if want >= 0 && int64(len(cur.words)) != want {
				return nil, fmt.Errorf("dbgen: dists.dss line %d: %s has %d members, count says %d", lineNo, cur.name, len(cur.words), want)
			}
			cur.buildPick()
			out[cur.name] = cur
			cur = nil
			continue
		}
		bar := strings.IndexByte(line, '|')
		if bar < 0 {
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
		if n := len(cur.cum); n > 0 {
			prev = cur.cum[n-1]
		}
		cur.words = append(cur.words, token)
		cur.cum = append(cur.cum, prev+w)
	}
	return out, sc.Err()
}

func (d *distribution) buildPick() {
	if len(d.cum) == 0 {
		return
	}
	max := d.max()
	if max < 1 || max > 1<<20 {
		return
	}
	d.pick = make([]int32, max+1)
	i := 0
	for j := int64(1); j <= max; j++ {
		for d.cum[i] < j {
			i++
		}
		d.pick[j] = int32(i)
	}
}
