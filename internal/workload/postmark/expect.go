package postmark

import "math"

// Expected is a run worked out on average from Postmark's rules, in closed form and
// without drawing a number: how much its files hold, at most, and how many numbers
// working it out exactly (Simulate) draws. Check sizes a run with it before the
// simulation, which for the largest parameters takes a minute; docs/postmark.md
// ("How much a run needs") derives it.
type Expected struct {
	// MeanSize is a new file's size on average: SizeMin + (SizeMax - SizeMin - 1)/2,
	// the sizes being SizeMin plus a number drawn evenly below SizeMax - SizeMin.
	MeanSize float64
	// PoolBytes is the pool's size on average, Files x MeanSize; PoolLeast what it
	// holds at least, whatever the draws but for a chance below 10^-9.
	PoolBytes, PoolLeast float64
	// PeakBytes and PeakFiles are the most the files hold at once, on average.
	PeakBytes, PeakFiles float64
	// Draws is the numbers the operations draw, on average: the work of Simulate
	// beyond skipping the source text's 2 x SizeMax numbers.
	Draws float64
}

// leastChance is the chance that the pool holds less than Expected.PoolLeast.
const leastChance = 1e-9

// Expect works cfg out on average. The rules, per transaction, with a the chance of
// an append (1 - ReadBias/10), c of a create (CreateBias/10) and d = 1 - c of a
// delete (a half left out by a bias of -1 has none), for L files of mean size u:
//
//   - a create adds a file of MeanSize m on average;
//   - a delete removes a file drawn evenly, u on average;
//   - an append to a file of size s adds a number drawn evenly from 1 to SizeMax - s,
//     (SizeMax - s + 1)/2 on average, (SizeMax - u + 1)/2 over the files.
//
// So the files change by dL = c - d and dS = b - k S/L a transaction, with
// b = a (SizeMax + 1)/2 + c m and k = a/2 + d. With L = N + dL t, the mean size
// u = S/L solves L du/dt = b - (k + dL) u:
//
//	u(t) = u* + (m - u*) (N/L)^((k + dL)/dL),  u* = b/(k + dL)   (dL != 0)
//	u(t) = u* + (m - u*) exp(-k t/N),            u* = b/k          (dL = 0)
//
// and never above SizeMax. Once creates fill the table's 2N slots, a create succeeds
// only after a delete: L stays 2N and c counts as d from there. L itself is a random
// walk, up 1 with chance c and down 1 with chance d: its most over t transactions is
// on average its drift plus sigma sqrt(2t/pi), the expected running maximum of a walk
// of steps of variance sigma^2 = c + d - (c - d)^2, and never above 2N. The peak is
// the largest L u over the transactions (the pool, N m, at their start).
func Expect(cfg Config) Expected {
	var e Expected
	if cfg.Idle > 0 || cfg.Files <= 0 {
		return e
	}
	n, lo, hi := float64(cfg.Files), float64(cfg.SizeMin), float64(cfg.SizeMax)
	e.MeanSize = lo
	if hi > lo {
		e.MeanSize = lo + (hi-lo-1)/2
	}
	e.PoolBytes = n * e.MeanSize
	// Hoeffding's inequality for a sum of N sizes each within [lo, hi): it falls
	// more than t below its mean with a chance of at most exp(-2t^2/(N (hi-lo)^2)).
	t := (hi - lo) * math.Sqrt(n*math.Log(1/leastChance)/2)
	e.PoolLeast = max(n*lo, e.PoolBytes-t)

	// Per transaction: the chances of an append, a create and a delete, and the
	// files drawn from the table, each drawing slots until a used one comes up.
	var a, c, d, picks float64
	if cfg.ReadBias >= 0 {
		a, picks = float64(10-cfg.ReadBias)/10, 1
	}
	if cfg.CreateBias >= 0 {
		c, d = float64(cfg.CreateBias)/10, float64(10-cfg.CreateBias)/10
		picks += d
	}
	if hi == lo {
		a = 0 // every file is already at SizeMax: appends add nothing
	}
	m := e.MeanSize
	perFile := 1.0 // numbers a new file draws: its size, and its subdirectory
	if cfg.Subdirs > 1 {
		perFile = 2
	}
	// Numbers a transaction draws besides its slots, when a create is c likely.
	draws := func(c float64) float64 {
		var n float64
		if cfg.ReadBias >= 0 {
			n += 1 + a
		}
		if cfg.CreateBias >= 0 {
			n += 1 + c*perFile
		}
		return n
	}
	e.Draws = n * perFile
	e.PeakBytes, e.PeakFiles = e.PoolBytes, n

	// The transactions in up to two stretches: until the table is full (or the pool
	// is empty, which Check refuses), then at a full table.
	total := float64(cfg.Transactions)
	delta := c - d
	t1 := total
	switch {
	case delta > 0:
		t1 = min(total, n/delta)
	case delta < 0: // up to the last file: the pool runs dry there
		t1 = min(total, (n-1)/-delta)
	}
	b, k := a*(hi+1)/2+c*m, a/2+d
	sigma := math.Sqrt(c + d - delta*delta)
	meanAt := func(t float64) (files, mean float64) {
		files = n + delta*t
		switch {
		case delta == 0 && k > 0:
			u := b / k
			mean = u + (m-u)*math.Exp(-k*t/n)
		case delta != 0 && k+delta > 0:
			u := b / (k + delta)
			mean = u + (m-u)*math.Pow(n/files, (k+delta)/delta)
		default: // nothing grows or shrinks the files: deletes only, or neither half
			mean = m
		}
		return files, min(mean, hi)
	}
	e.peak(t1, func(t float64) (float64, float64) {
		files, mean := meanAt(t)
		return min(files+sigma*math.Sqrt(2*t/math.Pi), 2*n), mean
	})
	filesEnd, meanEnd := meanAt(t1)
	// A slot is drawn 2N/L times on average for L files, over the stretch the
	// integral of 2N/(N + dL t).
	e.Draws += t1 * draws(c)
	if delta != 0 {
		e.Draws += picks * 2 * n / delta * math.Log(filesEnd/n)
	} else {
		e.Draws += picks * 2 * t1
	}
	if rest := total - t1; rest > 0 && delta > 0 {
		// The table is full: 2N files; a create follows each delete.
		b2, k2 := a*(hi+1)/2+d*m, a/2+d
		e.peak(rest, func(t float64) (float64, float64) {
			mean := meanEnd
			if k2 > 0 {
				u := b2 / k2
				mean = u + (meanEnd-u)*math.Exp(-k2*t/filesEnd)
			}
			return filesEnd, min(mean, hi)
		})
		e.Draws += rest * (draws(d) + picks) // every slot used: one draw each
	}
	return e
}

// peakSteps is how many points of a stretch peak evaluates: its size is smooth, so
// the largest of them is within a millionth of its largest.
const peakSteps = 1024

// peak raises PeakBytes and PeakFiles to the largest files x mean and files of the
// stretch of length span.
func (e *Expected) peak(span float64, at func(t float64) (files, mean float64)) {
	if span <= 0 {
		return
	}
	for i := 0; i <= peakSteps; i++ {
		files, mean := at(span * float64(i) / peakSteps)
		e.PeakBytes = max(e.PeakBytes, files*mean)
		e.PeakFiles = max(e.PeakFiles, files)
	}
}
