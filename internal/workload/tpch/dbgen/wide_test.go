package dbgen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// testdata/wide holds output of the TPC's dbgen (2.17.3 sources, built outside
// this repository) at SF 30000 and 100000, where O_CUSTKEY and L_PARTKEY come
// from its 64-bit generator. The TPC's own reference files for these scale
// factors are not available to us. File names give the dbgen command:
//
//	sf<SF>_<table>.tbl.<S>_C<C>_S<S>.head  dbgen -s SF -T t -C C -S S, its first lines
//	sf<SF>_<table>.tbl.<S>_C<C>_S<S>.sha256  the whole chunk: "<sha256> <lines>"
//	sf<SF>_<table>.tbl.u<N>_C<N>_S<S>.head  dbgen -s SF -U N [-S S] (S 0: no -S);
//	   set 2 of "dbgen -U 2" walks the 64-bit chain through all of set 1
//	   (45M orders at SF 30000, ~2 s): it is the one slow case here
var wideName = regexp.MustCompile(`^sf(\d+)_(\w+)\.tbl\.(u?)(\d+)_C(\d+)_S(\d+)\.(head|sha256)$`)

// errEnough stops a generation once a test has the lines it compares.
var errEnough = errors.New("enough lines")

// headWriter keeps the first max lines and then fails, so a chunk of billions
// of rows can be checked by its beginning.
type headWriter struct {
	buf   bytes.Buffer
	lines int
	max   int
}

func (w *headWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && w.lines < w.max {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.buf.Write(p)
			return n, nil
		}
		w.buf.Write(p[:i+1])
		p = p[i+1:]
		w.lines++
	}
	if len(p) > 0 {
		return 0, errEnough
	}
	return n, nil
}

func TestReferenceWideScale(t *testing.T) {
	files, _ := filepath.Glob("testdata/wide/sf*")
	if len(files) == 0 {
		t.Fatal("no reference files in testdata/wide")
	}
	seen := map[string]bool{}
	for _, f := range files {
		m := wideName.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			t.Fatalf("%s: name does not say which dbgen command made it", f)
		}
		sf, _ := strconv.ParseFloat(m[1], 64)
		seen[m[1]] = true
		table, update := m[2], m[3] == "u"
		n, _ := strconv.Atoi(m[4])
		c, _ := strconv.Atoi(m[5])
		s, _ := strconv.Atoi(m[6])
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Count(want, []byte("\n"))
			var sum string
			if m[7] == "sha256" {
				fs := strings.Fields(string(want))
				sum = fs[0]
				lines, _ = strconv.Atoi(fs[1])
			}
			w := &headWriter{max: lines}
			var out io.Writer = w
			switch {
			case update && table == "orders":
				err = generateUpdate(context.Background(), sf, n, max(s, 1), out, nil, nil)
			case update:
				err = generateUpdate(context.Background(), sf, n, max(s, 1), nil, out, nil)
			default:
				err = Generate(context.Background(), Options{SF: sf, Chunks: c, Step: s, Workers: 3}, map[string]io.Writer{table: out})
			}
			if err != nil && !errors.Is(err, errEnough) {
				t.Fatal(err)
			}
			if w.lines != lines {
				t.Fatalf("generated %d lines, want %d", w.lines, lines)
			}
			if sum != "" {
				h := sha256.Sum256(w.buf.Bytes())
				if got := hex.EncodeToString(h[:]); got != sum {
					t.Fatalf("chunk's SHA-256 %s, dbgen's %s", got, sum)
				}
				return
			}
			if !bytes.Equal(w.buf.Bytes(), want) {
				t.Fatalf("differs from dbgen: %s", firstDiff(w.buf.Bytes(), want))
			}
		})
	}
	if !seen["30000"] || !seen["100000"] {
		t.Errorf("reference files cover SFs %v, want 30000 and 100000", seen)
	}
}
