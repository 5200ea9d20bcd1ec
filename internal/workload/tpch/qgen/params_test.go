package qgen

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// refDir holds the TPC's reference qgen output for SF 1 (subparam_K and the
// commands that made them, CMD_QGEN).
var refDir = filepath.Join("..", "..", "..", "..", "..", "shared", "reference", "tpch", "ref_data_sf1")

// qgenCommand is one line of CMD_QGEN: qgen -s SF -r SEED -l FILE.
type qgenCommand struct {
	sf   float64
	seed int64
	file string
}

func readCommands(t *testing.T) []qgenCommand {
	t.Helper()
	f, err := os.Open(filepath.Join(refDir, "CMD_QGEN"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("reference data missing in CI: %v", err)
		}
		t.Skipf("reference data not available: %v", err)
	}
	defer f.Close()
	var cmds []qgenCommand
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		c := qgenCommand{sf: 1}
		for i := 1; i+1 < len(fields); i++ {
			switch fields[i] {
			case "-s":
				c.sf, err = strconv.ParseFloat(fields[i+1], 64)
			case "-r":
				// qgen reads -r with atol: decimal, leading zeros ignored.
				c.seed, err = strconv.ParseInt(fields[i+1], 10, 64)
			case "-l":
				c.file = fields[i+1]
			}
			if err != nil {
				t.Fatalf("CMD_QGEN line %q: %v", sc.Text(), err)
			}
		}
		if c.file == "" {
			t.Fatalf("CMD_QGEN line %q has no -l", sc.Text())
		}
		cmds = append(cmds, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

// TestReferenceSubparams reproduces every reference parameter file byte for byte.
func TestReferenceSubparams(t *testing.T) {
	cmds := readCommands(t)
	if len(cmds) != 150 {
		t.Fatalf("CMD_QGEN has %d commands, want 150", len(cmds))
	}
	for _, c := range cmds {
		t.Run(c.file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(refDir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := FormatParams(c.sf, c.seed)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Fatalf("qgen -s %v -r %d: got\n%s\nwant\n%s", c.sf, c.seed, got, want)
			}
			// Params must agree with the file line by line.
			for i, line := range strings.Split(strings.TrimSuffix(string(want), "\n"), "\n") {
				p, err := Params(c.sf, c.seed, i+1)
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Join(append([]string{strconv.Itoa(i + 1)}, p...), "\t"); got != line {
					t.Errorf("Params(q%d) = %q, file has %q", i+1, got, line)
				}
			}
		})
	}
}

// TestParamsIndependentOfOtherQueries checks that a query's parameters come from
// its own stream only: drawing one query alone gives what the whole file has.
func TestParamsIndependentOfOtherQueries(t *testing.T) {
	all, err := FormatParams(1, 101000000)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(all, "\n")
	for q := QueryCount; q >= 1; q-- {
		p, err := Params(1, 101000000, q)
		if err != nil {
			t.Fatal(err)
		}
		if got := strconv.Itoa(q) + "\t" + strings.Join(p, "\t"); got != lines[q-1] {
			t.Errorf("q%d alone: %q, in file order: %q", q, got, lines[q-1])
		}
	}
}

// TestDefaultParams checks the qualification parameters against the digest's
// list (Clause 2.4.N.4). qgen spells Q6's discount ".06" and logs Q11's fraction
// unscaled as "0.0001"; the digest writes 0.06.
func TestDefaultParams(t *testing.T) {
	digest := map[int]string{
		1: "90", 2: "15/BRASS/EUROPE", 3: "BUILDING/1995-03-15", 4: "1993-07-01",
		5: "ASIA/1994-01-01", 6: "1994-01-01/.06/24", 7: "FRANCE/GERMANY",
		8: "BRAZIL/AMERICA/ECONOMY ANODIZED STEEL", 9: "green", 10: "1993-10-01",
		11: "GERMANY/0.0001", 12: "MAIL/SHIP/1994-01-01", 13: "special/requests",
		14: "1995-09-01", 15: "1996-01-01", 16: "Brand#45/MEDIUM POLISHED/49/14/23/45/19/3/36/9",
		17: "Brand#23/MED BOX", 18: "300", 19: "Brand#12/Brand#23/Brand#34/1/10/20",
		20: "forest/1994-01-01/CANADA", 21: "SAUDI ARABIA", 22: "13/31/23/29/30/18/17",
	}
	var log strings.Builder
	for q := 1; q <= QueryCount; q++ {
		got := strings.Join(DefaultParams(q), "/")
		if got != digest[q] {
			t.Errorf("DefaultParams(%d) = %q, want %q", q, got, digest[q])
		}
		log.WriteString(strconv.Itoa(q) + "\t" + strings.ReplaceAll(digest[q], "/", "\t") + "\n")
	}
	if got := FormatDefaultParams(); got != log.String() {
		t.Errorf("FormatDefaultParams() =\n%s\nwant\n%s", got, log.String())
	}
	if DefaultParams(0) != nil || DefaultParams(23) != nil {
		t.Error("DefaultParams outside 1..22 must be nil")
	}
	// The returned slice is a copy.
	DefaultParams(1)[0] = "x"
	if DefaultParams(1)[0] != "90" {
		t.Error("DefaultParams returns the package's own slice")
	}
}

func TestQ11FractionScales(t *testing.T) {
	for _, tc := range []struct {
		sf   float64
		want string
	}{{1, "0.0001000000"}, {10, "0.0000100000"}, {0.01, "0.0100000000"}, {100, "0.0000010000"}} {
		p, err := Params(tc.sf, 42, 11)
		if err != nil {
			t.Fatal(err)
		}
		if p[1] != tc.want {
			t.Errorf("SF %v: Q11 fraction %q, want %q", tc.sf, p[1], tc.want)
		}
	}
}

func TestParamsErrors(t *testing.T) {
	for _, q := range []int{0, 23, -1} {
		_, err := Params(1, 1, q)
		if err == nil || !strings.Contains(err.Error(), strconv.Itoa(q)) || !strings.Contains(err.Error(), "1..22") {
			t.Errorf("Params(q=%d) error %v: want one naming %d and 1..22", q, err, q)
		}
	}
	for _, sf := range []float64{0, -1} {
		if _, err := Params(sf, 1, 1); err == nil {
			t.Errorf("Params(sf=%v) succeeded", sf)
		}
		if _, err := FormatParams(sf, 1); err == nil {
			t.Errorf("FormatParams(sf=%v) succeeded", sf)
		}
	}
}

// TestNegativeSeed follows qgen: a negative seed is moved up by 2^31-1.
func TestNegativeSeed(t *testing.T) {
	a, err := FormatParams(1, -5)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FormatParams(1, pmModulus-5)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("seed -5 and 2^31-1-5 differ:\n%s\n%s", a, b)
	}
}
