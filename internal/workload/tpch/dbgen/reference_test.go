package dbgen

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// refDir holds the TPC's SF 1 reference output, which the TPC publishes with its
// TPC-H kit and this repository does not carry: the chunks of dbgen -C/-S, the update
// segments of dbgen -U (each trimmed to its first 100 lines) and qgen's parameter
// files, in a directory beside the clone (docs/internals.md, "Tests and CI").
const refDir = "../../../../../shared/reference/tpch/ref_data_sf1"

func requireRefDir(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(refDir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("reference data missing in CI: %v", err)
		}
		t.Skipf("reference data not available: %v", err)
	}
}

var tableLetters = map[string]string{
	"L": "lineitem", "O": "orders", "P": "part", "S": "partsupp",
	"s": "supplier", "c": "customer", "n": "nation", "r": "region",
	"o": "orders", "p": "part",
}

// chunkCounts reads CMD_BASE: table -> the -C value used for its chunks.
func chunkCounts(t *testing.T) map[string]int {
	data, err := os.ReadFile(filepath.Join(refDir, "CMD_BASE"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`-T (\w)\s+-C (\d+)`)
	out := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		c, _ := strconv.Atoi(m[2])
		out[tableLetters[m[1]]] = c
	}
	return out
}

// firstDiff describes the first differing line of got and want.
func firstDiff(got, want []byte) string {
	g := strings.Split(string(got), "\n")
	w := strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %q\nwant: %q", i+1, gl, wl)
		}
	}
	return "identical"
}

func TestReferenceBaseChunks(t *testing.T) {
	requireRefDir(t)
	counts := chunkCounts(t)
	files, _ := filepath.Glob(filepath.Join(refDir, "*.tbl.*"))
	re := regexp.MustCompile(`^(\w+)\.tbl\.(\d+)$`)
	n := 0
	for _, f := range files {
		m := re.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			continue
		}
		table, step := m[1], m[2]
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			chunks := counts[table]
			if chunks == 0 {
				t.Fatalf("CMD_BASE has no -C for %s", table)
			}
			s, _ := strconv.Atoi(step)
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			opt := Options{SF: 1, Chunks: chunks, Step: s, Workers: 2}
			if err := Generate(context.Background(), opt, map[string]io.Writer{table: &got}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("%s differs from dbgen chunk (table %s, -C %d -S %d): %s", filepath.Base(f), table, chunks, s, firstDiff(got.Bytes(), want))
			}
		})
	}
	if n == 0 {
		t.Fatal("no base reference chunks found")
	}
}

// insertSegmentSizes reproduces how dbgen -i splits an update set's orders
// into files (gen_tbl): the first count%segs files get one extra order.
func insertSegmentSizes(count, segs int) []int {
	per := count / segs
	residual := count - per*segs
	var sizes []int
	seg, inSeg, rowsThis := 0, 0, -1
	for i := 0; i < count; i++ {
		rowsThis++
		if seg < residual {
			if rowsThis > per {
				rowsThis = 0
				sizes = append(sizes, inSeg)
				inSeg = 0
				seg++
			}
		} else if rowsThis >= per {
			rowsThis = 0
			sizes = append(sizes, inSeg)
			inSeg = 0
			seg++
		}
		inSeg++
	}
	return append(sizes, inSeg)
}

// deleteSegmentSizes reproduces dbgen -d (pr_drange): files of count/segs+1 keys.
func deleteSegmentSizes(count, segs int) []int {
	per := count/segs + 1
	var sizes []int
	for count > 0 {
		n := min(per, count)
		sizes = append(sizes, n)
		count -= n
	}
	return sizes
}

func lines(b []byte) []string {
	s := strings.Split(string(b), "\n")
	return s[:len(s)-1]
}

func join(ls []string) []byte {
	if len(ls) == 0 {
		return nil
	}
	return []byte(strings.Join(ls, "\n") + "\n")
}

func headLines(ls []string, n int) []string {
	if len(ls) > n {
		return ls[:n]
	}
	return ls
}

type updateSegments struct {
	orders, lineitem, deletes [][]byte
}

