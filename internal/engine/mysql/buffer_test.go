package mysql

import (
	"errors"
	"testing"

	"tierbench/internal/engine"
)

// TestCheckBuffer: a buffer pool below MariaDB's least for the page size is refused
// with the least; at or above it, at a page size without a known least, or with no
// --buffer at all, it is not.
func TestCheckBuffer(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		bytes    int64
		settings map[string]string
		min      int64 // 0: accepted
	}{
		{5 * mib, nil, 6 * mib},
		{6*mib - 1, nil, 6 * mib},
		{6 * mib, nil, 0},
		{256 * mib, nil, 0},
		{0, nil, 0},
		{16 * mib, map[string]string{"innodb-page-size": "64k"}, 20 * mib},
		{20 * mib, map[string]string{"innodb_page_size": "65536"}, 0},
		{3 * mib, map[string]string{"innodb_page_size": "8k"}, 0}, // left to the server
	} {
		err := registered{}.CheckBuffer(tc.bytes, tc.settings)
		var be *engine.BufferError
		switch {
		case tc.min == 0 && err != nil:
			t.Errorf("%d bytes, %v: %v", tc.bytes, tc.settings, err)
		case tc.min > 0 && (!errors.As(err, &be) || be.MinBytes != tc.min || be.Bytes != tc.bytes):
			t.Errorf("%d bytes, %v: %v, want the least %d", tc.bytes, tc.settings, err, tc.min)
		}
	}
}
