package postmark

import "context"

// Phase is one of Postmark's three timed phases.
type Phase uint8

const (
	// PoolPhase creates the initial files ("creation alone").
	PoolPhase Phase = iota
	// TransactionsPhase runs the transactions ("mixed with transactions").
	TransactionsPhase
	// DeletePhase deletes the files left ("deletion alone").
	DeletePhase
)

var phaseNames = [...]string{PoolPhase: "create", TransactionsPhase: "transactions", DeletePhase: "delete"}

func (p Phase) String() string { return phaseNames[p] }

// Counts are a run's operations, split as Postmark's report splits them, and the bytes
// they moved.
type Counts struct {
	// Transactions is the number of transactions run (fewer than asked when the pool
	// ran out of files).
	Transactions int64 `json:"transactions"`
	// OutOfFiles says the transactions stopped early because every file had been
	// deleted (Postmark prints "out of files!" and no report).
	OutOfFiles bool `json:"out_of_files"`
	// Created = CreatedAlone (the pool) + CreatedMixed (in transactions).
	Created      int64 `json:"created"`
	CreatedAlone int64 `json:"created_alone"`
	CreatedMixed int64 `json:"created_mixed"`
	Read         int64 `json:"read"`
	Appended     int64 `json:"appended"`
	// Deleted = DeletedAlone (the files left at the end) + DeletedMixed (in
	// transactions).
	Deleted      int64 `json:"deleted"`
	DeletedAlone int64 `json:"deleted_alone"`
	DeletedMixed int64 `json:"deleted_mixed"`
	// BytesRead and BytesWritten are the file data read and written (creates and
	// appends), exactly; Postmark adds them up in single-precision floats.
	BytesRead    int64 `json:"bytes_read"`
	BytesWritten int64 `json:"bytes_written"`
}

// add counts one completed operation of phase p.
func (c *Counts) add(op Op, p Phase) {
	switch op.Kind {
	case Create:
		c.Created++
		if p == PoolPhase {
			c.CreatedAlone++
		} else {
			c.CreatedMixed++
		}
		c.BytesWritten += int64(op.Bytes)
	case Read:
		c.Read++
		c.BytesRead += int64(op.Bytes)
	case Append:
		c.Appended++
		c.BytesWritten += int64(op.Bytes)
	case Delete:
		c.Deleted++
		if p == DeletePhase {
			c.DeletedAlone++
		} else {
			c.DeletedMixed++
		}
	}
}

// Estimate is a run worked out without I/O: its counts and the most its files hold at
// any moment.
type Estimate struct {
	Counts
	// PeakBytes is the largest total size of the files at any moment; PeakFiles the
	// most files at once.
	PeakBytes int64 `json:"peak_bytes"`
	PeakFiles int64 `json:"peak_files"`
}

// Simulate runs cfg's operations without touching a file: the exact counts a run will
// report and its peak size, for the capacity check and for tests. It costs about what
// drawing the random numbers costs (a few nanoseconds each; Expected.Draws says how
// many).
func Simulate(cfg Config) Estimate {
	e, _ := simulate(context.Background(), cfg, nil)
	return e
}

// simulateChunk is how many files or transactions simulate works out between two
// looks at the context: well under a millisecond's worth.
const simulateChunk = 1 << 12

// simulate is Simulate, stopped by ctx (with its cause, and the estimate so far) and
// telling progress, when set, how many numbers the operations have drawn so far
// (Expected.Draws on average in all; the source text's are not counted): first
// once the source text's have been skipped, then now and then, and last at the end.
func simulate(ctx context.Context, cfg Config, progress func(drawn int64)) (Estimate, error) {
	var e Estimate
	if cfg.Idle > 0 {
		return e, nil
	}
	var live, files int64
	track := func(ops []Op, p Phase) {
		for _, op := range ops {
			e.add(op, p)
			switch op.Kind {
			case Create:
				live += int64(op.Bytes)
				files++
			case Append:
				live += int64(op.Bytes)
			case Delete:
				live -= int64(op.Bytes)
				files--
			}
			e.PeakBytes = max(e.PeakBytes, live)
			e.PeakFiles = max(e.PeakFiles, files)
		}
	}
	g, err := newGenerator(ctx, cfg, false)
	if err != nil {
		return e, err
	}
	source := g.rng.drawn()
	look := func() error {
		if progress != nil {
			progress(g.rng.drawn() - source)
		}
		return context.Cause(ctx)
	}
	var ops []Op
	for i := range cfg.Files {
		if i%simulateChunk == 0 {
			if err := look(); err != nil {
				return e, err
			}
		}
		track(append(ops[:0], g.PoolFile()), PoolPhase)
	}
	for i := range cfg.Transactions {
		if i%simulateChunk == 0 {
			if err := look(); err != nil {
				return e, err
			}
		}
		var ok bool
		if ops, ok = g.Transaction(ops[:0]); !ok {
			e.OutOfFiles = true
			break
		}
		e.Transactions++
		track(ops, TransactionsPhase)
	}
	track(g.Remaining(ops[:0]), DeletePhase)
	return e, look()
}
