package textfmt

import "testing"

func TestAppendPadded(t *testing.T) {
	for _, c := range []struct {
		v     int64
		width int
		want  string
	}{
		{0, 0, ""}, {0, 1, "0"}, {0, 4, "0000"}, {7, 2, "07"}, {42, 2, "42"}, {838, 2, "838"},
		{1998, 4, "1998"}, {5, 9, "000000005"}, {9223372036854775807, 1, "9223372036854775807"},
	} {
		if got := string(AppendPadded([]byte("x"), c.v, c.width)); got != "x"+c.want {
			t.Errorf("AppendPadded(%d, %d) = %q, want %q", c.v, c.width, got, "x"+c.want)
		}
	}
}
