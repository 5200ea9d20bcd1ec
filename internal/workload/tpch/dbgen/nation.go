package dbgen

// nations appends the 25 NATION rows; the region key is the cumulative weight
// in dists.dss, as dbgen reads it (Clause 4.2.3).
func (g *gen) nations(b []byte) []byte {
	r := newRowSeeds([]int{sNCmnt}, func(int) int64 { return 0 })
	d := g.ds.nations
	for i := range d.words {
		b = appendInt(b, int64(i))
		b = appendSep(b)
		b = append(b, d.words[i]...)
		b = appendSep(b)
		b = appendInt(b, d.cum[i])
		b = appendSep(b)
		b = g.appendText(b, g.text(r, 72, sNCmnt))
		b = append(b, '|', '\n')
		r.nextRow()
	}
	return b
}

// regions appends the 5 REGION rows.
func (g *gen) regions(b []byte) []byte {
	r := newRowSeeds([]int{sRCmnt}, func(int) int64 { return 0 })
	d := g.ds.regions
	for i := range d.words {
		b = appendInt(b, int64(i))
		b = appendSep(b)
		b = append(b, d.words[i]...)
		b = appendSep(b)
		b = g.appendText(b, g.text(r, 72, sRCmnt))
		b = append(b, '|', '\n')
		r.nextRow()
	}
	return b
}
