package postmark

import (
	"context"
	"strconv"
)

// Kind is a file operation.
type Kind uint8

const (
	Create Kind = iota
	Read
	Append
	Delete
)

// kindNames are the operations' names in results, in the order reports list them.
var kindNames = [...]string{Create: "create", Read: "read", Append: "append", Delete: "delete"}

func (k Kind) String() string { return kindNames[k] }

// OpNames lists the operations in the order reports list them.
func OpNames() []string { return kindNames[:] }

// Op is one file operation of the workload.
type Op struct {
	Kind Kind
	// Slot is the file's place in the file table.
	Slot int
	// File is the file's number, which is its name; Subdir its subdirectory, -1 for
	// none.
	File, Subdir int
	// Bytes is what the operation reads or writes: the new file's size, the bytes
	// appended, the whole file read; for a delete the size of the file removed.
	Bytes int
}

// Path is the operation's file relative to the working directory: "17" or "s3/17",
// as Postmark names them.
func (o Op) Path() string {
	if o.Subdir < 0 {
		return strconv.Itoa(o.File)
	}
	return "s" + strconv.Itoa(o.Subdir) + "/" + strconv.Itoa(o.File)
}

// slot is one entry of the file table; size 0 marks a free slot, as in Postmark.
// Sizes are at most maxSize (2^30) and subdirectories maxSubdirs; a file's number is
// at most maxFiles plus 2^31 transactions, below 2^32. Twelve bytes rather than 24
// keep twice the table in the processor's caches, where each transaction draws slots
// at random.
type slot struct {
	size, subdir int32
	file         uint32
}

// slotBytes is the memory of one slot, for the capacity estimate.
const slotBytes = 12

// Generator produces Postmark 1.5's operations for a Config, in Postmark's order and
// with Postmark's random numbers, without doing any I/O: the runner executes them and
// Simulate only counts them. What follows Postmark's run (postmark.c, read, not copied):
//
//   - the generator is seeded with the seed, and 2 x SizeMax numbers fill the source
//     text files are written from (printable characters, 32 + a number below 95);
//   - the file table has 2 x Files slots; a new file takes the slot after the last one
//     taken, or else the first free one from the start;
//   - a new file's name is the count of files created so far; with more than one
//     subdirectory a number below Subdirs picks it, before the size is drawn;
//   - a transaction first draws below 10: under ReadBias it reads a file, otherwise it
//     appends to one; the file is drawn among all slots until a used one comes up; an
//     append to a file already at SizeMax does nothing and is not counted; it then
//     draws below 10 again: under CreateBias it creates a file (nothing when the table
//     is full), otherwise it deletes a file drawn as above; a bias of -1 skips that
//     half with no draw;
//   - before each transaction, a pool with no files left ends the transactions early
//     ("out of files");
//   - at the end every remaining file is deleted in slot order.
type Generator struct {
	cfg       Config
	rng       mt19937
	source    []byte
	table     []slot
	allocated int // Postmark's file_allocated: where the next new file looks first
	free      freeSlots
	// created counts every file created (its value names the next file); deleted
	// every file deleted.
	created, deleted int
}

// NewGenerator seeds the generator and draws the source text, as Postmark does before
// its first file. cfg must be valid.
func NewGenerator(cfg Config) *Generator {
	g, _ := newGenerator(context.Background(), cfg, true)
	return g
}

// sourceChunk is how many numbers of the source text are drawn between two looks at
// the context: a few milliseconds' worth.
const sourceChunk = 1 << 20

// newGenerator is NewGenerator, stopped by ctx (with its cause) while it draws the
// source text: twice SizeMax numbers, 2^31 for the largest, seconds. Without source
// (a simulation, which writes nothing) the numbers are only skipped.
func newGenerator(ctx context.Context, cfg Config, source bool) (*Generator, error) {
	g := &Generator{cfg: cfg, table: make([]slot, 2*cfg.Files), free: newFreeSlots(2 * cfg.Files)}
	g.rng.seedPostmark(uint32(cfg.Seed))
	// Postmark draws twice the largest size; a write never reads past SizeMax bytes
	// of it (each file and each append starts again at its beginning), so only those
	// are kept and the rest are skipped.
	skip := 2 * cfg.SizeMax
	if source {
		g.source = make([]byte, cfg.SizeMax)
		for lo := 0; lo < len(g.source); lo += sourceChunk {
			if err := context.Cause(ctx); err != nil {
				return nil, err
			}
			for i := lo; i < min(lo+sourceChunk, len(g.source)); i++ {
				g.source[i] = byte(32 + g.rng.rnd(95))
			}
		}
		skip -= cfg.SizeMax
	}
	for ; skip > 0; skip -= sourceChunk {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		g.rng.discard(min(skip, sourceChunk))
	}
	return g, nil
}

