package verdict

import (
	"sort"

	"tierbench/internal/monitor"
)

// Rule names a bottleneck a verdict can find.
type Rule string

const (
	Device  Rule = "device"
	CPU     Rule = "cpu"
	Memory  Rule = "memory"
	Lock    Rule = "lock"
	Harness Rule = "harness"
	// Application: users waited for the application's own gates (a connection pool,
	// critical sections) before their statements reached the database.
	Application Rule = "application"
	// None: every rule was judged and none fired: nothing saturated.
	None Rule = "none"
	// Unknown: nothing was sampled over the window, so nothing could be judged.
	Unknown Rule = "unknown"
)

// order breaks ties between findings that explain the same share of the users' time:
// the saturated resource before what it is a symptom of (a device before the memory
// whose misses keep it busy).
var order = map[Rule]int{Application: -1, Device: 0, Lock: 1, CPU: 2, Harness: 3, Memory: 4}

// Title is how people call a rule's finding: "device-bound".
func (r Rule) Title() string {
	switch r {
	case CPU:
		return "CPU-bound"
	case None:
		return "nothing saturated"
	case Unknown:
		return "not judged"
	}
	return string(r) + "-bound"
}

// Facts are what the workload knows about a window that the monitor does not.
type Facts struct {
	// Users are the concurrent users (sessions, streams) that ran in the window: the
	// verdict's shares are of their time. 0 counts as 1.
	Users int
	// Throughput is what the window completed per second (TPS, queries/s); with
	// Previous it says whether more users bought more throughput.
	Throughput float64
	// Previous is the sweep's level before this one (nil for a run of one level, or
	// the first level).
	Previous *Level
	// Rate is an open loop's asked throughput (0: closed loop); LagMeanMs and LatePct
	// say how far its transactions started behind their schedule.
	Rate      float64
	LagMeanMs float64
	LatePct   float64
	// Embedded says the engine runs inside tierbench (SQLite), or the workload's work
	// does without an engine (the file workload): their CPU cannot be told apart, so
	// the harness is not judged by CPU. Inside names what runs inside ("" is "the
	// embedded engine").
	Embedded bool
	Inside   string
	// ActivePct is the share of the users' time inside their transactions, from the
	// workload's own clock (throughput times mean latency over the users: Little's
	// law); the rest they paused (think and keying times, an open loop's idle
	// users). 0 when not known: all of it.
	ActivePct float64
	// Tiers are the emulated tiers, so a device finding names what each holds; the
	// disks under directories are named from the summary's storage.
	Tiers []Tier
	// AppWaits are the application's gates the window's users waited for (the
	// application rule); none for a workload without them.
	AppWaits []AppWait
}

// AppWait is one of the application's gates (a connection pool, a critical section)
// and the mean number of the window's users waiting for it.
type AppWait struct {
	Name string `json:"name"`
	// Kind is "pool" or "critical".
	Kind    string  `json:"kind"`
	Holders int     `json:"holders"`
	Waiting float64 `json:"users_waiting"`
}

// Level is a level of a sweep: its users and throughput.
type Level struct {
	Users      int     `json:"users"`
	Throughput float64 `json:"throughput"`
}

// Tier is an emulated tier of the run (its series are emu.<Name>): its device's
// profile and the classes of files it holds (data, wal, temp).
type Tier struct {
	Name    string   `json:"name"`
	Spec    string   `json:"spec,omitempty"`
	Classes []string `json:"classes"`
}

// Verdict is what limited one window, with its evidence.
type Verdict struct {
	Window string `json:"window"`
	Users  int    `json:"users,omitempty"`
	// Primary is the fired finding that explains the most of the users' time (None
	// when none fired).
	Primary  Rule   `json:"primary"`
	Headline string `json:"headline"`
	// Findings holds every rule judged: those that fired first, the strongest first,
	// then the rest, so a reader sees why each did or did not fire.
	Findings []Finding `json:"findings"`
	// TimePct is the users' time by what it went to, as far as it was measured: lock,
	// io, cpu.server, cpu.tierbench (the embedded engine's included), and app (the
	// application's gates, for a workload that has them), in percent.
	TimePct map[string]float64 `json:"time_pct"`
	// NotJudged lists what could not be measured, and so which rules were left out.
	NotJudged []string `json:"not_judged,omitempty"`
}

