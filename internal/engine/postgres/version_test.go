package postgres

import "testing"

func TestParseMajor(t *testing.T) {
	for in, want := range map[string]int{
		"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n": 15,
		"postgres (PostgreSQL) 18beta1\n":                        18,
	} {
		if got, err := parseMajor(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseMajor("garbage"); err == nil {
		t.Error("garbage: no error")
	}
}

func TestIOBytesArithmetic(t *testing.T) {
	blocks := pgIO{blocksRead: 10, blocksWritten: 3, blockSize: 8192, walBytes: 1000}.bytes()
	if blocks.Read != 81920 || blocks.Written != 3*8192+1000 || blocks.Log != 1000 {
		t.Errorf("block counters: %+v, want read 81920, written 25576, of which WAL 1000", blocks)
	}
	statIO := pgIO{statIO: true, ioRead: 16384, ioWritten: 8192, walBytes: 500, blocksRead: 99}.bytes()
	if statIO.Read != 16384 || statIO.Written != 8692 || statIO.Log != 500 {
		t.Errorf("pg_stat_io counters: %+v, want read 16384, written 8692, of which WAL 500", statIO)
	}
}
