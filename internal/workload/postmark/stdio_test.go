package postmark

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// recordCalls sets the test hook for one test; the calls go to *calls as "open",
// "write 4096", ...
func recordCalls(t *testing.T, calls *[]string) {
	sawCall = func(call string, n int) {
		if call == "read" || call == "write" {
			call += " " + strconv.Itoa(n)
		}
		*calls = append(*calls, call)
	}
	t.Cleanup(func() { sawCall = nil })
}

// The executor makes the system calls Debian's postmark makes, in the same order and
// sizes. Each expected sequence is what strace showed postmark 1.51 doing with the
// same parameters on a file system whose st_blksize is 4096 (so glibc's FILE buffer is
// 4096 bytes); docs/postmark.md ("Against Debian's postmark") says how
// scripts/files-vs-postmark compared them over whole runs.
func TestExecutorCallsAsPostmark(t *testing.T) {
	dir := shortTempDir(t)
	probe := filepath.Join(dir, "probe")
	if err := os.WriteFile(probe, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(probe, &st); err != nil {
		t.Fatal(err)
	}
	if st.Blksize != 4096 {
		t.Fatalf("%s has st_blksize %d: the sequences below are for 4096 (tmpfs and ext4 on x86-64)", dir, st.Blksize)
	}
	src := []byte(strings.Repeat("abcdefghij", 3000))
	rep := func(call string, k int) []string { return slices.Repeat([]string{call}, k) }
	cat := func(parts ...[]string) []string { return slices.Concat(parts...) }
	cases := []struct {
		name                string
		buffered            bool
		readBlock, writeBlk int
		op                  Op
		want                []string
	}{
		// fopen "w", the buffer set up (fstat) on the first fwrite, every full buffer
		// written as it fills, the rest at fclose.
		{"buffered create, small blocks", true, 512, 512, Op{Kind: Create, Bytes: 4732},
			[]string{"open", "fstat", "write 4096", "write 636", "close"}},
		// Blocks above the buffer: whole buffers go straight to the file, the rest
		// waits in the buffer (bufio wrote one 5000-byte call per block).
		{"buffered create, blocks above the buffer", true, 512, 5000, Op{Kind: Create, Bytes: 12889},
			[]string{"open", "fstat", "write 4096", "write 4096", "write 4096", "write 601", "close"}},
		{"buffered create, blocks of two buffers and more", true, 512, 10000, Op{Kind: Create, Bytes: 20000},
			[]string{"open", "fstat", "write 8192", "write 4096", "write 4096", "write 3616", "close"}},
		// fopen "a" seeks to the end at once.
		{"buffered append", true, 512, 512, Op{Kind: Append, Bytes: 2702},
			[]string{"open", "lseek", "fstat", "write 2702", "close"}},
		// Reads refill the buffer with whole-buffer reads; the last one returns less.
		{"buffered read, small blocks", true, 512, 512, Op{Kind: Read, Bytes: 4379},
			[]string{"open", "fstat", "read 4096", "read 4096", "close"}},
		// A block of a buffer or more is read straight, in whole buffers.
		{"buffered read, blocks above the buffer", true, 10000, 512, Op{Kind: Read, Bytes: 20000},
			[]string{"open", "fstat", "read 8192", "read 4096", "read 4096", "read 4096", "close"}},
		// Unbuffered: one call per block, then one for the rest even when it is 0.
		{"unbuffered create, whole blocks", false, 1024, 1024, Op{Kind: Create, Bytes: 4096},
			cat([]string{"open"}, rep("write 1024", 4), []string{"write 0", "close"})},
		{"unbuffered append", false, 1024, 4096, Op{Kind: Append, Bytes: 5000},
			[]string{"open", "write 4096", "write 904", "close"}},
		{"unbuffered read, whole blocks", false, 1024, 1024, Op{Kind: Read, Bytes: 4096},
			cat([]string{"open"}, rep("read 1024", 4), []string{"read 0", "close"})},
		{"delete", true, 512, 512, Op{Kind: Delete}, []string{"unlink"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := PostmarkDefaults()
			cfg.Buffered, cfg.ReadBlock, cfg.WriteBlock = tc.buffered, tc.readBlock, tc.writeBlk
			x := newExecutor(dir, cfg, src)
			path := filepath.Join(dir, "1")
			size := 0
			switch tc.op.Kind {
			case Append:
				size = 6128
			case Read:
				size = tc.op.Bytes
			}
			if tc.op.Kind != Create {
				if err := os.WriteFile(path, src[:size], 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var calls []string
			recordCalls(t, &calls)
			op := tc.op
			op.File, op.Subdir = 1, -1
			if err := x.do(op); err != nil {
				t.Fatal(err)
			}
			sawCall = nil
			if !slices.Equal(calls, tc.want) {
				t.Errorf("calls\n  %v\nwant (postmark's)\n  %v", calls, tc.want)
			}
			if op.Kind == Create || op.Kind == Append {
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if want := string(src[:size]) + string(src[:op.Bytes]); string(got) != want {
					t.Errorf("the file holds %d bytes, not the source's first %d after %d", len(got), op.Bytes, size)
				}
			}
			os.Remove(path)
		})
	}
}

// The C library sizes a FILE's buffer to the file's st_blksize only below BUFSIZ.
func TestStdioBufferSize(t *testing.T) {
	for _, tc := range []struct{ blksize, want int }{{0, 8192}, {-1, 8192}, {512, 512}, {4096, 4096}, {8191, 8191}, {8192, 8192}, {65536, 8192}, {1 << 20, 8192}} {
		if got := stdioBufferSize(int64(tc.blksize)); got != tc.want {
			t.Errorf("st_blksize %d: buffer %d, want %d", tc.blksize, got, tc.want)
		}
	}
}

// setPath builds what filepath.Join would, without its cleaning on every operation,
// and ends it with the NUL the kernel reads up to.
func TestPathOf(t *testing.T) {
	for _, dir := range []string{"/tmp/w", "/tmp/w/", "rel/./w"} {
		x := newExecutor(dir, PostmarkDefaults(), nil)
		for _, op := range []Op{{File: 1, Subdir: -1}, {File: 12345, Subdir: 0}, {File: 7, Subdir: 99}} {
			x.setPath(op)
			if got, want := x.pathString(), filepath.Join(dir, op.Path()); got != want || x.path[len(x.path)-1] != 0 {
				t.Errorf("dir %q, %+v: %q, want %q", dir, op, got, want)
			}
		}
	}
}

// What waits to be written is kept where the caller's blocks are while they follow one
// another in memory, and copied into the buffer when they do not: the system calls and
// the bytes written are the same either way, and fread gives back what was written,
// with the calls that fskip, which copies nothing out, makes too.
func TestStreamBlocksWhereverTheyAre(t *testing.T) {
	dir := shortTempDir(t)
	src := []byte(strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz", 1000))
	const n = 20000
	// The blocks of n bytes: 700 at a time, from the source itself, or from copies
	// of each block (never adjacent), or alternating.
	pieces := func(how string) [][]byte {
		var out [][]byte
		for lo, i := 0, 0; lo < n; lo, i = lo+700, i+1 {
			b := src[lo:min(lo+700, n)]
			if how == "copies" || how == "mixed" && i%2 == 1 {
				b = append([]byte(nil), b...)
			}
			out = append(out, b)
		}
		return out
	}
	var want []string
	for _, how := range []string{"source", "copies", "mixed"} {
		path := filepath.Join(dir, how)
		var calls []string
		recordCalls(t, &calls)
		var s stream
		if err := s.open(append([]byte(path), 0), syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC); err != nil {
			t.Fatal(err)
		}
		for _, b := range pieces(how) {
			if err := s.fwrite(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.fclose(); err != nil {
			t.Fatal(err)
		}
		sawCall = nil
		if want == nil {
			want = calls
			if len(want) < 5 || want[2] != "write 4096" {
				t.Fatalf("%s: calls %v, want whole buffers written", how, calls)
			}
		} else if !slices.Equal(calls, want) {
			t.Errorf("%s: calls\n  %v\nwant (the source's blocks)\n  %v", how, calls, want)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(src[:n]) {
			t.Errorf("%s: the file holds %d bytes that are not the source's first %d", how, len(got), n)
		}
	}

	read := func(keep bool) ([]byte, []string) {
		var calls []string
		recordCalls(t, &calls)
		defer func() { sawCall = nil }()
		var s stream
		if err := s.open(append([]byte(filepath.Join(dir, "mixed")), 0), syscall.O_RDONLY); err != nil {
			t.Fatal(err)
		}
		var got []byte
		p := make([]byte, 700)
		for lo := 0; lo < n; lo += len(p) {
			b := p[:min(len(p), n-lo)]
			clear(b)
			var err error
			if keep {
				err = s.fread(b)
			} else {
				err = s.fskip(b)
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, b...)
		}
		s.f.close()
		return got, calls
	}
	got, calls := read(true)
	if string(got) != string(src[:n]) {
		t.Errorf("fread gave %d bytes that are not the file's", len(got))
	}
	skipped, skipCalls := read(false)
	if !slices.Equal(calls, skipCalls) || len(calls) < 6 {
		t.Errorf("fskip's calls\n  %v\nfread's\n  %v", skipCalls, calls)
	}
	if strings.Trim(string(skipped), "\x00") != "" {
		t.Error("fskip copied what the buffer held")
	}
}
