// Package textfmt formats numbers into byte slices without allocating, for the hot
// paths that write text: dbgen's rows and the MariaDB binary protocol's values.
package textfmt

// AppendPadded appends v, which must not be negative, zero-padded to width digits.
func AppendPadded(b []byte, v int64, width int) []byte {
	var tmp [20]byte
	i := len(tmp)
	for v > 0 || len(tmp)-i < width {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, tmp[i:]...)
}
