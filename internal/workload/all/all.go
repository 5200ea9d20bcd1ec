// Package all registers every workload with package workload: import it for its side
// effects where workloads are named (the command line, studies).
package all

import (
	_ "tierbench/internal/workload/oltp"
	_ "tierbench/internal/workload/postmark"
	_ "tierbench/internal/workload/tpcc"
	_ "tierbench/internal/workload/tpch"
)