// Source is the text files are written from: a write of n bytes writes its first n.
func (g *Generator) Source() []byte { return g.source }

// Live is the number of files in the pool now.
func (g *Generator) Live() int { return g.created - g.deleted }

// PoolFile is the next file of the initial pool.
func (g *Generator) PoolFile() Op {
	op, _ := g.create()
	return op
}

// Transaction appends the next transaction's operations to ops, in the order Postmark
// runs them (read or append, then create or delete); ok is false, with nothing
// appended, when the pool has run out of files.
func (g *Generator) Transaction(ops []Op) (_ []Op, ok bool) {
	if g.created == g.deleted {
		return ops, false
	}
	if g.cfg.ReadBias != -1 {
		if g.rng.rnd(10) < g.cfg.ReadBias {
			s := g.usedSlot()
			ops = append(ops, g.op(Read, s, int(g.table[s].size)))
		} else if op, done := g.appendTo(g.usedSlot()); done {
			ops = append(ops, op)
		}
	}
	if g.cfg.CreateBias != -1 {
		if g.rng.rnd(10) < g.cfg.CreateBias {
			if op, done := g.create(); done {
				ops = append(ops, op)
			}
		} else {
			ops = append(ops, g.remove(g.usedSlot()))
		}
	}
	return ops, true
}

// Remaining appends a delete of every file left, in slot order.
func (g *Generator) Remaining(ops []Op) []Op {
	for s := range g.table {
		if g.table[s].size > 0 {
			ops = append(ops, g.remove(s))
		}
	}
	return ops
}

func (g *Generator) op(k Kind, s, bytes int) Op {
	e := g.table[s]
	return Op{Kind: k, Slot: s, File: int(e.file), Subdir: int(e.subdir), Bytes: bytes}
}

// create takes a free slot, names the file and draws its size; done is false when the
// table is full.
func (g *Generator) create() (op Op, done bool) {
	s := g.freeSlot()
	if s < 0 {
		return Op{}, false
	}
	e := &g.table[s]
	e.subdir = -1
	if g.cfg.Subdirs > 1 {
		e.subdir = int32(g.rng.rnd(g.cfg.Subdirs))
	}
	g.created++
	e.file = uint32(g.created)
	e.size = int32(g.cfg.SizeMin + g.rng.rnd(g.cfg.SizeMax-g.cfg.SizeMin))
	return g.op(Create, s, int(e.size)), true
}

// appendTo grows the file in slot s by 1 to SizeMax-size bytes; done is false when it
// is already at SizeMax.
func (g *Generator) appendTo(s int) (op Op, done bool) {
	e := &g.table[s]
	size := int(e.size)
	if size >= g.cfg.SizeMax {
		return Op{}, false
	}
	n := g.rng.rnd(g.cfg.SizeMax-size) + 1
	e.size = int32(size + n)
	return g.op(Append, s, n), true
}

func (g *Generator) remove(s int) Op {
	op := g.op(Delete, s, int(g.table[s].size))
	g.table[s].size = 0
	g.free.free(s)
	g.deleted++
	return op
}

// freeSlot is Postmark's find_free_file: the slot after the last one taken when it
// is free, else the first free one from the start (freeSlots), which it takes.
func (g *Generator) freeSlot() int {
	i := g.allocated
	if i >= len(g.table) || g.table[i].size != 0 {
		if i = g.free.first(); i < 0 {
			return -1
		}
	}
	g.allocated = i + 1
	g.free.take(i)
	return i
}

// usedSlot is Postmark's find_used_file: draw slots until a used one comes up. Only
// called with at least one file in the pool.
func (g *Generator) usedSlot() int {
	for {
		if s := g.rng.rnd(len(g.table)); g.table[s].size != 0 {
			return s
		}
	}
}
