// Package resultfile is the one reader of result.json, whatever workload wrote it:
// the run report, the study report and study comparisons all read result files
// through Read.
//
// A result file is one JSON object: the workload's own members, the members every
// run of virtual users has (levels, io, client_cpu...), and the sections the run
// lifecycle attaches (package result). Read decodes it twice: into Common, the
// members a report names and draws any run by, and into the result type of the
// workload that wrote it, which the workload registry names by the file's
// "benchmark" member (workload.ForResult), so that the headline numbers and the status
// are the workload's own (workload.Headliner, Statuser). Older names still read:
// "oltp-mix" for the OLTP mix, "files" for the Postmark-compatible workload, and a
// TPC-H result from before it had a benchmark member, by its "sf". A file of a
// workload this tierbench does not know is read for its common members and sections
// alone.
//
// The package links every workload (package all) but no engine implementation,
// emulator or placement, so that reports read results without them.
package resultfile
