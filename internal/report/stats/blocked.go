package stats

import (
	"encoding/json"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Blocked is a comparison of two cells' runs made within blocks (the hosts they ran
// on): the additive model value = block + cell, fitted by least squares, so that a
// difference between the blocks (one machine faster than another) is not taken for
// a difference between the cells. With one block it is Student's two-sample t-test.
type Blocked struct {
	// Diff estimates mean(x) - mean(base) within blocks: the mean of each shared
	// block's difference, block h weighted by n_base,h x n_x,h / (n_base,h + n_x,h)
	// (the least-squares estimate of the additive model).
	Diff float64
	// DiffPct is 100 x Diff / |mean of base's values in the shared blocks|.
	DiffPct float64
	// SE is Diff's standard error, sqrt(s² / sum of the weights), with s² the
	// residual variance of the model (RSS / DF); T is Diff / SE.
	SE, T float64
	// DF is n - (blocks + 1): the values less the model's parameters (a level per
	// block, and the difference).
	DF float64
	// P is the two-sided p-value of T on DF degrees of freedom; NaN when DF < 1.
	P           float64
	Significant bool
	// Shared counts the blocks that hold runs of both cells. With none the cells
	// can only be compared across blocks, and every other field is NaN.
	Shared int
}

// blockedJSON is Blocked in JSON, with null for NaN and infinities.
type blockedJSON struct {
	Diff        *float64 `json:"diff"`
	DiffPct     *float64 `json:"diff_pct"`
	SE          *float64 `json:"se"`
	T           *float64 `json:"t"`
	DF          *float64 `json:"df"`
	P           *float64 `json:"p"`
	Significant bool     `json:"significant"`
	Shared      int      `json:"shared_blocks"`
}

// MarshalJSON writes NaN fields (a comparison that cannot be made or tested) as
// null.
func (b Blocked) MarshalJSON() ([]byte, error) {
	return json.Marshal(blockedJSON{Nullable(b.Diff), Nullable(b.DiffPct), Nullable(b.SE), Nullable(b.T), Nullable(b.DF), Nullable(b.P), b.Significant, b.Shared})
}

// UnmarshalJSON reads what MarshalJSON wrote, null as NaN.
func (b *Blocked) UnmarshalJSON(data []byte) error {
	var j blockedJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*b = Blocked{orNaN(j.Diff), orNaN(j.DiffPct), orNaN(j.SE), orNaN(j.T), orNaN(j.DF), orNaN(j.P), j.Significant, j.Shared}
	return nil
}

// BlockedCompare compares x with base within blocks: base[i] ran in block
// baseBlock[i], x[i] in xBlock[i].
func BlockedCompare(base, x []float64, baseBlock, xBlock []string) Blocked {
	nan := math.NaN()
	out := Blocked{Diff: nan, DiffPct: nan, SE: nan, T: nan, DF: nan, P: nan}
	type side struct {
		n   int
		sum float64
	}
	b, xs := map[string]*side{}, map[string]*side{}
	var order []string // the blocks, as first seen
	add := func(m map[string]*side, block string, v float64) {
		if b[block] == nil && xs[block] == nil {
			order = append(order, block)
		}
		if m[block] == nil {
			m[block] = &side{}
		}
		m[block].n++
		m[block].sum += v
	}
	for i, v := range base {
		add(b, baseBlock[i], v)
	}
	for i, v := range x {
		add(xs, xBlock[i], v)
	}
	var wsum, dsum, baseSum float64
	baseN := 0
	for _, h := range order {
		bh, xh := b[h], xs[h]
		if bh == nil || xh == nil {
			continue
		}
		out.Shared++
		w := float64(bh.n*xh.n) / float64(bh.n+xh.n)
		wsum += w
		dsum += w * (xh.sum/float64(xh.n) - bh.sum/float64(bh.n))
		baseSum += bh.sum
		baseN += bh.n
	}
	if out.Shared == 0 {
		return out
	}
	d := dsum / wsum
	out.Diff = d
	if m := baseSum / float64(baseN); m != 0 {
		out.DiffPct = 100 * d / math.Abs(m)
	}
	// The fitted level of each block: with both cells, the mean of its values less
	// Diff for x's; with one, that cell's mean.
	level := map[string]float64{}
	for _, h := range order {
		bh, xh := b[h], xs[h]
		switch {
		case bh != nil && xh != nil:
			level[h] = (bh.sum + xh.sum - float64(xh.n)*d) / float64(bh.n+xh.n)
		case bh != nil:
			level[h] = bh.sum / float64(bh.n)
		default:
			level[h] = xh.sum/float64(xh.n) - d
		}
	}
	var rss float64
	for i, v := range base {
		r := v - level[baseBlock[i]]
		rss += r * r
	}
	for i, v := range x {
		r := v - level[xBlock[i]] - d
		rss += r * r
	}
	out.DF = float64(len(base) + len(x) - len(order) - 1)
	if out.DF < 1 {
		out.DF = nan
		return out
	}
	out.SE = math.Sqrt(rss / out.DF / wsum)
	switch {
	case out.SE == 0 && d == 0:
	case out.SE == 0:
		out.T, out.P = math.Copysign(math.Inf(1), d), 0
	default:
		out.T = d / out.SE
		out.P = math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: out.DF}.Survival(math.Abs(out.T)))
	}
	out.Significant = out.P < Alpha
	return out
}

