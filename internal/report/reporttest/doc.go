// Package reporttest opens a report page in headless Chromium for tests, in a window
// of 1400 x 900 CSS pixels (a laptop's screen), and says what the browser saw: each
// chart's drawn box, where it is on the page and its marks per series, the data each
// chart carries, every table's text and exact numbers and how much of it is cut off,
// the highlighted numbers, and every console error, uncaught exception and failed
// request.
//
// It drives Debian's /usr/bin/chromium (the package scripts/setup installs) through
// chromedp, with a fresh profile and the background networking that a closed
// network refuses turned off. When Chromium is missing, a test skips, or fails under
// CI=true.
//
//	page := reporttest.Load(t, filepath.Join(dir, "report.html"))
//	page.CheckClean(t)
//	page.CheckCharts(t, doc.Charts())
//	mean := page.Table("tpm").Rows[0][3].Value
package reporttest
