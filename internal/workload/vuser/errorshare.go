package vuser

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"tierbench/internal/metrics"
)

// DefaultMaxErrorShare is the share of failed transactions a run may have and still be
// ok, unless told otherwise (`--max-error-share`): one in a hundred. Above it, the
// throughput counts a different mix from the one asked for (the failing transactions
// are missing from it, and they are usually the expensive ones).
const DefaultMaxErrorShare = 0.01

// StatusDefinition says when a run is ok, for the definitions every result carries.
const StatusDefinition = "ok: the measured window completed, no transaction type failed every time it ran, and at most max_error_share of the transactions failed (errors over errors + completed; rollbacks the workload asks for, such as TPC-C's 1% of New-Orders, complete and are not errors); failed: otherwise, or the server or a connection was lost (error says why); interrupted: stopped by a signal. Whatever the status, the numbers are what was measured"

// TooManyErrorsError says that a window's transactions failed so often that its
// throughput does not describe the workload: some transaction types failed every time
// they ran, or more than MaxShare of all transactions failed.
type TooManyErrorsError struct {
	// Failed are the transaction types that failed every time they ran, in the
	// workload's order.
	Failed []FailedType
	// Errors are the failed transactions, Attempts the failed plus the completed ones.
	Errors, Attempts int64
	MaxShare         float64
}

// FailedType is a transaction type that failed every time it ran.
type FailedType struct {
	Name       string
	Errors     int64
	FirstError string
}

// Share is the failed transactions' share of all that ran.
func (e *TooManyErrorsError) Share() float64 {
	if e.Attempts == 0 {
		return 0
	}
	return float64(e.Errors) / float64(e.Attempts)
}

func (e *TooManyErrorsError) Error() string {
	var parts []string
	for _, f := range e.Failed {
		errs := "errors"
		if f.Errors == 1 {
			errs = "error"
		}
		parts = append(parts, fmt.Sprintf("transaction type %s failed every time it ran (%d %s, the first: %s)", f.Name, f.Errors, errs, f.FirstError))
	}
	if e.Share() > e.MaxShare {
		parts = append(parts, fmt.Sprintf("%d of %d transactions failed (%s), more than the %s allowed (--max-error-share)",
			e.Errors, e.Attempts, percent(e.Share()), percent(e.MaxShare)))
	}
	return strings.Join(parts, "; ") + ": the throughput counts only the transactions that completed, which are not the mix asked for"
}

// percent prints a share as a percentage to three significant digits: 1%, 0.5%, 33.3%.
func percent(share float64) string {
	p := share * 100
	if p > 0 && !math.IsInf(p, 0) {
		scale := math.Pow(10, 2-math.Floor(math.Log10(p)))
		p = math.Round(p*scale) / scale
	}
	return strconv.FormatFloat(p, 'f', -1, 64) + "%"
}

// CheckErrors reports a window whose transactions of ops failed too often for its
// throughput to stand: a *TooManyErrorsError when a type that ran failed every time,
// or when more than maxShare of the transactions failed; nil otherwise. A type that
// did not run at all fails nothing.
func CheckErrors(m *metrics.Snapshot, ops []string, maxShare float64) error {
	e := &TooManyErrorsError{MaxShare: maxShare}
	for _, op := range ops {
		r := m.Report(op)
		e.Errors += r.Errors
		e.Attempts += r.Errors + r.Count
		if r.Errors > 0 && r.Count == 0 {
			e.Failed = append(e.Failed, FailedType{Name: op, Errors: r.Errors, FirstError: r.FirstError})
		}
	}
	if len(e.Failed) == 0 && e.Share() <= maxShare {
		return nil
	}
	return e
}
