package twin

import (
	"bytes"
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"tierbench/internal/device"
)

// field is one field of the fitted profile, in file order.
type field struct {
	key    string
	value  string // as written in the file
	source string
}

// derive turns the probes' rounds into the profile's fields, each with the probe it
// came from, renders the file, and runs every probe through the fitted model.
func (res *FitResult) derive(runs [][]round) error {
	byName := map[string]*measured{}
	var ms []*measured
	for i, p := range probes {
		m := &measured{probe: p, rounds: runs[i]}
		for _, rd := range runs[i] {
			m.pooled = append(m.pooled, rd.latencies...)
		}
		slices.Sort(m.pooled)
		byName[p.Name] = m
		ms = append(ms, m)
	}
	results := make([]ProbeResult, len(ms))
	for i, m := range ms {
		results[i] = m.result()
	}
	rounds := fmt.Sprintf("%d rounds", res.Rounds)
	fields := []field{
		{"capacity_gb", num(float64(res.Where.CapacityBytes)/1e9, 1), "statfs of " + res.Where.Dir + ": the file system's size"},
		{"block_kib", num(block/1024, 0), "the random probes' request size"},
	}
	suffixes, ps := device.QuantileSuffixes()
	// The flush is what a write and fdatasync take together beyond an ordinary write
	// (the mean of randwrite-8k-qd1): the model puts the two in sequence.
	write := meanUs(byName["randwrite-8k-qd1"].pooled)
	flushes := flushSamples(byName["writeflush-8k"].pooled, write)
	less := fmt.Sprintf(", less the mean 8 KiB write (%.1f us, randwrite-8k-qd1 probe)", write)
	// The flush's mean is the pairs' mean less the write's: exact for means, where
	// the mean of the clamped differences is not. On a throttled volume most pairs
	// took less than the mean write (an fdatasync with nothing to write back costs
	// the throttle nothing) and clamping them at 0 doubled the flush's mean, 602 us
	// for 310, and the model's writeflush-8k was 36% slow, its commit-8k 24%.
	flushMean := meanUs(byName["writeflush-8k"].pooled) - write
	for _, src := range []struct {
		op, probe, what, less string
		samples               []time.Duration
		mean                  float64
	}{
		{"read", "randread-8k-qd1", "requests", "", byName["randread-8k-qd1"].pooled, meanUs(byName["randread-8k-qd1"].pooled)},
		{"write", "randwrite-8k-qd1", "requests", "", byName["randwrite-8k-qd1"].pooled, write},
		{"flush", "writeflush-8k", "writes and fdatasyncs", less, flushes, flushMean},
	} {
		n := len(src.samples)
		for i, s := range suffixes {
			fields = append(fields, field{device.QuantileKey(src.op, s), num(quantileUs(src.samples, ps[i]), 1),
				fmt.Sprintf("%s probe: %s of %d %s in %s%s", src.probe, s, n, src.what, rounds, src.less)})
		}
		above := n - int(math.Ceil(ps[len(ps)-1]*float64(n)))
		fields = append(fields, field{device.TailKey(src.op), num(tailUs(src.samples, ps[len(ps)-1]), 1),
			fmt.Sprintf("%s probe: mean of the slowest 0.1%% (%d %s)%s", src.probe, max(above, 0), src.what, src.less)})
		// the mean is at least the first quantile: clamping a flush at 0 can leave
		// the quantiles above the difference of the means
		mean := max(src.mean, quantileUs(src.samples, ps[0]))
		fields = append(fields, field{device.MeanKey(src.op), num(mean, 1),
			fmt.Sprintf("%s probe: mean of %d %s in %s%s", src.probe, n, src.what, rounds, src.less)})
	}
	for _, src := range []struct {
		key, probe string
		depth      int
	}{
		{"read_iops", "randread-8k-qd32", depth}, {"write_iops", "randwrite-8k-qd32", depth},
		{"read_iops_qd128", "randread-8k-qd128", deepDepth}, {"write_iops_qd128", "writeback-8k", 0},
	} {
		r := results[probeIndex(src.probe)]
		how := fmt.Sprintf("%d threads each waiting for its request", src.depth)
		if src.depth == 0 {
			how = fmt.Sprintf("fdatasync of %d scattered 8 KiB blocks written through the page cache, the block layer's queue full", writebackBlocks)
			if q := res.Where.QueueDepth; q > 0 {
				how += fmt.Sprintf(" (nr_requests %d)", q)
			}
		}
		fields = append(fields, field{src.key, num(r.Measured, 0),
			fmt.Sprintf("%s probe: median of %s (CV %.1f%%), %s", src.probe, rounds, r.CVPct, how)})
	}
	for _, src := range []struct{ op, seq, rnd string }{{"read", "seqread-1m-qd1", "randread-8k-qd1"}, {"write", "seqwrite-1m-qd1", "randwrite-8k-qd1"}} {
		seq, rnd := meanUs(byName[src.seq].pooled), meanUs(byName[src.rnd].pooled)
		rate, how := transferRate(seq, rnd)
		fields = append(fields, field{src.op + "_mbps", num(rate, 1),
			fmt.Sprintf("%s probe: 1 MiB in %.1f us on average; %s (%s probe)", src.seq, seq, how, src.rnd)})
	}
	queue := field{"queue_depth", "0", "no block device under " + res.Where.Dir + " to read nr_requests of: no bound"}
	if w := res.Where; w.QueueDepth > 0 {
		queue = field{"queue_depth", strconv.Itoa(w.QueueDepth),
			fmt.Sprintf("nr_requests of /sys/block/%s/queue: the requests the block layer holds in the device's queue", w.Device)}
	}
	split := field{"max_request_kib", "0", "no block device under " + res.Where.Dir + " to read max_sectors_kb of: nothing is split"}
	if w := res.Where; w.MaxRequestKiB > 0 {
		split = field{"max_request_kib", strconv.Itoa(w.MaxRequestKiB),
			fmt.Sprintf("max_sectors_kb of /sys/block/%s/queue: the largest request the block layer sends the device", w.Device)}
	}
	fields = append(fields, queue, split,
		field{"queues", "shared", ""},
		field{"idle_w", "0", "not measured: a fit times requests only; give the device's watts from its datasheet"},
		field{"active_w", "0", "not measured: a fit times requests only; give the device's watts from its datasheet"},
	)

	// The mixed probe decides whether reads and writes share the device's servers:
	// the choice whose model comes nearer its measured rate.
	mix := results[probeIndex("randrw70-8k-qd32")]
	queues := slices.IndexFunc(fields, func(f field) bool { return f.key == "queues" })
	var predicted [2]float64
	for i, choice := range []string{"shared", "separate"} {
		fields[queues].value = choice
		model, err := res.buildSpec(fields, res.Name)
		if err != nil {
			return err
		}
		predicted[i] = modelFigure(model, probeNamed("randrw70-8k-qd32"))
	}
	choice := 0
	if math.Abs(predicted[1]-mix.Measured) < math.Abs(predicted[0]-mix.Measured) {
		choice = 1
	}
	res.Queues = []string{"shared", "separate"}[choice]
	fields[queues] = field{"queues", res.Queues,
		fmt.Sprintf("randrw70-8k-qd32 probe: %.0f IOPS measured; one set of servers for both predicts %.0f, one each %.0f", mix.Measured, predicted[0], predicted[1])}

	fits := map[string]string{
		"randread-8k-qd1": "read_p*_us, read_tail_us", "randwrite-8k-qd1": "write_p*_us, write_tail_us",
		"writeflush-8k": "flush_p*_us, flush_tail_us", "randread-8k-qd32": "read_iops", "randwrite-8k-qd32": "write_iops",
		"randread-8k-qd128": "read_iops_qd128", "writeback-8k": "write_iops_qd128",
		"seqread-1m-qd1": "read_mbps", "seqwrite-1m-qd1": "write_mbps", "randrw70-8k-qd32": "queues",
	}
	for i := range results {
		p := probes[i]
		results[i].Fits = fits[p.Name]
		// a fresh model for each probe, as each probe starts on an idle device; a
		// commit is a buffered write: it goes through the page cache, then fsync
		// writes it back and flushes the device
		spec := res.Name
		if p.kind == kindCommit {
			spec = "pagecache(" + res.Name + ",size=1GiB)"
		}
		m, err := res.buildSpec(fields, spec)
		if err != nil {
			return err
		}
		results[i].Model = round3(modelFigure(m, p))
		if results[i].Measured != 0 {
			results[i].ErrorPct = round3((results[i].Model - results[i].Measured) / results[i].Measured * 100)
		}
	}
	res.Probes = results
	res.Fields = map[string]figure{}
	for _, f := range fields {
		res.Fields[f.key] = figure{Value: jsonValue(f.value), Source: f.source}
	}
	res.Profile = res.render(fields)
	return nil
}

