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
// is one walk of the text stream (done in parallel pieces, see textpar.go) and
// is the largest fixed cost of a run, so it happens once per process.
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

// The pool is not kept as 300 MiB of bytes. dbgen's text is a sequence of
// words, each followed by a space, a comma and a space, " the " (after a
// preposition) or a terminator and a space (at a sentence's end); there are
// about 1,200 such pieces. The pool is held as one 16-bit piece number per
// word (about 100 MiB) plus an index from every 256th byte to the piece that
// covers it (5 MiB), and a comment is decoded from there: the pieces before
// it are skipped by their lengths, its own written with fixed 32-byte stores.
// That keeps the process well under the size of the pool itself, and
// building the pool writes a third of the bytes.

// piece is one entry of the vocabulary: at most 32 bytes of text, padded.
type piece struct {
	q [4]uint64
	n uint8
}

func makePiece(s string) (piece, error) {
	if len(s) > 32 {
		return piece{}, fmt.Errorf("dbgen: dists.dss: text piece %q longer than 32 bytes", s)
	}
	var buf [32]byte
	copy(buf[:], s)
	var p piece
	for k := range p.q {
		p.q[k] = binary.LittleEndian.Uint64(buf[k*8:])
	}
	p.n = uint8(len(s))
	return p, nil
}

func (p *piece) String() string {
	var buf [32]byte
	for k := range p.q {
		binary.LittleEndian.PutUint64(buf[k*8:], p.q[k])
	}
	return string(buf[:p.n])
}

// vocabulary numbers the pieces. term[id*nTerm+t] is the piece id ends with
// when terminator t follows it.
type vocabulary struct {
	pieces []piece
	lens   []uint8 // pieces[i].n, compact for skipping
	ids    map[string]uint16
	term   []uint16
	nTerm  int
}

func (v *vocabulary) id(s string) (uint16, error) {
	if id, ok := v.ids[s]; ok {
		return id, nil
	}
	p, err := makePiece(s)
	if err != nil {
		return 0, err
	}
	if len(v.pieces) >= 1<<16 {
		return 0, fmt.Errorf("dbgen: dists.dss: more than 65536 text pieces")
	}
	id := uint16(len(v.pieces))
	v.pieces = append(v.pieces, p)
	v.lens = append(v.lens, p.n)
	v.ids[s] = id
	return id, nil
}

type posToken struct {
	src  *distribution
	ids  []uint16 // piece of each member of src, with what follows it
	kind byte
}

// sentenceGen is dbgen's text.c grammar walker (txt_sentence, txt_np, txt_vp)
// on the text stream, emitting piece numbers.
type sentenceGen struct {
	seed             int64
	draws            int64
	ds               *distSet
	voc              *vocabulary
	sentForms        [][]posToken
	npForms, vpForms [][]posToken
}

func newSentenceGen(ds *distSet) (*sentenceGen, error) {
	voc := &vocabulary{ids: map[string]uint16{}}
	g := &sentenceGen{seed: streamSeed[sText], ds: ds, voc: voc}
	var err error
	if g.sentForms, err = parseForms(voc, ds.grammar, map[byte]*distribution{'V': nil, 'N': nil, 'P': ds.prepositions, 'T': ds.terminators}, false); err != nil {
		return nil, err
	}
	if g.npForms, err = parseForms(voc, ds.nounPhrases, map[byte]*distribution{'A': ds.articles, 'J': ds.adjectives, 'D': ds.adverbs, 'N': ds.nouns}, true); err != nil {
		return nil, err
	}
	if g.vpForms, err = parseForms(voc, ds.verbPhrases, map[byte]*distribution{'D': ds.adverbs, 'V': ds.verbs, 'X': ds.auxiliaries}, false); err != nil {
		return nil, err
	}
	// A terminator replaces the space after the sentence's last word, and the
	// pool's fill loop adds a space after the sentence.
	terms := ds.terminators.words
	voc.nTerm = len(terms)
	base := len(voc.pieces)
	voc.term = make([]uint16, base*len(terms))
	for id := 0; id < base; id++ {
		s := voc.pieces[id].String()
		for t, w := range terms {
			tid, err := voc.id(s[:len(s)-1] + w + " ")
			if err != nil {
				return nil, err
			}
			voc.term[id*len(terms)+t] = tid
		}
	}
	return g, nil
}

// parseForms splits each syntax string of d into part-of-speech tokens and
// numbers the pieces they can produce. dbgen only handles trailing
// punctuation correctly in noun phrases; the shipped grammar uses it nowhere
// else, and a grammar that did, or a sentence form that does not end with a
// terminator, is rejected here rather than reproduced.
func parseForms(voc *vocabulary, d *distribution, kinds map[byte]*distribution, punctOK bool) ([][]posToken, error) {
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
				if src != nil && tok[0] != 'T' {
					suffix := " "
					switch {
					case tok[0] == 'P':
						suffix = " the "
					case len(tok) == 2:
						suffix = tok[1:] + " "
					}
					for _, m := range src.words {
						id, err := voc.id(m + suffix)
						if err != nil {
							return nil, err
						}
						pt.ids = append(pt.ids, id)
					}
				}
				forms[i] = append(forms[i], pt)
			}
			start = end + 1
		}
		if kinds['T'] != nil && (len(forms[i]) == 0 || forms[i][len(forms[i])-1].kind != 'T') {
			return nil, fmt.Errorf("dbgen: dists.dss %s: sentence form %q does not end with a terminator", d.name, w)
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

// The phrase writers append piece numbers to tok at pos and return the new
// end; tok must have room for a sentence (sentenceSlack).
const sentenceSlack = 64

func (g *sentenceGen) nounPhrase(tok []uint16, pos int) int {
	for _, t := range g.npForms[g.pick(g.ds.nounPhrases)] {
		tok[pos] = t.ids[g.pick(t.src)]
		pos++
	}
	return pos
}

func (g *sentenceGen) verbPhrase(tok []uint16, pos int) int {
	for _, t := range g.vpForms[g.pick(g.ds.verbPhrases)] {
		tok[pos] = t.ids[g.pick(t.src)]
		pos++
	}
	return pos
}

// sentence writes one sentence's pieces, the last one carrying the
// terminator and the space that follows the sentence in the pool.
func (g *sentenceGen) sentence(tok []uint16, pos int) int {
	for _, t := range g.sentForms[g.pick(g.ds.grammar)] {
		switch t.kind {
		case 'V':
			pos = g.verbPhrase(tok, pos)
		case 'N':
			pos = g.nounPhrase(tok, pos)
		case 'P':
			tok[pos] = t.ids[g.pick(t.src)]
			pos++
			pos = g.nounPhrase(tok, pos)
		case 'T':
			w := g.pick(t.src)
			tok[pos-1] = g.voc.term[int(tok[pos-1])*g.voc.nTerm+w]
		}
	}
	return pos
}
