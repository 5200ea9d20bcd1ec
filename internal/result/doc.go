// Package result holds what every result file has in common, apart from the
// measurements of one workload: the sections the run lifecycle attaches (Sections:
// where the files were and what the storage did, and later monitoring, energy and a
// verdict), how a run ended (Status) and its headline numbers (Metric).
//
// Every workload's result embeds Sections, so the sections sit at the top level of
// its result.json beside the workload's own fields. Workloads never fill them: the
// lifecycle does, after the engine has stopped and the tiers are unmounted, when the
// figures are final.
//
// The package is a leaf: it imports the standard library and the pure packages whose
// types its sections hold (engine's settings, device's power figures, energy's
// section), never anything that mounts, runs or opens, so that reports and studies
// read results without linking the emulator or an engine.
package result