// flushSamples are what each write and fdatasync pair took beyond a write of mean
// write microseconds, at least 0, sorted.
func flushSamples(pairs []time.Duration, write float64) []time.Duration {
	w := time.Duration(math.Round(write * 1e3))
	out := make([]time.Duration, len(pairs))
	for i, d := range pairs {
		out[i] = max(d-w, 0)
	}
	slices.Sort(out)
	return out
}

// transferRate is the rate of the bytes of a 1 MiB request beyond the first 8 KiB,
// from the mean latencies of 1 MiB (seq) and 8 KiB (rnd) requests, in MB/s, and how it
// was found. When the large request is no slower than the small one (a read-ahead or
// cache served it), the whole request's time is taken instead.
func transferRate(seqUs, rndUs float64) (float64, string) {
	// bytes per microsecond are MB/s
	extra := float64(seqSize - block)
	if seqUs-rndUs > seqUs/10 {
		return extra / (seqUs - rndUs), fmt.Sprintf("the 1016 KiB beyond the first 8 KiB take the difference from the 8 KiB mean of %.1f us", rndUs)
	}
	return float64(seqSize) / seqUs, fmt.Sprintf("no slower than 8 KiB (%.1f us), so the whole request's time is taken", rndUs)
}

func probeIndex(name string) int {
	for i, p := range probes {
		if p.Name == name {
			return i
		}
	}
	panic("twin: no probe " + name)
}

