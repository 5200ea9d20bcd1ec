package reporttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"tierbench/internal/report/chart"
)

// Page is what the browser saw of a page, in a window of Width x Height CSS pixels.
type Page struct {
	URL           string
	Width, Height float64
	Charts        []Chart
	Tables        []Table
	Highlights    []Highlight
	// Errors are console errors, uncaught exceptions and error log entries.
	Errors []string
	// Requests are the URLs the page asked for; Failed those that failed.
	Requests []string
	Failed   []string
}

// Chart is one figure.chart element.
type Chart struct {
	Name string
	// Width and Height are the drawn SVG's box on the page, in CSS pixels; Top and
	// Bottom its edges from the page's top.
	Width, Height float64
	Top, Bottom   float64
	Marks         []Mark
	// Data is the chart as the page's JSON script holds it.
	Data chart.Chart
}

// Mark is one path that draws a series.
type Mark struct {
	Series int
	Kind   chart.Mark
	// Vertices counts the path's M and L commands.
	Vertices int
	// Width and Height are the path's bounding box in SVG units.
	Width, Height float64
}

// Table is one table element with a data-table name.
type Table struct {
	Name string
	// InChart is set for the data table under a chart.
	InChart  bool
	Headings []string
	Rows     [][]Entry
	// Hidden is how many CSS pixels of the table's width its box scrolls past: 0 when
	// all of it shows.
	Hidden float64
}

// Highlight is one number shown large.
type Highlight struct {
	Title string
	Entry
}

// Entry is one cell: its text and, for a number, its data-value.
type Entry struct {
	Text string
	// Value is the parsed data-value; nil without one.
	Value *float64
}