// Observation is one run's value, its cell (Group) and its host (Block).
type Observation struct {
	Group, Block string
	Value        float64
}

// BlockEffects fits value = cell + block to every observation (on the log of the
// values when all are positive, so that an effect is a ratio) and returns each
// block's effect against the average block, in %: +4.9 means the block's runs are
// 4.9% above what the average block's would be, cell for cell. ok is false when
// the blocks are not linked by cells they share (a block that ran no cell another
// ran): its effect cannot be told apart from its cells', and effects is nil.
func BlockEffects(obs []Observation) (effects map[string]float64, ok bool) {
	if len(obs) == 0 {
		return nil, false
	}
	var blocks, groups []string
	bi, gi := map[string]int{}, map[string]int{}
	logScale := true
	for _, o := range obs {
		if _, seen := bi[o.Block]; !seen {
			bi[o.Block] = len(blocks)
			blocks = append(blocks, o.Block)
		}
		if _, seen := gi[o.Group]; !seen {
			gi[o.Group] = len(groups)
			groups = append(groups, o.Group)
		}
		logScale = logScale && o.Value > 0
	}
	if !linked(obs, bi) {
		return nil, false
	}
	y := make([]float64, len(obs))
	grand := 0.0
	for i, o := range obs {
		y[i] = o.Value
		if logScale {
			y[i] = math.Log(o.Value)
		}
		grand += o.Value
	}
	grand /= float64(len(obs))
	// Backfitting (Gauss-Seidel on the normal equations): each cell's level given
	// the blocks', then each block's given the cells', until they stop moving.
	mu, beta := make([]float64, len(groups)), make([]float64, len(blocks))
	for iter := 0; iter < 10000; iter++ {
		sum, n := make([]float64, len(groups)), make([]float64, len(groups))
		for i, o := range obs {
			sum[gi[o.Group]] += y[i] - beta[bi[o.Block]]
			n[gi[o.Group]]++
		}
		for g := range mu {
			mu[g] = sum[g] / n[g]
		}
		bs, bn := make([]float64, len(blocks)), make([]float64, len(blocks))
		for i, o := range obs {
			bs[bi[o.Block]] += y[i] - mu[gi[o.Group]]
			bn[bi[o.Block]]++
		}
		moved, mean := 0.0, 0.0
		next := make([]float64, len(blocks))
		for h := range next {
			next[h] = bs[h] / bn[h]
			mean += next[h]
		}
		mean /= float64(len(blocks))
		for h := range next {
			next[h] -= mean
			moved = math.Max(moved, math.Abs(next[h]-beta[h]))
		}
		beta = next
		if moved < 1e-13 {
			break
		}
	}
	effects = map[string]float64{}
	for h, name := range blocks {
		if logScale {
			effects[name] = 100 * (math.Exp(beta[h]) - 1)
		} else {
			effects[name] = 100 * beta[h] / math.Abs(grand)
		}
	}
	return effects, true
}

// linked reports whether every block is linked to every other through cells that
// ran in both (union-find over the blocks).
func linked(obs []Observation, bi map[string]int) bool {
	parent := make([]int, len(bi))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	first := map[string]int{}
	for _, o := range obs {
		b := bi[o.Block]
		if f, ok := first[o.Group]; ok {
			parent[find(b)] = find(f)
		} else {
			first[o.Group] = b
		}
	}
	root := find(0)
	for i := range parent {
		if find(i) != root {
			return false
		}
	}
	return true
}