// num formats a value with up to digits decimals, never in exponent form.
func num(v float64, digits int) string {
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func jsonValue(s string) any {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return v
	}
	return s
}

// yamlQuote quotes a source for the profile file.
func yamlQuote(s string) string { return strconv.Quote(s) }

// body is the profile's YAML without its comment header.
func (res *FitResult) body(fields []field) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "name: %s\nclass: measured\n", res.Name)
	fmt.Fprintf(&b, "description: %s\n", yamlQuote("twin of "+res.Where.Describe()+" under "+res.Where.Dir))
	fmt.Fprintf(&b, "source: %s\n", yamlQuote(fmt.Sprintf("tierbench device fit %s on %s, %s", res.Where.Dir, res.Host, res.Started.Format(time.RFC3339))))
	for _, f := range fields {
		if f.source == "" {
			fmt.Fprintf(&b, "%s: %s\n", f.key, f.value)
			continue
		}
		fmt.Fprintf(&b, "%s: {value: %s, source: %s}\n", f.key, f.value, yamlQuote(f.source))
	}
	b.WriteString("power_scope: device\n")
	return b.Bytes()
}

// parse reads the fields back as a profile file would be read: what Fit writes is
// checked by the same code that will read it.
func (res *FitResult) parse(fields []field) (*device.Profile, error) {
	ps, err := device.ParseProfiles(res.Name+".yaml", res.body(fields))
	if err != nil {
		return nil, fmt.Errorf("the fitted profile does not parse (a bug): %w", err)
	}
	return ps[0], nil
}

func (res *FitResult) buildSpec(fields []field, spec string) (device.Model, error) {
	p, err := res.parse(fields)
	if err != nil {
		return nil, err
	}
	reg, err := registryWith(p)
	if err != nil {
		return nil, err
	}
	return reg.Build(spec)
}

