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
// and "0x10" as 16; the TPC writes seeds with leading zeros). A value that needs more
// than pflag's parsing (a size such as 256MB, a client I/O mode, a sampling interval
// or "off") is a Parsed parameter: read into its type when it is set, so a bad value
// fails where it is given and the typed value is what travels on, while its text
// stays for help, Values and Args. Its error names the flag itself (ValueError), and
// FlagError keeps pflag from naming it a second time. Checks of values against each
// other stay with the workload's or the lifecycle's builder, which names the flags.
//
// Every command declares its flags this way, the workloads' phases, the run settings
// and the tool commands alike: the package that owns a command's work owns its Set
// (tpch.GenSettings, demo.Settings, emulator.CalibrateSettings, ...), and the command
// line adds the Set's FlagSet to the command.
package params