// Finding is one rule's judgement of one resource.
type Finding struct {
	Rule  Rule `json:"rule"`
	Fired bool `json:"fired"`
	// ExplainsPct is the share of the users' time the resource explains: the strength
	// of the evidence, which orders the findings.
	ExplainsPct float64 `json:"explains_pct"`
	// ExplainsFrom says how ExplainsPct was computed.
	ExplainsFrom string `json:"explains_from,omitempty"`
	// Resource names what was judged: "tier data (emulated hdd-7200; holds data)".
	Resource string `json:"resource"`
	// Text says in a line what was measured.
	Text string `json:"text"`
	// Fires says how the checks combine: "all" must be met, "any" one, or in words.
	Fires  string  `json:"fires"`
	Checks []Check `json:"checks"`
	// CPU says who used the host's CPU (the CPU and harness rules).
	CPU *CPUUse `json:"cpu,omitempty"`
	// Waits are what the users waited on, the commonest first (the lock rule).
	Waits []Wait `json:"waits,omitempty"`
}

// Check is one measured value against its threshold.
type Check struct {
	Name      string  `json:"name"`
	Measured  float64 `json:"measured"`
	Op        string  `json:"op"`
	Threshold float64 `json:"threshold"`
	Unit      string  `json:"unit"`
	// From names the series it was computed from.
	From string `json:"from"`
	Met  bool   `json:"met"`
}

// Wait is something sessions waited on and its share of the users' time.
type Wait struct {
	Name string  `json:"name"`
	Pct  float64 `json:"pct"`
}

// CPUUse is who used the host's CPU over the window, in cores (CPU seconds a
// second), and the time their threads waited for a CPU.
type CPUUse struct {
	CPUs    float64 `json:"cpus"`
	BusyPct float64 `json:"busy_pct"`
	Server  float64 `json:"server_cores,omitempty"`
	// Tierbench is the embedded engine's too when the engine runs inside tierbench.
	Tierbench  float64 `json:"tierbench_cores"`
	Others     float64 `json:"others_cores"`
	ServerWait float64 `json:"server_wait_cores,omitempty"`
	// TierbenchWait is the time tierbench's threads waited for a CPU.
	TierbenchWait float64 `json:"tierbench_wait_cores"`
	// Runnable is the host's mean runnable tasks; PressurePct its CPU pressure (some).
	Runnable    float64 `json:"runnable,omitempty"`
	PressurePct float64 `json:"pressure_pct,omitempty"`
}

// Judge judges window w of sum with the default thresholds.
func Judge(sum *monitor.Summary, w *monitor.WindowSummary, f Facts) Verdict {
	return Defaults.Judge(sum, w, f)
}

// Judge judges window w of sum (a level's window, sum.Level(users), or a window the
// workload marked) with the facts of the workload and these thresholds.
func (th Thresholds) Judge(sum *monitor.Summary, w *monitor.WindowSummary, f Facts) Verdict {
	v := Verdict{Users: f.Users, TimePct: map[string]float64{}}
	if w == nil || w.Samples == 0 {
		if w != nil {
			v.Window = w.Label
		}
		v.Primary = Unknown
		v.Headline = Unknown.Title() + ": nothing was sampled over the window (--sample off, or a window shorter than a sample)"
		return v
	}
	v.Window = w.Label
	m := measure(sum, w, f)
	v.NotJudged = m.missing
	for k, pct := range m.timePct() {
		v.TimePct[k] = pct
	}
	v.Findings = append(v.Findings, th.devices(m)...)
	for _, rule := range []func(*measured) (Finding, bool){th.cpu, th.memory, th.lock, th.harness, th.application} {
		if fd, ok := rule(m); ok {
			v.Findings = append(v.Findings, fd)
		}
	}
	sort.SliceStable(v.Findings, func(i, j int) bool {
		a, b := v.Findings[i], v.Findings[j]
		if a.Fired != b.Fired {
			return a.Fired
		}
		if app := a.Rule == Application; a.Fired && app != (b.Rule == Application) {
			return app // what the application held back never reached the database
		}
		if a.ExplainsPct != b.ExplainsPct {
			return a.ExplainsPct > b.ExplainsPct
		}
		return order[a.Rule] < order[b.Rule]
	})
	if len(v.Findings) > 0 && v.Findings[0].Fired {
		v.Primary = v.Findings[0].Rule
		v.Headline = v.Primary.Title() + ": " + v.Findings[0].Text
	} else {
		v.Primary = None
		// "Too light" only when no resource was at its limit: a full host CPU that the
		// users did not wait for is said as such.
		if limit := th.atLimit(m, v.TimePct); limit != "" {
			v.Headline = None.Title() + " by the run: " + limit
		} else {
			v.Headline = None.Title() + ": " + m.lightLoad() + ": the load was too light to say"
		}
	}
	return v
}

// Fired are the findings that fired, strongest first.
func (v Verdict) Fired() []Finding {
	var out []Finding
	for _, f := range v.Findings {
		if f.Fired {
			out = append(out, f)
		}
	}
	return out
}

// Finding is the first finding of rule (fired or not), nil if the rule was not judged.
func (v Verdict) Finding(rule Rule) *Finding {
	for i := range v.Findings {
		if v.Findings[i].Rule == rule {
			return &v.Findings[i]
		}
	}
	return nil
}
