package monitor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"tierbench/internal/metrics"
)

// MetricsPath is where the exporter serves the exposition.
const MetricsPath = "/metrics"

// Exporter serves a run's throughput and latency (from the runner, as a
// metrics.Observer) and the monitor's latest sample in Prometheus's exposition format
// at http://ADDR/metrics while the run goes (--metrics-addr).
//
// Series become metrics named tierbench_ and the series' fixed segments joined by '_',
// with its <label> segments as labels: disk.vda.util_pct is
// tierbench_disk_util_pct{disk="vda"}; counters end in _total. The workload's are
// tierbench_workload_*.
type Exporter struct {
	ln  net.Listener
	srv *http.Server

	mu      sync.Mutex
	mon     *Monitor
	descs   map[string]*prometheus.Desc // by metric name
	last    *metrics.IntervalRecord
	measure bool
	txns    map[string]float64 // completed transactions by type, summed over intervals
	errorsN float64
}

// CheckAddr checks that addr is HOST:PORT, without listening: an error names
// --metrics-addr.
func CheckAddr(addr string) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("--metrics-addr %q: give HOST:PORT, such as 127.0.0.1:9187 or :9187", addr)
	}
	return nil
}

// Listen starts serving on addr (HOST:PORT; ":9187" is every interface). An address
// already in use, or one that is not HOST:PORT, is an error naming --metrics-addr.
func Listen(addr string) (*Exporter, error) {
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("--metrics-addr %s: the address is already in use: stop what listens there or choose another port", addr)
	} else if err != nil {
		return nil, fmt.Errorf("--metrics-addr %s: %w", addr, err)
	}
	e := &Exporter{ln: ln, descs: map[string]*prometheus.Desc{}, txns: map[string]float64{}}
	reg := prometheus.NewRegistry()
	if err := reg.Register(e); err != nil {
		ln.Close()
		return nil, fmt.Errorf("monitor: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle(MetricsPath, promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "tierbench: the run's metrics are at %s\n", MetricsPath)
	})
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go e.srv.Serve(ln)
	return e, nil
}

// Addr is the address the exporter listens on (the port chosen, for ":0").
func (e *Exporter) Addr() string { return e.ln.Addr().String() }

// Watch serves m's samples from now on.
func (e *Exporter) Watch(m *Monitor) {
	e.mu.Lock()
	e.mon = m
	e.mu.Unlock()
}

// Interval takes a runner's interval record (metrics.Observer).
func (e *Exporter) Interval(rec metrics.IntervalRecord) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.last = &rec
	e.measure = rec.Phase == "measure"
	for op, r := range rec.Ops {
		e.txns[op] += float64(r.Count)
		e.errorsN += float64(r.Errors)
	}
}

// Close stops serving.
func (e *Exporter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return e.srv.Shutdown(ctx)
}

// Describe sends nothing: the series are known only once sampled (an unchecked
// collector).
func (e *Exporter) Describe(chan<- *prometheus.Desc) {}

// Collect sends the workload's last interval and the monitor's last sample.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.collectWorkload(ch)
	if e.mon == nil {
		return
	}
	s := e.mon.Latest()
	if s == nil {
		return
	}
	cat := e.mon.Catalogue()
	send := func(name string, v float64, kind Kind) {
		info, labels, ok := Find(cat, name)
		if !ok || info.Kind != kind {
			return
		}
		metric, labelNames := promName(info)
		vt := prometheus.GaugeValue
		if kind == Counter {
			vt = prometheus.CounterValue
		}
		desc, ok := e.descs[metric]
		if !ok {
			desc = prometheus.NewDesc(metric, info.Help+" ("+info.Unit+")", labelNames, nil)
			e.descs[metric] = desc
		}
		if m, err := prometheus.NewConstMetric(desc, vt, v, labels...); err == nil {
			ch <- prometheus.NewMetricWithTimestamp(s.Time, m)
		}
	}
	for name, v := range s.Values {
		send(name, v, Value)
	}
	for name, v := range s.Counters {
		send(name, v, Counter)
	}
}

// promName is the metric name and label names of a series' pattern.
func promName(info SeriesInfo) (string, []string) {
	var fixed, labels []string
	for _, seg := range strings.Split(info.Name, ".") {
		if strings.HasPrefix(seg, "<") && strings.HasSuffix(seg, ">") {
			labels = append(labels, strings.Trim(seg, "<>"))
		} else {
			fixed = append(fixed, seg)
		}
	}
	name := "tierbench_" + strings.Join(fixed, "_")
	if info.Kind == Counter {
		name += "_total"
	}
	return name, labels
}

var (
	wlUsers     = prometheus.NewDesc("tierbench_workload_users", "virtual users of the current level", nil, nil)
	wlMeasuring = prometheus.NewDesc("tierbench_workload_measuring", "1 in a measured window, 0 in a ramp-up", nil, nil)
	wlTPS       = prometheus.NewDesc("tierbench_workload_tps", "transactions completed a second over the last report interval", nil, nil)
	wlQPS       = prometheus.NewDesc("tierbench_workload_qps", "statements a second over the last report interval", nil, nil)
	wlErrors    = prometheus.NewDesc("tierbench_workload_errors_per_s", "failed transactions a second over the last report interval", nil, nil)
	wlLatency   = prometheus.NewDesc("tierbench_workload_latency_ms", "transaction latency over the last report interval, every type (quantile: 0.5, 0.95, 0.99, 1 the maximum)", []string{"quantile"}, nil)
	wlOpTPS     = prometheus.NewDesc("tierbench_workload_op_tps", "transactions of a type completed a second over the last report interval", []string{"op"}, nil)
	wlTxns      = prometheus.NewDesc("tierbench_workload_transactions_total", "transactions of a type completed since the run began, ramp-ups included", []string{"op"}, nil)
	wlErrTotal  = prometheus.NewDesc("tierbench_workload_errors_total", "failed transactions since the run began", nil, nil)
)

func (e *Exporter) collectWorkload(ch chan<- prometheus.Metric) {
	r := e.last
	if r == nil {
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(wlUsers, float64(r.Users))
	measuring := 0.0
	if e.measure {
		measuring = 1
	}
	gauge(wlMeasuring, measuring)
	gauge(wlTPS, r.TPS)
	gauge(wlQPS, r.QPS)
	gauge(wlErrors, r.ErrorsPS)
	for q, v := range map[string]float64{"0.5": r.Latency.P50, "0.95": r.Latency.P95, "0.99": r.Latency.P99, "1": r.Latency.Max} {
		gauge(wlLatency, v, q)
	}
	for op, rep := range r.Ops {
		gauge(wlOpTPS, rep.PerSecond, op)
	}
	for op, n := range e.txns {
		ch <- prometheus.MustNewConstMetric(wlTxns, prometheus.CounterValue, n, op)
	}
	ch <- prometheus.MustNewConstMetric(wlErrTotal, prometheus.CounterValue, e.errorsN)
}
