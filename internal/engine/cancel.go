package engine

import "context"

// StmtContext is the context one session's statements run under during a run. On a
// session that is a Canceller, statements get a context that never ends, and the
// session's Cancel is armed once on the run's context with context.AfterFunc: drivers
// that watch every statement's context (go-sql-driver hands each one to its watcher
// goroutine, pgx sets up a watch per statement) then have nothing to watch, and a hot
// loop pays for one AfterFunc a run instead of context work per statement. Other
// sessions get the run's context itself and their drivers cancel as usual.
//
// After the armed context ends the session has been cancelled and is only fit to be
// closed: a statement error then means the run ended, not that the server failed.
// A StmtContext belongs to its session's goroutine; the zero value passes every
// context through.
type StmtContext struct {
	cancel func() // the session's Cancel; nil when it has none
	armed  context.Context
	quiet  context.Context
	disarm func() bool
}

// NewStmtContext returns the StmtContext for session s.
func NewStmtContext(s Session) *StmtContext {
	if c, ok := s.(Canceller); ok {
		return &StmtContext{cancel: c.Cancel}
	}
	return &StmtContext{}
}

// For returns the context a statement runs under while ctx lasts. It is ctx itself
// when the session cannot cancel, when ctx cannot end, or when ctx has already ended
// (the statement then fails at once instead of reaching the server). Otherwise it is a
// context that never ends, carrying ctx's values, with Cancel armed on ctx; a ctx other
// than the one armed disarms that one first.
func (sc *StmtContext) For(ctx context.Context) context.Context {
	if sc.cancel == nil || ctx.Done() == nil || ctx.Err() != nil {
		return ctx
	}
	if ctx != sc.armed {
		sc.Stop()
		sc.armed, sc.quiet, sc.disarm = ctx, context.WithoutCancel(ctx), context.AfterFunc(ctx, sc.cancel)
	}
	return sc.quiet
}

// Stop disarms: Cancel is no longer called when the armed context ends. Call it before
// closing the session; a Cancel already under way is not waited for (sessions
// tolerate being closed during their Cancel).
func (sc *StmtContext) Stop() {
	if sc.disarm != nil {
		sc.disarm()
	}
	sc.armed, sc.quiet, sc.disarm = nil, nil, nil
}
