package tpch

import (
	"strings"
	"testing"
)

func TestParseSF(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    float64
		wantErr string
	}{
		{"1", 1, ""},
		{"0.01", 0.01, ""},
		{" 0.37 ", 0.37, ""},
		{"10000", 10000, ""},
		{"0.001", 0, "at least 0.01"},
		{"-1", 0, "at least 0.01"},
		{"abc", 0, "not a number"},
		{"NaN", 0, "not a number"},
		{"1.5", 0, "whole numbers"},
		{"100000", 100000, ""},
		{"100001", 0, "too large"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSF(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseSF(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseSF(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}
