package vuser

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"tierbench/internal/capacity"
	"tierbench/internal/params"
	"tierbench/internal/workload"
)

// RunParams are the parameters of a run of virtual users (tpcc run, oltp run): the
// users or a sweep of them, ramp-up, measured window, report interval, open-loop
// rate, the share of errors a level may have, and the seed.
type RunParams struct {
	usersText                string
	users                    []int
	maxErrorShare            float64
	ramp, duration, interval time.Duration
	rate                     float64
	seed                     int64
}

// Register adds the parameters to s; seedHelp says what --seed seeds.
func (p *RunParams) Register(s *params.Set, seedHelp string) {
	s.String(&p.usersText, "users", "1", params.Users, "virtual users, or a sweep such as 1,2,4,8 (each level after its own ramp-up)")
	s.Float(&p.maxErrorShare, "max-error-share", DefaultMaxErrorShare,
		"largest share of failed transactions (0 to 1) a level may have and be ok; a transaction type that fails every time fails the level whatever the share")
	s.Duration(&p.ramp, "ramp", 10*time.Second, "ramp-up before each measured window, excluded from results")
	s.Duration(&p.duration, "duration", time.Minute, "measured window of each level")
	s.Duration(&p.interval, "interval", 10*time.Second, "report interval of the progress lines and intervals.jsonl")
	s.Float(&p.rate, "rate", 0, "open loop: transactions per second in total, latency from the intended start (0: closed loop)")
	s.AnySeed(&p.seed, "seed", 1, seedHelp)
}

// ThinkCheck refuses think times with an open loop; think says the run phase's
// --think asks for them (each workload has its own kind of think time).
func (p *RunParams) ThinkCheck(think bool) error {
	if p.OpenLoop() && think {
		return fmt.Errorf("--rate and --think are exclusive: an open loop sets its own schedule")
	}
	return nil
}

// LoadParams are the parameters every load of a vuser workload has (tpcc load, oltp
// load): how many tables load at once, and the seed of the generated data.
type LoadParams struct {
	Loaders int
	Seed    int64
}

// Register adds --loaders and --seed to s.
func (p *LoadParams) Register(s *params.Set) {
	s.Int(&p.Loaders, "loaders", 0, "parallel table loads (0: one per core; SQLite always 1)")
	s.AnySeed(&p.Seed, "seed", 1, "seed of the generated data: the same seed gives the same data")
}

// Check validates --loaders.
func (p *LoadParams) Check() error {
	if p.Loaders < 0 {
		return fmt.Errorf("--loaders %d: give 0 (automatic) or more", p.Loaders)
	}
	return nil
}

// Request is what a load asks of the lifecycle: its load file (infoFile) and the
// load's storage section (LoadStorageFile), in place of an earlier load's data, and
// the room need says the load takes on the engine the lifecycle opens.
func (p *LoadParams) Request(infoFile string, need func(workload.EngineFacts) (capacity.Need, error)) workload.Request {
	return workload.Request{Results: []string{infoFile, LoadStorageFile}, Replaces: true,
		Needs: func(f workload.EngineFacts) ([]capacity.Need, error) {
			n, err := need(f)
			return []capacity.Need{n}, err
		}}
}

// MinInterval is the shortest --interval.
const MinInterval = 100 * time.Millisecond

// Check validates the parameters and reads --users.
func (p *RunParams) Check() error {
	users, err := ParseUsers(p.usersText)
	if err != nil {
		return err
	}
	p.users = users
	if p.duration <= 0 {
		return fmt.Errorf("--duration %s: give a positive duration such as 30s or 5m", p.duration)
	}
	if p.ramp < 0 || p.interval < 0 {
		return fmt.Errorf("--ramp and --interval cannot be negative")
	}
	if p.interval > 0 && p.interval < MinInterval {
		// Each interval is a line on the terminal and in intervals.jsonl: --interval
		// 1ns would fill the disk with them, and merge the users' histograms nonstop.
		return fmt.Errorf("--interval %s: give %s or more (0: 10s)", p.interval, MinInterval)
	}
	if !(p.rate >= 0) || math.IsInf(p.rate, 0) {
		return fmt.Errorf("--rate %v: give transactions per second, or 0 for a closed loop", p.rate)
	}
	if !(p.maxErrorShare >= 0 && p.maxErrorShare <= 1) {
		return fmt.Errorf("--max-error-share %v: give a share from 0 to 1, e.g. 0.01 for one transaction in a hundred (0: none may fail)", p.maxErrorShare)
	}
	return nil
}

// OpenLoop says --rate asks for an open loop.
func (p *RunParams) OpenLoop() bool { return p.rate > 0 }

// Request is what a run of the users asks of the lifecycle: its result and intervals
// files, the database a load kept, as many sessions as its largest level, and their
// memory (RunNeed; what names the command for the estimate, "tpcc run").
func (p *RunParams) Request(what string, load *workload.NeedsLoad) workload.Request {
	sessions := slices.Max(p.users)
	return workload.Request{
		Results: []string{ResultFile, IntervalsFile}, MustExist: true, Sessions: sessions, Load: load,
		Needs: func(f workload.EngineFacts) ([]capacity.Need, error) {
			return []capacity.Need{RunNeed(what+" --users "+p.usersText, sessions, f.Dialect, f.External)}, nil
		},
	}
}

// Plan is the run's plan in env: the parameters, intervals in its output directory,
// the result saved after each level through its Checkpoint, interval lines on its
// stdout, I/O counters from its engine and devices.
func (p *RunParams) Plan(env workload.Env) Plan {
	return Plan{Users: p.users, Ramp: p.ramp, Duration: p.duration, Rate: p.rate, Interval: p.interval,
		Seed: p.seed, MaxErrorShare: p.maxErrorShare, OutDir: env.Out(), Checkpoint: env.Checkpoint, Lines: env.Stdout(), IO: env.IOSampler(), Mark: env.Mark,
		Observer: env.Observer()}
}

// ParseUsers reads --users: one number or a comma-separated sweep such as 1,2,4,8.
func ParseUsers(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--users %q: give a number of virtual users, or a list such as 1,2,4,8", s)
		}
		if n < 1 {
			return nil, fmt.Errorf("--users %q: every level needs at least 1 virtual user", s)
		}
		out = append(out, n)
	}
	return out, nil
}
