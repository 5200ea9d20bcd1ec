// Package cost prices a run (docs/cloud.md, "Cost"): a price table per device profile
// (a cloud volume's price per GiB-month, per provisioned IOPS-month (flat or in tiers) and per
// throughput-month above what the storage includes, each with its source and date),
// bundled and overridable by a user file, and the host's price per hour when given.
// From the billed volumes of a run's tiers and its headline window it makes the
// result's `cost` section: the storage and host cost of the run, USD per million
// transactions, and TPC-H's price/performance in USD per kQphH@Size over a three-year
// life, each from figures the section itself holds.
package cost