// ChromiumPath is the browser the tests drive: $TIERBENCH_CHROMIUM, or chromium on
// PATH. Without one the test skips, or fails when CI=true.
func ChromiumPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("TIERBENCH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium is not installed: run ./scripts/setup (it installs Debian's chromium package)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// timeout bounds one page load, start of the browser included, on a loaded machine.
const timeout = 90 * time.Second

// The window a page is opened in: a laptop's screen.
const (
	windowWidth  = 1400
	windowHeight = 900
)

// collectJS gathers the page's facts in one evaluation.
const collectJS = `(() => {
  const charts = [...document.querySelectorAll('figure.chart')].map(f => {
    const svg = f.querySelector('svg.chart');
    const r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
    const marks = svg ? [...svg.querySelectorAll('path[data-series]')].map(p => {
      const b = p.getBBox();
      return {series: +p.dataset.series, kind: p.dataset.mark,
        vertices: (p.getAttribute('d').match(/[ML]/g) || []).length, width: b.width, height: b.height};
    }) : [];
    const data = f.querySelector('script.chart-data');
    return {name: f.dataset.chart, width: r.width, height: r.height, top: r.top + scrollY, bottom: r.bottom + scrollY,
      marks, data: data ? data.textContent : ''};
  });
  const tables = [...document.querySelectorAll('table[data-table]')].map(t => {
    const box = t.closest('.wide') || t.parentElement;
    return {
      name: t.dataset.table, inChart: !!t.closest('figure.chart'),
      headings: [...t.querySelectorAll('thead th')].map(th => th.textContent),
      rows: [...t.querySelectorAll('tbody tr')].map(tr => [...tr.children].map(td =>
        ({text: td.textContent, value: td.hasAttribute('data-value') ? td.dataset.value : null}))),
      hidden: Math.max(0, box.scrollWidth - box.clientWidth),
    };
  });
  const highlights = [...document.querySelectorAll('.highlight')].map(h => {
    const v = h.querySelector('dd.num');
    return {title: h.querySelector('dt').textContent, text: v.textContent, value: v.hasAttribute('data-value') ? v.dataset.value : null};
  });
  return {width: innerWidth, height: innerHeight, charts, tables, highlights};
})()`

type rawEntry struct {
	Text  string  `json:"text"`
	Value *string `json:"value"`
}

type rawFacts struct {
	Width, Height float64
	Charts        []struct {
		Name   string  `json:"name"`
		Width  float64 `json:"width"`
		Height float64 `json:"height"`
		Top    float64 `json:"top"`
		Bottom float64 `json:"bottom"`
		Marks  []struct {
			Series   int     `json:"series"`
			Kind     string  `json:"kind"`
			Vertices int     `json:"vertices"`
			Width    float64 `json:"width"`
			Height   float64 `json:"height"`
		} `json:"marks"`
		Data string `json:"data"`
	} `json:"charts"`
	Tables []struct {
		Name     string       `json:"name"`
		InChart  bool         `json:"inChart"`
		Headings []string     `json:"headings"`
		Rows     [][]rawEntry `json:"rows"`
		Hidden   float64      `json:"hidden"`
	} `json:"tables"`
	Highlights []struct {
		Title string `json:"title"`
		rawEntry
	} `json:"highlights"`
}

// Load opens the HTML file at path in headless Chromium, waits for it to load and
// reads what it shows.
func Load(t testing.TB, path string) *Page {
	t.Helper()
	exe := ChromiumPath(t)
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	p := &Page{URL: (&url.URL{Scheme: "file", Path: abs}).String()}

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		// On a closed network, the connections Chromium opens by itself are refused
		// many at a time; keep it from opening them.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	defer bcancel()

	// The listener runs in the tab's message loop: it only appends, under a lock.
	var mu sync.Mutex
	err = chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				p.Errors = append(p.Errors, "console: "+consoleText(ev.Args))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				text += " " + d.Exception.Description
			}
			p.Errors = append(p.Errors, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber, text))
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				p.Errors = append(p.Errors, fmt.Sprintf("log %s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			p.Requests = append(p.Requests, ev.Request.URL)
		case *network.EventLoadingFailed:
			p.Failed = append(p.Failed, fmt.Sprintf("%s %s: %s", ev.Type, ev.RequestID, ev.ErrorText))
		}
	})
	if err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	// chromedp enables the Log, Network and Runtime domains of a new tab; Navigate
	// returns once the page has loaded.
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(windowWidth, windowHeight), chromedp.Navigate(p.URL)); err != nil {
		t.Fatalf("load %s in %s: %v", p.URL, exe, err)
	}
	facts, err := chromedp.Run(bctx, chromedp.Evaluate[rawFacts](collectJS))
	if err != nil {
		t.Fatalf("read %s: %v", p.URL, err)
	}
	mu.Lock()
	defer mu.Unlock()
	p.Width, p.Height = facts.Width, facts.Height
	entry := func(table string, e rawEntry) Entry {
		out := Entry{Text: e.Text}
		if e.Value != nil {
			v, err := strconv.ParseFloat(*e.Value, 64)
			if err != nil {
				t.Errorf("%s: data-value %q is not a number", table, *e.Value)
			}
			out.Value = &v
		}
		return out
	}
	for _, c := range facts.Charts {
		pc := Chart{Name: c.Name, Width: c.Width, Height: c.Height, Top: c.Top, Bottom: c.Bottom}
		for _, m := range c.Marks {
			pc.Marks = append(pc.Marks, Mark{Series: m.Series, Kind: chart.Mark(m.Kind), Vertices: m.Vertices, Width: m.Width, Height: m.Height})
		}
		if err := json.Unmarshal([]byte(c.Data), &pc.Data); err != nil {
			t.Errorf("chart %s: its data script does not decode: %v", c.Name, err)
		}
		p.Charts = append(p.Charts, pc)
	}
	for _, tb := range facts.Tables {
		pt := Table{Name: tb.Name, InChart: tb.InChart, Headings: tb.Headings, Hidden: tb.Hidden}
		for _, r := range tb.Rows {
			row := make([]Entry, len(r))
			for i, e := range r {
				row[i] = entry("table "+tb.Name, e)
			}
			pt.Rows = append(pt.Rows, row)
		}
		p.Tables = append(p.Tables, pt)
	}
	for _, h := range facts.Highlights {
		p.Highlights = append(p.Highlights, Highlight{Title: h.Title, Entry: entry("highlight "+h.Title, h.rawEntry)})
	}
	return p
}

func consoleText(args []*runtime.RemoteObject) string {
	s := ""
	for _, a := range args {
		if s != "" {
			s += " "
		}
		if a.Value != nil {
			s += string(a.Value)
		} else {
			s += a.Description
		}
	}
	return s
}
