package energy

import (
	"slices"
	"strings"
)

// CPUProfile is one row of the CPU table: a processor's thermal design power (TDP)
// and hardware threads per socket, from its vendor's specification page. The model
// takes idle and full watts from the TDP (cpumodel.go).
type CPUProfile struct {
	// Match is the processor's name as normalise gives it ("xeon gold 6130"): a
	// model name matches when it contains Match as whole words.
	Match   string
	TDPW    float64 // one socket
	Threads int     // one socket's hardware threads
	Source  string
	// Family lists the Match of the rows a family row stands for: a virtual machine
	// whose hypervisor names only the family ("AMD EPYC") gets the median TDP per
	// thread of those rows, and their lowest to highest as its band.
	Family []string
}

const (
	intelARK = "Intel ARK specification page"
	amdSpec  = "AMD product specification page"
)

// CPUProfiles is the table, kept small on purpose: server parts common in labs and
// clouds, and families that hypervisors name without a model number. A CPU not here
// is modelled only with --cpu-watts.
var CPUProfiles = []CPUProfile{
	{Match: "xeon e5-2650 v2", TDPW: 95, Threads: 16, Source: intelARK},
	{Match: "xeon e5-2680 v4", TDPW: 120, Threads: 28, Source: intelARK},
	{Match: "xeon e5-2690 v4", TDPW: 135, Threads: 28, Source: intelARK},
	{Match: "xeon silver 4214", TDPW: 85, Threads: 24, Source: intelARK},
	{Match: "xeon gold 6130", TDPW: 125, Threads: 32, Source: intelARK},
	{Match: "xeon gold 6148", TDPW: 150, Threads: 40, Source: intelARK},
	{Match: "xeon gold 6230", TDPW: 125, Threads: 40, Source: intelARK},
	{Match: "xeon platinum 8168", TDPW: 205, Threads: 48, Source: intelARK},
	{Match: "xeon platinum 8380", TDPW: 270, Threads: 80, Source: intelARK},
	{Match: "core i7-8700", TDPW: 65, Threads: 12, Source: intelARK},
	{Match: "amd epyc 7302", TDPW: 155, Threads: 32, Source: amdSpec},
	{Match: "amd epyc 7601", TDPW: 180, Threads: 64, Source: amdSpec},
	{Match: "amd epyc 7742", TDPW: 225, Threads: 128, Source: amdSpec},
	{Match: "amd epyc 7763", TDPW: 280, Threads: 128, Source: amdSpec},
	{Match: "amd epyc 9654", TDPW: 360, Threads: 192, Source: amdSpec},
	{Match: "amd epyc", Source: "the flagship of each EPYC generation (7601, 7742, 7763, 9654; " + amdSpec + ")",
		Family: []string{"amd epyc 7601", "amd epyc 7742", "amd epyc 7763", "amd epyc 9654"}},
}

// normalise turns a /proc/cpuinfo model name into the table's form: lower case,
// without (R), (TM), "CPU", "Processor" and the clock ("@ 2.10GHz"), and with QEMU's
// generation suffix as a word of its own ("AMD EPYC-Rome Processor": "amd epyc rome").
func normalise(model string) string {
	s := strings.ReplaceAll(strings.ToLower(model), "epyc-", "epyc ")
	if i := strings.Index(s, "@"); i >= 0 {
		s = s[:i]
	}
	for _, junk := range []string{"(r)", "(tm)"} {
		s = strings.ReplaceAll(s, junk, "")
	}
	var words []string
	for _, w := range strings.Fields(s) {
		if w != "cpu" && w != "processor" {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// lookupCPU returns the row whose Match is the longest found in model as whole words.
func lookupCPU(model string) (CPUProfile, bool) {
	name := " " + normalise(model) + " "
	var best CPUProfile
	found := false
	for _, p := range CPUProfiles {
		if strings.Contains(name, " "+p.Match+" ") && len(p.Match) > len(best.Match) {
			best, found = p, true
		}
	}
	return best, found
}

// perThread is a row's TDP per hardware thread, low, nominal and high: a family's
// median of its members and their lowest and highest; one part's exactly.
func (p CPUProfile) perThread() Range {
	if len(p.Family) == 0 {
		return Exact(p.TDPW / float64(p.Threads))
	}
	var v []float64
	for _, m := range p.Family {
		for _, q := range CPUProfiles {
			if q.Match == m && len(q.Family) == 0 {
				v = append(v, q.TDPW/float64(q.Threads))
			}
		}
	}
	slices.Sort(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return Range{v[0], med, v[len(v)-1]}
}
