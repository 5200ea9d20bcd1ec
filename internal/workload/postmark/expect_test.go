package postmark

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"tierbench/internal/capacity"
)

// near says whether got is within rel (a fraction) of want.
func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// Expect against values worked out by hand from Postmark's rules (docs/postmark.md,
// "How much a run needs").
func TestExpectByHand(t *testing.T) {
	for _, tc := range []struct {
		name                string
		cfg                 Config
		mean, peak, files   float64
		draws               float64 // 0: not checked
		exactlyAsSimulation bool
	}{
		{
			// The run of 40 million files of up to 1 GiB: a size is 500 + a number below
			// 2^30 - 500, 500 + (2^30 - 501)/2 = 536,871,161.5 bytes on average, and the
			// pool 4e7 times that, 2.147484646e16 bytes (19.07 PiB). Its 500 transactions
			// (biases 5: a = c = d = 1/2) move the mean towards
			// u* = (a (2^30+1)/2 + c m)/(a/2 + d) = 715,828,049.33 by
			// (u* - m)(1 - exp(-0.75 x 500/4e7)) = 1677.71 bytes, to 536,872,839.21; the
			// pool's walk of 500 steps of variance 1 reaches sqrt(1000/pi) = 17.84 files
			// above 4e7 on average: 40,000,017.84 x 536,872,839.21 = 2.1474923147e16.
			name: "the issue's 40 million files of up to 1 GiB",
			cfg:  small(func(c *Config) { c.Files, c.Transactions, c.SizeMin, c.SizeMax = 40_000_000, 500, 500, 1<<30 }),
			mean: 536_871_161.5, peak: 2.1474923147e16, files: 40_000_017.84,
		},
		{
			// 100 transactions per file settle the mean where appends and creates add
			// what deletes remove: u* = (1/4 x 4001 + 1/2 x 2499.5)/(3/4) = 3000 bytes;
			// the walk of 100,000 steps reaches sqrt(200000/pi) = 252.31 files above
			// 1000: 1252.31 x 3000 = 3,756,939.8.
			name: "the steady state",
			cfg:  small(func(c *Config) { c.Files, c.Transactions, c.SizeMin, c.SizeMax = 1000, 100_000, 1000, 4000 }),
			mean: 2499.5, peak: 3_756_939.8, files: 1252.31,
		},
		{
			// Every transaction reads and creates: 100 files more fill the table's 200
			// slots after 100 transactions, then creates do nothing: 200 x 1000 bytes,
			// with no chance in it.
			name: "creates fill the table",
			cfg: small(func(c *Config) {
				c.Files, c.Transactions, c.ReadBias, c.CreateBias, c.SizeMin, c.SizeMax = 100, 1000, 10, 10, 1000, 1000
			}),
			mean: 1000, peak: 200_000, files: 200, exactlyAsSimulation: true,
		},
		{
			// Appends only, one a transaction on average per file: the gap to 1001 of
			// 500.5 bytes halves with each append, a Poisson number with mean 1 of
			// them, so exp(-1/2) of it is left: 1002 - 501.5 exp(-1/2) = 697.82 bytes
			// a file (the +1 of an append's mean counted), 697,824.9 in all.
			name: "appends only",
			cfg: small(func(c *Config) {
				c.Files, c.Transactions, c.ReadBias, c.CreateBias, c.SizeMin, c.SizeMax = 1000, 1000, 0, -1, 1, 1001
			}),
			mean: 500.5, peak: 697_824.9, files: 1000,
			// 1000 sizes; per transaction an append's 1 + 1 for its size + 2 for a slot
			// (1000 files in 2000 slots): 1000 + 4 x 1000.
			draws: 5000,
		},
		{
			// Deletes only: the pool, 1000 x (1000 + 1999/2), is the most there is.
			name: "deletes only",
			cfg: small(func(c *Config) {
				c.Files, c.Transactions, c.ReadBias, c.CreateBias, c.SizeMin, c.SizeMax = 1000, 500, 10, 0, 1000, 3000
			}),
			mean: 1999.5, peak: 1_999_500, files: 1000,
		},
		{
			// Postmark's defaults: the mean grows over 500 transactions of 500 files
			// from 5249.5 towards (1/4 x 10001 + 1/2 x 5249.5)/(3/4) = 6833.33, by
			// (6833.33 - 5249.5)(1 - exp(-3/4)) = 835.67, to 6085.17; the walk reaches
			// 17.84 files above 500 at the end, where both are largest:
			// 517.84 x 6085.17 = 3,151,142. The numbers drawn: 500 sizes, then per
			// transaction 1 + 1/2 (read or append, and an append's size), 1 + 1/2
			// (create or delete, and a new file's size) and 3/2 slots (one read or
			// appended, half a deleted) at 2 draws each in a half-full table:
			// 500 + 500 x 6.
			name: "Postmark's defaults",
			cfg:  PostmarkDefaults(),
			mean: 5249.5, peak: 3_151_142, files: 517.84, draws: 3500,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := Expect(tc.cfg)
			if e.MeanSize != tc.mean || e.PoolBytes != tc.mean*float64(tc.cfg.Files) {
				t.Errorf("mean size %v, pool %v: want %v, %v", e.MeanSize, e.PoolBytes, tc.mean, tc.mean*float64(tc.cfg.Files))
			}
			if !near(e.PeakBytes, tc.peak, 1e-5) {
				t.Errorf("peak %.1f bytes, want %.1f", e.PeakBytes, tc.peak)
			}
			if !near(e.PeakFiles, tc.files, 1e-5) {
				t.Errorf("peak %.2f files, want %.2f", e.PeakFiles, tc.files)
			}
			if tc.draws != 0 && e.Draws != tc.draws {
				t.Errorf("%v draws, want %v", e.Draws, tc.draws)
			}
			if tc.exactlyAsSimulation {
				if s := Simulate(tc.cfg); float64(s.PeakBytes) != e.PeakBytes || float64(s.PeakFiles) != e.PeakFiles {
					t.Errorf("simulation's peak %d bytes in %d files, expected %v in %v", s.PeakBytes, s.PeakFiles, e.PeakBytes, e.PeakFiles)
				}
			}
		})
	}
}

