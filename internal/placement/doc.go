// Package placement puts each class of a database's files (data, WAL, temp) on a
// tier, where a tier is a real directory or a device emulated by package emulator,
// adds the engine settings that keep the engine's I/O honest on an emulated device,
// and turns the emulator's counters into the storage section of a result: per-device
// counters, energy from the profile's idle and active watts, and CO2 from a grid
// intensity.
//
//	plan, err := placement.NewPlan([]string{"fast=sata-ssd", "slow=/srv/hdd"}, placement.Classes{Data: "slow", WAL: "fast"}, reg)
//	pl, err := plan.Start(ctx, placement.Options{OutDir: out})
//	defer pl.Stop()                        // unmounts; safe to call twice
//	files, err := pl.EngineFiles(cfg)      // data, WAL and temp directories, env, settings to add
//	... put files into cfg (the run lifecycle does) ...
//	eng, err := engine.Open(ctx, cfg)
//	... run, then close the engine: a server must let go of the mounts first ...
//	storage, err := pl.Finish(placement.DefaultGridIntensity) // unmounts, returns the result section
//
// A tier value that the device registry resolves (a profile or a device spec such as
// "pagecache(sata-ssd,size=64MiB)", or "null") is emulated: its files live in
// OUT/tiers/NAME/backing and are used through the mount OUT/tiers/NAME/mnt on the FUSE
// path, or in the backing directory itself on the preload path (docs/devices.md, "Two
// paths to the models"), and are removed after the run unless Options.Keep. Any other value must be an existing, writable
// directory. The database goes in a "db" directory inside its tier, so an engine that
// removes its empty directory never removes a user's.
//
// Engines differ in what can be placed apart: PostgreSQL and MariaDB take a WAL
// (redo log) directory and a temp directory; SQLite keeps its WAL and journal beside
// the database file, so for SQLite --wal must name the data tier or be left out. What
// each engine needs, and the reason for each setting, is its driver's
// engine.IOSettings (in the engine's own package), which placement asks for by the
// engine's name: placement knows no engine.
package placement