// splitUpdate cuts a whole update set into dbgen's -i/-d segment files, each
// trimmed to its first trim lines.
func splitUpdate(orders, lineitem, deletes []byte, insSegs, delSegs, trim int) updateSegments {
	var out updateSegments
	ol, ll := lines(orders), lines(lineitem)
	li := 0
	oi := 0
	for _, sz := range insertSegmentSizes(len(ol), insSegs) {
		seg := ol[oi : oi+sz]
		keys := map[string]bool{}
		for _, o := range seg {
			keys[o[:strings.IndexByte(o, '|')]] = true
		}
		start := li
		for li < len(ll) && keys[ll[li][:strings.IndexByte(ll[li], '|')]] {
			li++
		}
		out.orders = append(out.orders, join(headLines(seg, trim)))
		out.lineitem = append(out.lineitem, join(headLines(ll[start:li], trim)))
		oi += sz
	}
	dl := lines(deletes)
	di := 0
	for _, sz := range deleteSegmentSizes(len(dl), delSegs) {
		out.deletes = append(out.deletes, join(headLines(dl[di:di+sz], trim)))
		di += sz
	}
	return out
}

var (
	updMu    sync.Mutex
	updCache = map[int]updateSegments{}
)

func segmentsFor(t *testing.T, n, ins, del, trim int) updateSegments {
	updMu.Lock()
	defer updMu.Unlock()
	if s, ok := updCache[n]; ok {
		return s
	}
	var o, l, d bytes.Buffer
	if err := GenerateUpdate(context.Background(), 1, n, &o, &l, &d); err != nil {
		t.Fatal(err)
	}
	s := splitUpdate(o.Bytes(), l.Bytes(), d.Bytes(), ins, del, trim)
	updCache[n] = s
	return s
}

func TestReferenceUpdateSegments(t *testing.T) {
	requireRefDir(t)
	cmd, err := os.ReadFile(filepath.Join(refDir, "CMD_UPDATE"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`-i (\d+) -d (\d+)`).FindStringSubmatch(string(cmd))
	tm := regexp.MustCompile(`trim_updates.sh \d+ (\d+)`).FindStringSubmatch(string(cmd))
	if m == nil || tm == nil {
		t.Fatalf("cannot read -i/-d and trim from CMD_UPDATE:\n%s", cmd)
	}
	ins, _ := strconv.Atoi(m[1])
	del, _ := strconv.Atoi(m[2])
	trim, _ := strconv.Atoi(tm[1])

	files, _ := filepath.Glob(filepath.Join(refDir, "*.u*.*"))
	re := regexp.MustCompile(`^(orders\.tbl|lineitem\.tbl|delete)\.u(\d+)\.(\d+)$`)
	sort.Strings(files)
	count := 0
	for _, f := range files {
		mm := re.FindStringSubmatch(filepath.Base(f))
		if mm == nil {
			continue
		}
		count++
		kind := mm[1]
		n, _ := strconv.Atoi(mm[2])
		seg, _ := strconv.Atoi(mm[3])
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s := segmentsFor(t, n, ins, del, trim)
			var list [][]byte
			switch kind {
			case "orders.tbl":
				list = s.orders
			case "lineitem.tbl":
				list = s.lineitem
			default:
				list = s.deletes
			}
			if seg < 1 || seg > len(list) {
				t.Fatalf("segment %d: update set %d has only %d segments", seg, n, len(list))
			}
			got := list[seg-1]
			if !bytes.Equal(got, want) {
				t.Fatalf("%s differs: %s", filepath.Base(f), firstDiff(got, want))
			}
		})
	}
	if count == 0 {
		t.Fatal("no update reference files found")
	}
	// every segment dbgen would write must exist in the reference set, too
	for _, n := range []int{1} {
		s := segmentsFor(t, n, ins, del, trim)
		if _, err := os.Stat(filepath.Join(refDir, fmt.Sprintf("delete.u%d.%d", n, len(s.deletes)))); err != nil {
			t.Errorf("expected %d delete segments for set %d: %v", len(s.deletes), n, err)
		}
		if _, err := os.Stat(filepath.Join(refDir, fmt.Sprintf("delete.u%d.%d", n, len(s.deletes)+1))); err == nil {
			t.Errorf("reference has more than %d delete segments", len(s.deletes))
		}
	}
}