// On average over many seeds, the runs' peaks are what Expect says: the simulation of
// 30 seeds each, within 5%, in every regime (pool steady, growing, shrinking; appends
// only; the presets' sizes), and the numbers they draw within 3%.
func TestExpectIsTheAverage(t *testing.T) {
	cases := []Config{
		PostmarkDefaults(),
		small(func(c *Config) { c.Files, c.Transactions, c.SizeMin, c.SizeMax = 1000, 50_000, 1000, 4000 }),
		small(func(c *Config) {
			c.Files, c.Transactions, c.ReadBias, c.CreateBias, c.SizeMin, c.SizeMax = 1000, 1000, 0, -1, 1, 1001
		}),
		small(func(c *Config) { c.Files, c.Transactions, c.CreateBias = 1000, 3000, 4 }),
		small(func(c *Config) { c.Files, c.Transactions, c.CreateBias, c.Subdirs = 1000, 20_000, 6, 10 }),
		small(func(c *Config) { c.Files, c.Transactions, c.CreateBias, c.ReadBias = 2000, 10_000, 8, 2 }),
	}
	for _, p := range Presets()[1:3] {
		c := p.Config
		c.Transactions /= 2
		cases = append(cases, c)
	}
	for _, c := range cases {
		const seeds = 30
		var bytes, files, draws float64
		for seed := 1; seed <= seeds; seed++ {
			c.Seed = seed
			var drawn int64
			s, err := simulate(context.Background(), c, func(n int64) { drawn = n })
			if err != nil || s.OutOfFiles {
				t.Fatalf("%+v: %v, out of files %v", c, err, s.OutOfFiles)
			}
			bytes += float64(s.PeakBytes)
			files += float64(s.PeakFiles)
			draws += float64(drawn)
		}
		e := Expect(c)
		if !near(e.PeakBytes, bytes/seeds, 0.05) || !near(e.PeakFiles, files/seeds, 0.05) || !near(e.Draws, draws/seeds, 0.03) {
			t.Errorf("%d files, %d transactions, %d..%d bytes, biases %d/%d: expected %.0f bytes in %.0f files and %.0f numbers drawn, the runs' %.0f in %.0f and %.0f on average",
				c.Files, c.Transactions, c.SizeMin, c.SizeMax, c.ReadBias, c.CreateBias, e.PeakBytes, e.PeakFiles, e.Draws, bytes/seeds, files/seeds, draws/seeds)
		}
	}
}

// The run that needs 19 PiB is refused at once with what it needs (it said 171 GiB,
// a pool of files all of the smallest size), before the numbers are drawn.
func TestCheckSaysWhatTheRunNeeds(t *testing.T) {
	cfg := small(func(c *Config) { c.Files, c.Transactions, c.SizeMin, c.SizeMax = 40_000_000, 500, 500, 1<<30 })
	_, err := Check(context.Background(), t.TempDir(), cfg, false, nil)
	var tb *capacity.TooBigError
	if !errors.As(err, &tb) || tb.Resource != "disk" || !strings.Contains(err.Error(), "needs about 19 PiB of disk") {
		t.Fatalf("want a refusal for 19 PiB of disk, got %v", err)
	}
	if !near(tb.Estimate, 2.1474923147e16+40_000_017.84*blockBytes, 1e-6) {
		t.Errorf("estimate %v bytes", tb.Estimate)
	}
	for _, s := range []string{"on average 40000018 files holding 19 PiB", "40000000 new files of 512 MiB each on average", "sizes drawn evenly from 500 to 1073741824 bytes"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q does not say %q", err, s)
		}
	}
}
