package tpch

import (
	"context"
	"fmt"
	"strings"
	"time"

	"tierbench/internal/engine"
	"tierbench/internal/progress"
	"tierbench/internal/workload/tpch/qgen"
)

// qualificationAnswers names the TPC's answer set in Validation.Against.
const qualificationAnswers = "TPC qualification answers"

// checkValidateConfig refuses a --validate the TPC's answers cannot judge: they are
// the SF 1 qualification database's answers to the default parameters (Clause 2.3).
func checkValidateConfig(cfg RunConfig) error {
	if !cfg.Validate || (cfg.SF == 1 && cfg.UseDefaultParams) {
		return nil
	}
	return fmt.Errorf("validation against the TPC's answers needs SF 1 and the default " +
		"substitution parameters (the answers are for those): run at SF 1 with default " +
		"parameters, or validate against another engine loaded with the same data instead")
}

// qualify checks the query answers before the power test (Clause 2.3). It runs the
// power test's stream 0 queries, untimed, on the database as loaded: the power
// test's own answers cannot be checked, because its RF1 has already changed ORDERS
// and LINEITEM when the queries run, and the qualification answers are for the
// database before any refresh. Against another engine, that engine runs the same
// queries (its dialect's text, the same parameters) on its own copy of the data.
func (r *runner) qualify(ctx context.Context) (*Validation, error) {
	if err := r.checkUnrefreshed(ctx); err != nil {
		return nil, err
	}
	v := &Validation{}
	var against []string
	if r.cfg.Validate {
		against = append(against, qualificationAnswers)
	}
	queries, err := streamQueries(r.d.Name, r.cfg.SF, r.seed, 0, r.cfg.UseDefaultParams)
	if err != nil {
		return nil, fmt.Errorf("validation: %w", err)
	}
	sess, err := openQuerySession(ctx, r.eng)
	if err != nil {
		return nil, fmt.Errorf("validation: %w", err)
	}
	defer sess.Close()

	var ref *querySession
	refQueries := map[int]qgen.Query{}
	if other := r.cfg.ValidateAgainst; other != nil {
		name, err := r.prepareReference(ctx, other, refQueries)
		if err != nil {
			return nil, fmt.Errorf("validation: %w", err)
		}
		against = append(against, name)
		if ref, err = openQuerySession(ctx, other); err != nil {
			return nil, fmt.Errorf("validation on %s: %w", name, err)
		}
		defer ref.Close()
	}
	v.Against = strings.Join(against, " and ")

	prog := progress.Start(r.cfg.Progress, "validate", "queries", int64(len(queries)))
	defer prog.Finish()
	for _, q := range queries {
		key := queryKey(q.Number)
		got, err := runQuery(ctx, sess, q, r.cfg.QueryTimeout)
		if err != nil {
			return v, fmt.Errorf("validation: %w", err)
		}
		v.Checked++
		prog.Add(1)
		if got.timedOut {
			v.Failures = append(v.Failures, fmt.Sprintf("%s: timed out after %.1fs, answer not checked", key, got.seconds))
			continue
		}
		if r.cfg.Validate {
			v.Failures = append(v.Failures, CheckAnswer(q.Number, got.rows)...)
		}
		if ref != nil {
			want, err := runQuery(ctx, ref, refQueries[q.Number], r.cfg.QueryTimeout)
			if err != nil {
				return v, fmt.Errorf("validation on the reference engine: %w", err)
			}
			if want.timedOut {
				v.Failures = append(v.Failures, fmt.Sprintf("%s: timed out on the reference engine, answer not checked", key))
				continue
			}
			v.Failures = append(v.Failures, CompareAnswers(q.Number, got.rows, want.rows)...)
		}
	}
	v.Passed = len(v.Failures) == 0
	r.logf("validation against %s: %d queries, %d failures", v.Against, v.Checked, len(v.Failures))
	return v, nil
}

// prepareReference makes the reference engine's database hold what this one holds
// before any refresh, and returns the engine's name and its stream 0 queries. A
// reference database that tierbench loaded at this SF and never refreshed is used
// as it is; an empty one, or one of tierbench's that has been refreshed or holds
// another SF, is loaded (untimed, not part of the result).
func (r *runner) prepareReference(ctx context.Context, other engine.Engine, queries map[int]qgen.Query) (string, error) {
	info, err := other.Info(ctx)
	if err != nil {
		return "", fmt.Errorf("reference engine: %w", err)
	}
	name := strings.TrimSpace(info.Name + " " + info.Version)
	cfg := r.cfg
	cfg.Validate, cfg.ValidateAgainst, cfg.OutDir, cfg.Checkpoint, cfg.SkipLoad = false, nil, "", nil, false
	ref := newRunner(other, cfg)
	ref.info = info
	if !ref.referenceReady(ctx) {
		r.logf("validation: loading the reference database (%s)", name)
		if err := ref.prepareLoad(ctx); err != nil {
			return "", fmt.Errorf("reference engine %s: %w", name, err)
		}
		if _, err := ref.loadTest(ctx); err != nil {
			return "", fmt.Errorf("reference engine %s: %w", name, err)
		}
		if err := ref.recordLoad(ctx, time.Now()); err != nil {
			return "", fmt.Errorf("reference engine %s: %w", name, err)
		}
	}
	qs, err := streamQueries(other.Dialect().Name, r.cfg.SF, r.seed, 0, r.cfg.UseDefaultParams)
	if err != nil {
		return "", err
	}
	for _, q := range qs {
		queries[q.Number] = q
	}
	return name, nil
}

// referenceReady reports whether the database holds a finished tierbench load of
// this SF that no refresh function has changed.
func (r *runner) referenceReady(ctx context.Context) bool {
	if !r.state.exists(ctx) || r.checkLoaded(ctx) != nil {
		return false
	}
	next, err := r.state.nextUpdateSet(ctx)
	return err == nil && next == 1
}

// checkUnrefreshed refuses to validate a database that refresh functions have
// changed since it was loaded: its answers are not the loaded data's.
func (r *runner) checkUnrefreshed(ctx context.Context) error {
	next, err := r.state.nextUpdateSet(ctx)
	if err != nil {
		return fmt.Errorf("validation: %w", err)
	}
	if next != 1 {
		return fmt.Errorf("validation needs the database as loaded, but update sets 1..%d "+
			"have changed it: load again to validate", next-1)
	}
	return nil
}
