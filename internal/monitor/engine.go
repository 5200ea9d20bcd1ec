package monitor

import (
	"context"
	"fmt"
	"time"

	"tierbench/internal/engine"
)

// Engine reads an engine's internals through its engine.StatsReader: its gauges become
// values engine.<name>, its counters counters engine.<name> and the values
// engine.<name>_per_s, and the buffer's hits and misses the value
// engine.buffer_hit_pct.
type Engine struct {
	reader engine.StatsReader
	series []SeriesInfo
	// gauges are the gauges read so far: one a reading lacks (no session waits on that
	// event now) is 0, not missing, so that a window's mean counts it.
	gauges map[string]bool
	d      deltas
}

// NewEngine asks e for its statistics reader; ok is false when e reports none (it is
// not an engine.StatsSampler).
func NewEngine(ctx context.Context, e engine.Engine) (src *Engine, ok bool, err error) {
	sampler, ok := e.(engine.StatsSampler)
	if !ok {
		return nil, false, nil
	}
	r, err := sampler.NewStatsReader(ctx)
	if err != nil {
		return nil, true, fmt.Errorf("monitor: %w", err)
	}
	src = &Engine{reader: r, gauges: map[string]bool{}}
	for _, s := range r.Catalogue() {
		name := "engine." + s.Name
		if s.Kind == engine.Counter {
			src.series = append(src.series, counter(name, s.Unit, s.Help),
				value(name+"_per_s", "per_s", s.Unit+" a second: "+s.Help))
		} else {
			src.series = append(src.series, value(name, s.Unit, s.Help))
		}
	}
	src.series = append(src.series, value("engine.buffer_hit_pct", "pct", "buffer hits over hits and misses: the share of page reads the engine's buffer served"))
	return src, true, nil
}

func (e *Engine) Name() string         { return "engine" }
func (e *Engine) Series() []SeriesInfo { return e.series }

func (e *Engine) Read(ctx context.Context, now time.Time, r *Reading) error {
	// A reading that failed in part (a view the user may not read) keeps the rest.
	st, err := e.reader.ReadStats(ctx)
	e.d.begin(now)
	for name, v := range st.Gauges {
		e.gauges[name] = true
		r.Value("engine."+name, v)
	}
	if err == nil {
		for name := range e.gauges {
			if _, ok := st.Gauges[name]; !ok {
				r.Value("engine."+name, 0)
			}
		}
	}
	for name, v := range st.Counters {
		r.Counter("engine."+name, v)
		if rate, ok := e.d.rate("engine."+name, v); ok {
			r.Value("engine."+name+"_per_s", rate)
		}
	}
	hits, okH := st.Counters[engine.StatBufferHits]
	misses, okM := st.Counters[engine.StatBufferMisses]
	if okH && okM {
		dh, ok1 := e.d.set("hits", hits)
		dm, ok2 := e.d.set("misses", misses)
		if ok1 && ok2 && dh+dm > 0 {
			r.Value("engine.buffer_hit_pct", 100*dh/(dh+dm))
		}
	}
	e.d.commit()
	return err
}
