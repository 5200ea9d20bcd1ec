package chart

import (
	"image/color"

	"gonum.org/v1/plot/vg"
)

// palette holds colours that stay apart for colour-blind readers: Okabe and Ito's
// set without black (the axes are black) and Paul Tol's "muted" set after it. Past
// its end the colours repeat with a dash pattern, so lines stay distinguishable.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
	{0x33, 0x22, 0x88, 0xFF}, // indigo
	{0x88, 0x22, 0x55, 0xFF}, // wine
	{0x11, 0x77, 0x33, 0xFF}, // green
	{0x99, 0x99, 0x33, 0xFF}, // olive
	{0xCC, 0x66, 0x77, 0xFF}, // rose
	{0x44, 0xAA, 0x99, 0xFF}, // teal
	{0x88, 0xCC, 0xEE, 0xFF}, // cyan
	{0xAA, 0x44, 0x99, 0xFF}, // purple
	{0xDD, 0xCC, 0x77, 0xFF}, // sand
}

var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}

// SeriesColor is the colour of series i in every rendering.
func SeriesColor(i int) color.RGBA { return palette[i%len(palette)] }

// seriesDashes is the dash pattern of series i's line (none for the first round of
// colours).
func seriesDashes(i int) []vg.Length { return dashes[(i/len(palette))%len(dashes)] }
