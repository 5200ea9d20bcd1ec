// Package chart is the figure model of tierbench's reports and its one drawing path:
// a Chart is plain data (kind, title, axes with units, named series of points with
// optional 95% CI), and gonum/plot draws it to a PNG, an SVG file and the SVG
// inlined in an HTML page, so the three cannot differ.
//
// Kinds: Line over a numeric x (users, buffer size, SF), one line per configuration,
// with error bars; Bar, grouped bars over categories (placements x engines);
// StackedBar, components of a total (energy per component per cell); TimeSeries,
// monitoring series of many points over seconds since the run started; StackedArea,
// time series that add up (watts per component). Validate refuses what cannot be
// drawn honestly (NaN, x going back along a line, negative values in a stack, a
// logarithmic axis through 0) with an error naming the chart, series and point.
//
// A time chart may carry Windows, named spans of x (a test, a level of users), drawn
// as labelled bands behind the data.
//
// An axis keeps to its quantity's range (Axis.Bounds: Axis.Range, or its unit's in
// package quantity): the headroom above the data stops at a share's 100%, and
// Validate refuses an error bar that leaves the range. An axis of whole numbers
// (Integer) has whole-number ticks; an axis may give its own ticks (Ticks), as a
// factor zipped to another does ("4 / 1GiB"). Every text is cut in the middle to
// what the canvas has room for, so a 300-character label cannot push the data out;
// the chart's data keep it whole. A series of one point, which has no line to draw,
// is a marker.
//
// Every SVG path that draws a series carries data-series (its index) and data-mark
// (a Mark: line, point, ci, bar, area, legend; a window's band: window, with the
// window's index), and ExpectedMarks says how many of each a series draws, so a
// test, in Go or in a browser, can count what was drawn and map it back to the data.
// Data lists every number a chart draws, for the table under it (a window's bounds
// are in the chart's JSON and the report's text).
//
//	c := chart.New(chart.Line, "tps-vs-users", "TPS vs users per device",
//		chart.Axis{Label: "users"}, chart.Axis{Label: "throughput", Unit: "tx/s"})
//	c.Add("hdd-7200", chart.XYCI(1, 100, 90, 110), chart.XYCI(8, 260, 240, 280))
//	c.Add("sata-ssd", chart.XY(1, 300), chart.XY(8, 1500))
//	png, err := c.PNG(chart.DefaultSize)
//
// Monitoring samples (metrics.jsonl lines, decoded by the caller) become a chart
// with FromSamples.
package chart
