// Package device holds storage device profiles and pure, deterministic models of the
// devices they describe, for the emulator to put under a real database server.
//
// # Models
//
// A Model answers one question: a request (read, write or flush of a byte range, with its
// file and O_DIRECT flag) submitted at a time on a virtual clock completes when? It keeps
// the state that decides the answer (head position, when each server is free, cache
// contents) and counters (Stats). Nothing in a model reads the wall clock or a random
// source, so the same request sequence always gives the same completions, on every
// platform (time arithmetic is integer nanoseconds).
//
//	reg, err := device.Load(device.DefaultUserDir())
//	m, err := reg.Build("pagecache(ssd-cache(hdd-7200,size=32GiB,mode=writeback),size=4GiB)")
//	done := m.Submit(now, device.Request{Op: device.OpRead, Offset: off, Size: 8192, File: ino})
//	joules := device.Energy(m, runLength)
//
// Leaves: HDD (hdd.go) and SSD (ssd.go, flash or DRAM). Composites, which wrap any
// model: SAN (san.go), RAID10 (raid10.go), SSDCache (ssdcache.go), PageCache
// (pagecache.go), Limit (limit.go: token-bucket IOPS and throughput caps and a network
// round trip) and Cloud (cloud.go: a provider's block volume, its caps derived from
// the volume type's rules). Each file's comment says what is modelled and what is not.
// Every class carries embodied-carbon fields (embodied.go) for the energy section's
// SCI.
//
// # Profiles
//
// A profile is a named set of fields of one class, each with its source. Built-in
// profiles live in profiles/*.yaml (embedded): hdd-7200, hdd-10k, hdd-15k, sata-ssd,
// nvme and dram-ssd, and the cloud volumes aws-gp3, aws-io2, aws-st1, gcp-pd-balanced,
// gcp-pd-ssd, gcp-hyperdisk-balanced and azure-premium-ssd-v2 (docs/cloud.md). Users add YAML files of the same form (Load); a profile may also be
// a composite, such as a SAN array with the watts of the whole system:
//
//	name: san-hdd-array
//	class: san
//	source: "seed study 000, Table 4"
//	inner: raid10(hdd-15k,devices=8)
//	link_mbps: {value: 400, source: "4GFC"}
//	idle_w: {value: 263.8, source: "seed study 000 Table 4, HDD storage idle"}
//	active_w: {value: 281.3, source: "seed study 000 Table 4, HDD storage high load"}
//	power_scope: system
//
// Errors name the file, line and field ("my.yaml:7: field seek_avg_ms must be >= 0, got
// -3"). Device specs (spec.go) build composites on a command line:
// "san(dram-ssd,link=8gfc,controller=200us)".
//
// # Units
//
// Field names carry their unit (seek_avg_ms, transfer_mbps, size_gib). MB, GB and MB/s
// are decimal as vendors use them; KiB, MiB and GiB binary.
package device
