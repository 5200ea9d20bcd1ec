// Package params is a named, typed set of parameters that both a command line and a
// study file set: each parameter has a flag name, help, default and kind, and a value
// that is a pflag.Value, so cobra registers the set unchanged (Set.FlagSet) while a
// study sets the same parameters by name from strings (Set.Set, Set.SetValues) with
// exactly the parsing and errors of the command line.
//
// Every value round-trips: Param.Values gives the text that Set.SetValues takes back
// to the same value, and Set.Args the command line that does, so a study can run a
// cell as a child process (`tierbench tpcc run --users 8 ...`) and get the run it
// would have got in-process.
//
// Integers and seeds are read as decimal only (pflag's own int flags read "010" as 8
// and "0x10" as 16; the TPC writes seeds with leading zeros). Sizes (256MB, 2GiB) and
// scale factors keep their text and are parsed by the workload's or lifecycle's
// builder, which checks values against each other and names the flag in its errors.
package params
