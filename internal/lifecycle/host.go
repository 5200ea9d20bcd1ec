package lifecycle

import (
	"context"
	"strings"

	"tierbench/internal/host"
)

// describeHost records the machine the run runs on, with the disks under its
// directory, its directory tiers and the engine's files (emulated tiers keep their
// backing files in the run's directory), and the engine's version, asked once the
// engine is open.
func (r *Run) describeHost(ctx context.Context) *host.Info {
	dirs := []string{r.cfg.Out}
	for _, t := range r.cfg.Plan.Tiers {
		if !t.Emulated() && t.Dir != "" {
			dirs = append(dirs, t.Dir)
		}
	}
	if r.ecfg.Dir != "" {
		dirs = append(dirs, r.ecfg.Dir)
	}
	h := host.Collect(dirs...)
	if r.eng != nil {
		if info, err := r.eng.Info(ctx); err == nil {
			h.Engine = strings.TrimSpace(info.Name + " " + info.Version)
		}
	}
	return h
}
