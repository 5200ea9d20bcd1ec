package postmark

import (
	"fmt"
	"io"

	"tierbench/internal/capacity"
	"tierbench/internal/metrics"
)

// WriteSummary prints a run's result for people, in the order of Postmark's report:
// the parameters, the phase times, transactions, files and data with their rates, then
// one latency row per operation; and, when the files were on a placed tier, the
// storage section.
func WriteSummary(w io.Writer, r *Result) {
	writeReport(w, r)
	r.Storage.WriteSummary(w)
}

// writeReport prints what Postmark's report says.
func writeReport(w io.Writer, r *Result) {
	c := r.Config
	preset := ""
	if r.Preset != "" {
		preset = "preset " + r.Preset + ": "
	}
	fmt.Fprintf(w, "\nfiles (%s model) in %s, status %s\n", r.Model, r.Dir, r.Status)
	if r.Error != "" {
		fmt.Fprintf(w, "error: %s\n", r.Error)
	}
	if c.Idle > 0 {
		fmt.Fprintf(w, "%sidle for %.1f s: no files, no I/O (the devices' idle power over the run)\n", preset, r.IdleS)
		return
	}
	io := "buffered"
	if !c.Buffered {
		io = "unbuffered"
	}
	subdirs := "no subdirectories"
	if c.Subdirs > 1 {
		subdirs = fmt.Sprintf("%d subdirectories", c.Subdirs)
	}
	fmt.Fprintf(w, "%s%d files of %s to %s in %s, %d transactions, read/append bias %d, create/delete bias %d, blocks read %s write %s, %s I/O, seed %d\n",
		preset, c.Files, size(c.SizeMin), size(c.SizeMax), subdirs, c.Transactions, c.ReadBias, c.CreateBias,
		size(c.ReadBlock), size(c.WriteBlock), io, c.Seed)
	fmt.Fprintf(w, "time: %.2f s total", r.ElapsedS)
	for _, p := range r.Phases {
		fmt.Fprintf(w, ", %s %.2f s", p.Name, p.Seconds)
	}
	fmt.Fprintln(w)
	t := r.Rates
	fmt.Fprintf(w, "transactions: %d (%.1f per second)\n", r.Transactions, t.TransactionsPerS)
	fmt.Fprintf(w, "files: %d created (%.1f/s): alone %d (%.1f/s), with transactions %d (%.1f/s)\n",
		r.Created, t.CreatedPerS, r.CreatedAlone, t.CreatedAlonePerS, r.CreatedMixed, t.CreatedMixedPerS)
	fmt.Fprintf(w, "       %d read (%.1f/s), %d appended (%.1f/s)\n", r.Read, t.ReadPerS, r.Appended, t.AppendedPerS)
	fmt.Fprintf(w, "       %d deleted (%.1f/s): alone %d (%.1f/s), with transactions %d (%.1f/s)\n",
		r.Deleted, t.DeletedPerS, r.DeletedAlone, t.DeletedAlonePerS, r.DeletedMixed, t.DeletedMixedPerS)
	fmt.Fprintf(w, "data: %.2f MiB read (%.2f MiB/s), %.2f MiB written (%.2f MiB/s); at most %s in %d files at once\n",
		float64(r.BytesRead)/(1<<20), t.ReadMiBs, float64(r.BytesWritten)/(1<<20), t.WrittenMiBs,
		capacity.Bytes(float64(r.Estimate.PeakBytes)), r.Estimate.PeakFiles)
	fmt.Fprintln(w, "rates as Postmark divides them (result.json's definitions); MiB = 2^20 bytes, Postmark's megabyte")
	fmt.Fprintln(w)
	metrics.WriteOpTable(w, "operation", OpNames(), r.Ops)
}

// size prints a byte count as Postmark's show command does, but shorter.
func size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
