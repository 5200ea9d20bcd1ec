// Package dbgen is a byte-exact Go port of the TPC-H data generator dbgen
// (kit revision 2.17.3), which implements TPC-H Clause 4.2 (database
// population) and the refresh data of Clause 2.5.
//
// It writes the eight tables in dbgen's .tbl format (fields separated and
// terminated by '|') and the refresh sets of dbgen -U. The algorithms are
// dbgen's:
//
//   - a Park-Miller generator with 48 column streams, each advanced to a fixed
//     number of draws per row, so the state at row r is
//     seed * 16807^(r*boundary) mod (2^31-1) and any row range can be
//     generated on its own (rng.go);
//   - the 300 MiB text pool built from the grammar and word lists of
//     dists.dss, from which every comment is cut, held as 16-bit word
//     pieces with an index (text.go, textpar.go);
//   - sparse order keys, RETAILPRICE, PS_SUPPKEY, phone numbers, dates and
//     the other column formulas of Clause 4.2.3 (one file per table);
//   - dbgen's -C/-S chunk split and -U/-S update sets (api.go, update.go).
//
// Generate cuts row ranges into batches that Workers goroutines generate in
// parallel; batches are written in order, so output does not depend on the
// number of workers or on chunking. The text pool is built once per process
// (in parallel, see textpar.go) and shared.
//
// The distributions file is embedded (dists.dss); nothing is read from disk.
// Every scale factor up to 100000 is generated; from 30000 on, O_CUSTKEY and
// L_PARTKEY come from dbgen's 64-bit generator, walked as chain.go explains.
package dbgen
