package emulator

import "sort"

// chunkSize is the unit in which files are laid out on the emulated device. A megabyte
// keeps a file's sequential run sequential on the device while two files growing at
// once interleave, as extents of two appending files do on a real file system.
const chunkSize = 1 << 20

// layout places files on the device: the model sees device offsets, the kernel gives
// file offsets. A file seen for the first time gets its current size as one contiguous
// run (a file written before the mount was laid out by a file system that allocated it
// mostly in one piece); growth beyond that takes the next free chunks in the order it
// happens. Chunks of deleted files are not reused: the device offset only grows, and
// the model wraps offsets past its capacity.
type layout struct {
	next  int64 // next free device chunk
	files map[uint64]*fileExtents
	// mapped, when set, is told of every run of chunks laid out: n chunks of file
	// from file chunk f at device chunk d (the preload ring publishes them).
	mapped func(file uint64, f, d, n int64)
}

func (l *layout) tell(file uint64, f, d, n int64) {
	if l.mapped != nil && n > 0 {
		l.mapped(file, f, d, n)
	}
}

type fileExtents struct {
	ext []extent // sorted by file chunk, disjoint
}

// extent maps n file chunks from file chunk f to device chunks from d.
type extent struct{ f, d, n int64 }

func newLayout() *layout { return &layout{files: make(map[uint64]*fileExtents)} }

// open records a file and, the first time, lays out its current size.
func (l *layout) open(file uint64, size int64) {
	if _, ok := l.files[file]; ok {
		return
	}
	fe := &fileExtents{}
	l.files[file] = fe
	if n := (size + chunkSize - 1) / chunkSize; n > 0 {
		fe.ext = append(fe.ext, extent{f: 0, d: l.next, n: n})
		l.tell(file, 0, l.next, n)
		l.next += n
	}
}

// device returns the device offset of a file offset of a file of fileSize bytes. An
// unmapped chunk past the file's mapped end is allocated on first touch together with
// every chunk up to it and up to the file's end, so a file extended by truncate or
// fallocate and then read at random is laid out in file order, not in read order.
func (l *layout) device(file uint64, off, fileSize int64) int64 {
	if off < 0 {
		off = 0
	}
	fe, ok := l.files[file]
	if !ok {
		l.open(file, 0)
		fe = l.files[file]
	}
	c := off / chunkSize
	i := sort.Search(len(fe.ext), func(i int) bool { return fe.ext[i].f+fe.ext[i].n > c })
	if i < len(fe.ext) && fe.ext[i].f <= c {
		e := fe.ext[i]
		return (e.d+c-e.f)*chunkSize + off%chunkSize
	}
	// Not mapped: allocate from the end of the previous extent (or 0) up to c.
	start := int64(0)
	if i > 0 {
		start = fe.ext[i-1].f + fe.ext[i-1].n
	}
	if i < len(fe.ext) {
		// a hole before an existing extent: map just this chunk
		start = c
	}
	end := c
	if i == len(fe.ext) && fileSize > 0 {
		end = max(end, (fileSize-1)/chunkSize)
	}
	n := end - start + 1
	e := extent{f: start, d: l.next, n: n}
	l.tell(file, start, l.next, n)
	l.next += n
	if i > 0 && i == len(fe.ext) {
		if p := &fe.ext[i-1]; p.f+p.n == e.f && p.d+p.n == e.d {
			p.n += e.n
			return (p.d+c-p.f)*chunkSize + off%chunkSize
		}
	}
	fe.ext = append(fe.ext, extent{})
	copy(fe.ext[i+1:], fe.ext[i:])
	fe.ext[i] = e
	return (e.d+c-e.f)*chunkSize + off%chunkSize
}
