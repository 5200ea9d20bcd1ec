package dbgen

// tblBytesAtSF1 is the size of each .tbl file at SF 1. The output is deterministic, so
// these are exact there (the lengths of the files dbgen and Generate write); other
// scale factors scale them with the row counts. Keys have fewer digits below SF 1
// (the estimate is then a few percent high) and more above (a lineitem row at SF
// 1000 is about 7% longer), which a capacity estimate can bear.
var tblBytesAtSF1 = map[string]float64{
	"part":     24_135_125,
	"partsupp": 118_984_616,
	"supplier": 1_409_184,
	"customer": 24_346_144,
	"orders":   171_952_161,
	"lineitem": 759_863_287,
	"nation":   2_224,
	"region":   389,
}

// updateSetBytesAtSF1 rounds up update set 2 at SF 1 (orders.tbl.u2 167,076 bytes,
// lineitem.tbl.u2 753,528, delete.2 9,497); sets differ by a few percent.
const updateSetBytesAtSF1 = 1_000_000

// MemoryBytes is about what generation holds in memory: the text pool (about 105 MiB
// as word pieces) and each table's fixed batch buffers. `scripts/gen-vs-tpchgen` measured
// peaks of 153 MiB at SF 1 and 166-175 MiB at SF 10 on 2 cores (docs/tpch.md, tpch gen);
// rounded up for more workers.
const MemoryBytes = 256 << 20

// TableBytes estimates the bytes of table's .tbl file at sf (0 for an unknown table
// or an invalid sf); with chunks > 1, of one chunk (nation and region are whole in
// every chunk, as WriteFiles writes them).
func TableBytes(table string, sf float64, chunks int) float64 {
	full := RowCount(table, 1)
	if full == 0 {
		return 0
	}
	b := tblBytesAtSF1[table] * float64(RowCount(table, sf)) / float64(full)
	if chunks > 1 && table != "nation" && table != "region" {
		b /= float64(chunks)
	}
	return b
}

// UpdateSetBytes estimates one update set at sf: orders.tbl.uN, lineitem.tbl.uN and
// delete.N together.
func UpdateSetBytes(sf float64) float64 {
	return updateSetBytesAtSF1 * float64(UpdateRowCount(sf)) / float64(UpdateRowCount(1))
}

// FileBytes estimates what WriteFiles writes for tables and updates update sets.
func FileBytes(tables []string, opt Options, updates int) float64 {
	var b float64
	for _, t := range tables {
		b += TableBytes(t, opt.SF, opt.Chunks)
	}
	return b + float64(updates)*UpdateSetBytes(opt.SF)
}
