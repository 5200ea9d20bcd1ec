// Package slurmtest starts a single-node Slurm cluster for tests, from Debian's
// slurm-wlm and munge packages: munged, slurmctld and slurmd started by the test
// itself in a directory of its own (no systemd, no /etc/slurm), on free ports, and
// stopped with the test. A test that needs it fails under CI=true when the programs
// are missing (scripts/setup installs them), or when it does not run as root (slurmd
// runs jobs as their users), and skips otherwise.
package slurmtest
