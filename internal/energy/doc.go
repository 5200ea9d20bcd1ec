// Package energy measures or models the energy of the whole system a run used, per
// component and per measured window, following the model of docs/energy.md:
//
//	E = E_cpu + E_dram + E_base + sum of E_device (+ meters outside the host)
//
// Every figure says how it was obtained (Method: rapl, meter, model, datasheet,
// constant; Measured) and from what source, and a modelled one carries a low and
// high end from its inputs' bands. What this host cannot measure (RAPL in a virtual
// machine) is an Unavailable with the reason, not an error.
//
// # Components
//
//   - cpu: RAPL package energy (powercap, read through procfs/sysfs; counters that
//     wrap at max_energy_range_uj are unwrapped, WrapDelta) where readable; else the
//     CPU model P = P_idle + (P_max - P_idle) x u at each sampling interval's measured
//     utilisation u, with idle and full watts from --cpu-watts or from the CPU table
//     (profiles.go: 10% and 100% of the socket's TDP; a virtual machine counts its
//     vCPUs' share of the socket).
//   - dram: RAPL's dram zones where the CPU has them; else a constant per module or
//     per GB of MemTotal (dram.go).
//   - base: motherboard, fans, NIC and power-supply loss, a constant the user gives.
//   - storage:TIER: each emulated device's modelled energy from the storage section
//     (result.Storage.EnergyDevices), taken as given, not recomputed.
//   - meters: readings from a lab meter's file (a regular file of time and watts lines,
//     ReadMeterFile, of which a last line without its newline is left out as torn) or
//     a polled command (ipmitool dcmi power reading, or numbers alone,
//     one a line, which are added: one per power supply; ParsePowerReading). A command
//     runs in a process group of its own, killed when it ends, so that nothing it
//     started outlives the poll. Every reading is 0 to MaxWatts. Readings are integrated
//     with the trapezoid rule over each window; readings more than GapSpacings of the
//     meter's spacing apart are not joined (a file's spacing is the median between its
//     readings, a command's the longest between two successful polls in a row: polls
//     follow the samples, which crowd at window marks). A meter of the whole host
//     (ScopeHost) that covers a window replaces cpu, dram and base in its total;
//     equipment outside the host (ScopeExtra) adds to it. A meter whose readings do not
//     cover a window says how much they cover, keeps its joules for that part, and stays
//     out of the total.
//
// Per window and component: joules with their band, Wh, average and peak watts (the
// highest average over one sampling interval), CO2 at the grid intensity, joules per
// query and per transaction; Watts/KQphH@Size for TPC-H (WattsPerKQphH) and
// the break-even rule of docs/energy.md (BreakEven) as helpers. The run window's watts over
// time are a Chart. Each window's Missing names the parts of the whole system its
// total leaves out (no CPU model, no --base-watts, a device or an outside meter
// without figures, or one covering part of the window), so that a total of DRAM and
// storage is never read as the whole system's.
//
// # What the run lifecycle calls
//
// Before the workload starts (after placing tiers and opening the engine), with the
// flags --cpu-watts (ParseCPUWatts), --base-watts, --grid-intensity, --power-meter
// FILE, --power-meter-cmd CMD (and a scope, ParseScope):
//
//	rec, err := energy.New(energy.Config{CPUWatts: w, BaseWatts: base, GridIntensity: grid,
//		Meters: []energy.MeterConfig{{File: file}}}) // or {Command: cmd}
//	if err != nil { return err } // a bad flag, a failing meter command, a meter file with a bad line
//	defer rec.Close()            // stops meter polls on a run that ends early
//	rec.Sample(time.Now(), math.NaN()) // the first sample: RAPL baselines, a meter poll
//
// At each of the monitor's samples (its tick and its window marks), on the same
// clock as the windows, with u the host's CPU utilisation over the interval that
// ends at the sample, steal left out: (host.cpu.all.busy_pct -
// host.cpu.all.steal_pct) / 100 from the monitor's host source:
//
//	watts := rec.Sample(s.Time, u) // each component's watts, for metrics.jsonl if wanted
//
// Sample reads a few sysfs files and starts meter polls in the background, so it
// does not hold the monitor up. Samples at most MaxSampleInterval apart keep RAPL's
// wraps countable. With sampling off (--sample off), call Sample at the start and the
// end with u NaN: RAPL and the meters still count, and the CPU model says it covers
// nothing.
//
// After the run (the monitor's last sample taken, the tiers unmounted so that the
// storage section is final):
//
//	sec, err := rec.Finish(energy.Inputs{
//		Windows: []energy.Window{{Label: "power", Start: t0, End: t1, Queries: 22}, ...},
//		Devices: storage.EnergyDevices(),
//	})
//	// keep sec in result.json whatever err says (err: a meter file unreadable at
//	// the end, named by file and line; the meter is left out, all else is kept)
//	energy.WriteSummary(w, sec, "run")
//
// Finish waits for the meter commands' last polls (each within its timeout), and adds
// a "run" window from the first sample to the last unless given one.
//
// Without RAPL and without a meter, every figure is modelled, and says so; a CPU that
// is not in the table and has no --cpu-watts leaves cpu out with the reason.
package energy
