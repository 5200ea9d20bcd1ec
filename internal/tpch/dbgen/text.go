package dbgen

import (
	"encoding/binary"
	"fmt"
	"sync"
)

// textPoolSize is dbgen's TEXT_POOL_SIZE: 300 MiB of pseudo-text from which
// every comment column is cut (Clause 4.2.2, text strings).
const textPoolSize = 300 * 1024 * 1024

var (
	poolOnce sync.Once
	pool     *textPoolT
	poolErr  error
)

// textPool returns the shared text pool, building it on first use. Building
// is sequential (one RNG stream feeds the whole grammar) and is the largest
// fixed cost of a run, so it happens once per process.
func textPool() (*textPoolT, error) {
	poolOnce.Do(func() {
		ds, err := loadDists()
		if err != nil {
			poolErr = err
			return
		}
		g, err := newSentenceGen(ds)
		if err != nil {
			poolErr = err
			return
		}
		pool = g.fillPoolParallel(textPoolSize, poolWorkers())
	})
	return pool, poolErr
}

type posToken struct {
	src   *distribution
	words []word
	kind  byte
	punct byte
}

// word is a distribution member padded to 32 bytes for fixed-size stores.
type word struct {
	q [4]uint64
	n uint8
}

func makeWords(d *distribution) ([]word, error) {
	ws := make([]word, len(d.words))
	for i, s := range d.words {
		if len(s) > 32 {
			return nil, fmt.Errorf("dbgen: dists.dss %s: word %q longer than 32 bytes", d.name, s)
		}
		var buf [32]byte
		copy(buf[:], s)
		for k := range ws[i].q {
			ws[i].q[k] = binary.LittleEndian.Uint64(buf[k*8:])
		}
		ws[i].n = uint8(len(s))
	}
	return ws, nil
}

// sentenceGen is dbgen's text.c grammar walker (txt_sentence, txt_np, txt_vp)
// on the text stream.
type sentenceGen struct {
	seed             int64
	draws            int64
	ds               *distSet
	sentForms        [][]posToken
	npForms, vpForms [][]posToken
}

func newSentenceGen(ds *distSet) (*sentenceGen, error) {
	g := &sentenceGen{seed: streamSeed[sText], ds: ds}
	var err error
	if g.sentForms, err = parseForms(ds.grammar, map[byte]*distribution{'V': nil, 'N': nil, 'P': ds.prepositions, 'T': ds.terminators}, false); err != nil {
		return nil, err
	}
	if g.npForms, err = parseForms(ds.nounPhrases, map[byte]*distribution{'A': ds.articles, 'J': ds.adjectives, 'D': ds.adverbs, 'N': ds.nouns}, true); err != nil {
		return nil, err
	}
	if g.vpForms, err = parseForms(ds.verbPhrases, map[byte]*distribution{'D': ds.adverbs, 'V': ds.verbs, 'X': ds.auxiliaries}, false); err != nil {
		return nil, err
	}
	return g, nil
}

// parseForms splits each syntax string of d into part-of-speech tokens. dbgen
// only handles trailing punctuation correctly in noun phrases; the shipped
// grammar uses it nowhere else, and a grammar that did is rejected here
// rather than reproduced.
func parseForms(d *distribution, kinds map[byte]*distribution, punctOK bool) ([][]posToken, error) {
	forms := make([][]posToken, len(d.words))
	for i, w := range d.words {
		start := 0
		for start <= len(w) {
			end := start
			for end < len(w) && w[end] != ' ' {
				end++
			}
			if end > start {
				tok := w[start:end]
				src, ok := kinds[tok[0]]
				if !ok || len(tok) > 2 || (len(tok) == 2 && !punctOK) {
					return nil, fmt.Errorf("dbgen: dists.dss %s: unsupported syntax token %q", d.name, tok)
				}
				pt := posToken{src: src, kind: tok[0]}
				if src != nil {
					ws, err := makeWords(src)
					if err != nil {
						return nil, err
					}
					pt.words = ws
				}
				if len(tok) == 2 {
					pt.punct = tok[1]
				}
				forms[i] = append(forms[i], pt)
			}
			start = end + 1
		}
	}
	return forms, nil
}

func (g *sentenceGen) pick(d *distribution) int {
	g.seed = nextRand(g.seed)
	g.draws++
	j := 1 + int64(float64(g.seed)/rngModF*float64(d.max()))
	return int(d.pick[j])
}

// The phrase writers below store each word with fixed 32-byte writes into a
// buffer that always has at least sentenceSlack spare bytes, avoiding a
// memmove call per word; only the first len(word) bytes count.

const sentenceSlack = 1024

func putWord(b []byte, pos int, w *word) int {
	_ = b[pos+31]
	binary.LittleEndian.PutUint64(b[pos:], w.q[0])
	binary.LittleEndian.PutUint64(b[pos+8:], w.q[1])
	binary.LittleEndian.PutUint64(b[pos+16:], w.q[2])
	binary.LittleEndian.PutUint64(b[pos+24:], w.q[3])
	return pos + int(w.n)
}

func (g *sentenceGen) nounPhrase(b []byte, pos int) int {
	for _, t := range g.npForms[g.pick(g.ds.nounPhrases)] {
		pos = putWord(b, pos, &t.words[g.pick(t.src)])
		if t.punct != 0 {
			b[pos] = t.punct
			pos++
		}
		b[pos] = ' '
		pos++
	}
	return pos
}

func (g *sentenceGen) verbPhrase(b []byte, pos int) int {
	for _, t := range g.vpForms[g.pick(g.ds.verbPhrases)] {
		pos = putWord(b, pos, &t.words[g.pick(t.src)])
		b[pos] = ' '
		pos++
	}
	return pos
}

// sentence writes one sentence (without a trailing space) at b[pos:] and
// returns the new end; b must have sentenceSlack bytes free after pos.
func (g *sentenceGen) sentence(b []byte, pos int) int {
	for _, t := range g.sentForms[g.pick(g.ds.grammar)] {
		switch t.kind {
		case 'V':
			pos = g.verbPhrase(b, pos)
		case 'N':
			pos = g.nounPhrase(b, pos)
		case 'P':
			pos = putWord(b, pos, &t.words[g.pick(t.src)])
			pos += copy(b[pos:], " the ")
			pos = g.nounPhrase(b, pos)
		case 'T':
			// terminators replace the space after the previous word
			pos = putWord(b, pos-1, &t.words[g.pick(t.src)])
		}
	}
	return pos
}

// The pool is the endless stream "S1 S2 S3 ..." of sentences, each followed by
// one space, cut at textPoolSize bytes (dbg_text's fill loop).

// fillPool builds the pool sequentially.
func (g *sentenceGen) fillPool(size int) []byte {
	p := allocPoolMem(size + sentenceSlack)
	pos := 0
	for pos < size {
		pos = g.sentence(p, pos)
		p[pos] = ' '
		pos++
	}
	return p[:size]
}
