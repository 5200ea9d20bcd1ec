// Package result holds what every result file has in common, apart from the
// measurements of one workload: the sections the run lifecycle attaches (Sections:
// where the files were and what the storage did, the energy, the monitoring and the
// bottleneck verdict), how a run ended (Status) and its headline numbers (Metric).
//
// Every workload's result embeds Sections, so the sections sit at the top level of
// its result.json beside the workload's own fields. Workloads never fill them: the
// lifecycle does, after the engine has stopped and the tiers are unmounted, when the
// figures are final. A workload says which windows its verdict judges by implementing
// verdict.Subject.
//
// The package is a leaf: it imports the standard library and the packages whose
// types its sections hold (engine's settings, device's power figures, energy's,
// monitor's and verdict's sections), never the emulator, placement or an engine
// implementation, so that reports and studies read results without linking them.
package result
