package quantity

// units is the registry: every unit of a report's metrics, columns and axes, of a
// workload's headline metrics and of the monitor's and the engines' series, with the
// range of what it measures. A rate of any of them ("pages/s") is NonNegative too (Of).
var units = map[string]Range{
	// Shares of a whole: of the CPUs' time, a device's time, page reads served by a
	// buffer, the users' time, a stall. The monitor's series name them pct.
	"%": Percent, "pct": Percent, "% of the users' time": Percent,

	// Times.
	"s": NonNegative, "ms": NonNegative, "µs": NonNegative, "ns": NonNegative, "seconds": NonNegative,

	// Sizes and data rates (the monitor's mib and mb_s).
	"bytes": NonNegative, "KiB": NonNegative, "MiB": NonNegative, "GiB": NonNegative, "mib": NonNegative,
	"MB": NonNegative, "mb_s": NonNegative,

	// Energy, power, emissions.
	"J": NonNegative, "Wh": NonNegative, "W": NonNegative, "watts": NonNegative, "g": NonNegative,

	// CPU: cores busy (CPU seconds a second), and the host's CPUs.
	"cores": NonNegative, "cpus": NonNegative,

	// TPC-H's composite metrics: queries an hour at the scale factor (Clause 5.4).
	"QphH@Size": NonNegative, "Power@Size": NonNegative, "Throughput@Size": NonNegative,

	// What a workload, an engine, a device or the host counts, and its rates (the
	// monitor's per_s; tx/min and the like are rates of a count below).
	"per_s": NonNegative, "tx": NonNegative, "transactions": NonNegative, "new orders": NonNegative,
	"statements": NonNegative, "queries": NonNegative, "commits": NonNegative, "rows": NonNegative,
	"records": NonNegative, "pages": NonNegative, "blocks": NonNegative, "tables": NonNegative,
	"files": NonNegative, "reads": NonNegative, "writes": NonNegative, "flushes": NonNegative,
	"fsyncs": NonNegative, "requests": NonNegative, "waits": NonNegative, "times": NonNegative,
	"checkpoints": NonNegative, "sleeps": NonNegative, "sessions": NonNegative,
	"connections": NonNegative, "processes": NonNegative, "threads": NonNegative,
	"tasks": NonNegative, "switches": NonNegative, "errors": NonNegative, "operations": NonNegative,
}