// render is the profile file: a header that says where, when and how well the model
// fits each probe, then the profile.
func (res *FitResult) render(fields []field) []byte {
	var b bytes.Buffer
	w := res.Where
	fmt.Fprintf(&b, "# Device twin of %s, fitted by `tierbench device fit %s`\n", w.Describe(), w.Dir)
	fmt.Fprintf(&b, "# on host %s (Linux %s) at %s, in %.0f s: a %s working set, preconditioned,\n",
		res.Host, res.Kernel, res.Started.Format(time.RFC3339), res.Wall.Seconds(), bytesText(res.Size))
	fmt.Fprintf(&b, "# %d rounds of each probe (at most %v each). Every field below comes from the probe its\n", res.Rounds, res.Budget)
	b.WriteString("# source names; nothing was tuned after the fit (docs/devices.md, \"Device twins\").\n#\n")
	b.WriteString("# How well the model fits each probe (the probe's requests through this profile in\n")
	b.WriteString("# virtual time; commit-8k through pagecache(...) of it, a check that nothing fits):\n")
	b.WriteString(indentLines(probeTable(res.Probes), "#   "))
	b.WriteString("\n")
	b.Write(res.body(fields))
	return b.Bytes()
}

func indentLines(text, prefix string) string {
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		out.WriteString(strings.TrimRight(prefix+line, " ") + "\n")
	}
	return out.String()
}

// modelFigure runs probe p's requests through m in virtual time, closed loop: the
// probe's metric as the model gives it.
func modelFigure(m device.Model, p probe) float64 {
	const n = 20000
	rng := rand.New(rand.NewPCG(7, 7))
	span := int64(1 << 30)
	if s, ok := m.(device.Sized); ok && s.Capacity() > 0 {
		span = min(span, s.Capacity())
	}
	blocks := span / p.size
	switch p.kind {
	case kindSequential:
		var t time.Duration
		for i := range int64(256) {
			t = m.Submit(t, device.Request{Op: p.op, Offset: (i % blocks) * p.size, Size: p.size, File: 1, Direct: true})
		}
		return float64(256*p.size) / t.Seconds() / 1e6
	case kindFlush:
		var t, sum time.Duration
		for i := range int64(n) {
			start := t
			t = m.Submit(t, device.Request{Op: device.OpWrite, Offset: (i % blocks) * p.size, Size: p.size, File: 1, Direct: true})
			t = m.Submit(t, device.Request{Op: device.OpFlush, File: 1})
			sum += t - start
		}
		return float64(sum) / n / 1e3
	case kindWriteback:
		// every block at once, as the kernel submits them (the model has no queue
		// bound for one file), then the flush
		var last time.Duration
		for range writebackBlocks {
			last = max(last, m.Submit(0, device.Request{Op: device.OpWrite, Offset: rng.Int64N(blocks) * p.size, Size: p.size, File: 1, Direct: true}))
		}
		last = max(last, m.Submit(0, device.Request{Op: device.OpFlush, File: 1}))
		return writebackBlocks / last.Seconds()
	case kindCommit:
		var t, sum time.Duration
		for i := range int64(n) {
			start := t
			t = m.Submit(t, device.Request{Op: device.OpWrite, Offset: (i * p.size) % logSize, Size: p.size, File: 1})
			t = m.Submit(t, device.Request{Op: device.OpFlush, File: 1})
			sum += t - start
		}
		return n / sum.Seconds()
	}
	next := func() device.Request {
		op := p.op
		if p.readShare > 0 {
			op = device.OpWrite
			if rng.Float64() < p.readShare {
				op = device.OpRead
			}
		}
		return device.Request{Op: op, Offset: rng.Int64N(blocks) * p.size, Size: p.size, File: 1, Direct: true}
	}
	if p.depth == 1 {
		var t, sum time.Duration
		for range n {
			done := m.Submit(t, next())
			sum += done - t
			t = done
		}
		return float64(sum) / n / 1e3
	}
	// depth requests in flight; each completion submits the next
	var q device.DurationHeap
	for range p.depth {
		heap.Push(&q, m.Submit(0, next()))
	}
	var last time.Duration
	for i := p.depth; i < n; i++ {
		t := heap.Pop(&q).(time.Duration)
		heap.Push(&q, m.Submit(t, next()))
	}
	for q.Len() > 0 {
		last = max(last, heap.Pop(&q).(time.Duration))
	}
	return n / last.Seconds()
}
