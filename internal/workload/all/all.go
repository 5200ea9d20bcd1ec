// Package all registers every workload with package workload: import it for its side
// effects where workloads are named (the command line, studies).
package all

import (
	_ "tierbench/internal/files"
	_ "tierbench/internal/oltp/mix"
	_ "tierbench/internal/oltp/tpcc"
	_ "tierbench/internal/tpch"
)
