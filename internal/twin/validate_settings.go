package twin

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/engine"
	"tierbench/internal/params"
)

// DefaultCases are the default set: the OLTP mix on each engine, TPC-H on PostgreSQL.
var DefaultCases = []string{"oltp-sqlite", "oltp-postgres", "oltp-mysql", "tpch-postgres"}

// ValidateSettings are the parameters of `tierbench device validate DIR`. Run checks
// them, each failing with one line that names the flag, before anything runs.
type ValidateSettings struct {
	set       *params.Set
	profile   string
	paths     []string
	out, work string
	rounds    int
	cases     []string
	pageCache int64
	emu       string
	lock      string
	asJSON    bool
	sizes     Sizes

	// Emulator tunes the emulator of the emulated runs (tests start the server from
	// their own binary).
	Emulator emulator.Options
}

// NewValidateSettings returns device validate's parameters at their defaults.
func NewValidateSettings() *ValidateSettings {
	v := &ValidateSettings{set: params.NewSet("device validate"), sizes: DefaultSizes}
	s := v.set
	s.String(&v.profile, "profile", "", params.String, "profile to validate: a name, a spec or a profile file (default: the twin fitted for DIR's device, twin-DEVICE)")
	s.List(&v.paths, "profiles", device.ProfilesHelp)
	s.String(&v.out, "out", "", params.String, "directory for the runs and validate.json (default: validate-PROFILE in the current directory)")
	s.String(&v.work, "work", "", params.String, "directory for the emulated devices' files (default: a new directory on /dev/shm, so the host's disk stays out of the emulated runs)")
	s.Int(&v.rounds, "rounds", 3, "rounds of every case on each side")
	s.List(&v.cases, "cases", "WORKLOAD-ENGINE cases to run, from oltp-sqlite, oltp-postgres, oltp-mysql, tpch-sqlite, tpch-postgres, tpch-mysql (default "+strings.Join(DefaultCases, ",")+")")
	s.Size(&v.pageCache, "page-cache", "0", "page cache of the emulated side, the host's memory a buffered engine's files may fill (0: MemAvailable when the validation starts)")
	params.Parsed(s, &v.emu, "emulator", emulator.PathAuto, params.Enum, emulator.ParsePath, "path of the emulated runs: preload, fuse or auto").
		Choices = []string{emulator.PathFUSE, emulator.PathPreload, emulator.PathAuto}
	s.String(&v.lock, "lock", "", params.String, "a file to flock: exclusively during each round, shared during loads, so measurements on a shared host do not overlap")
	s.Bool(&v.asJSON, "json", false, "print the validation as JSON instead of a table")
	s.Duration(&v.sizes.Duration, "duration", DefaultSizes.Duration, "measured window of each OLTP run")
	s.Duration(&v.sizes.Ramp, "ramp", DefaultSizes.Ramp, "ramp-up before each OLTP window")
	s.Int(&v.sizes.Users, "users", DefaultSizes.Users, "virtual users of the OLTP runs")
	s.Float(&v.sizes.Scale, "scale", DefaultSizes.Scale, "scale of the OLTP mix's tables")
	s.Float(&v.sizes.SF, "sf", DefaultSizes.SF, "TPC-H scale factor")
	return v
}

// Params are the parameters, for a command line.
func (v *ValidateSettings) Params() *params.Set { return v.set }

// Run checks the parameters, validates and prints the table or JSON. Interrupted
// (ctx), it prints what finished and says so.
func (v *ValidateSettings) Run(ctx context.Context, dir string, stdout, stderr io.Writer) error {
	opts, err := v.options(dir)
	if err != nil {
		return err
	}
	if !v.asJSON {
		opts.Progress = stderr
		fmt.Fprintf(stderr, "validate %s against %s: %s, %d rounds; runs in %s\n",
			opts.Where.Describe(), opts.Spec, strings.Join(caseNames(opts.Cases), ", "), opts.Rounds, opts.Out)
	}
	res, err := Validate(ctx, opts)
	if res != nil {
		if v.asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if jerr := enc.Encode(res); jerr != nil && err == nil {
				err = jerr
			}
		} else {
			res.WriteText(stdout, opts.Out)
		}
	}
	if err != nil && ctx.Err() != nil {
		done := 0
		if res != nil {
			done = len(res.Runs)
		}
		return fmt.Errorf("interrupted: %d runs finished; what they measured is in %s: %w", done, filepath.Join(opts.Out, ResultFile), ctx.Err())
	}
	return err
}

func caseNames(cs []Case) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.String())
	}
	return out
}

// options checks every setting and works out what to run.
func (v *ValidateSettings) options(dir string) (ValidateOptions, error) {
	var opts ValidateOptions
	where, err := Locate(dir)
	if err != nil {
		return opts, err
	}
	if err := checkWritable(where.Dir); err != nil {
		return opts, err
	}
	if v.rounds < 1 || v.rounds > maxRounds {
		return opts, fmt.Errorf("--rounds %d: give 1 to %d rounds (3 or more for a spread)", v.rounds, maxRounds)
	}
	if v.sizes.Duration < time.Second || v.sizes.Ramp < 0 || v.sizes.Users < 1 || v.sizes.Scale <= 0 || v.sizes.SF < 0.01 {
		return opts, fmt.Errorf("--duration %v, --ramp %v, --users %d, --scale %g, --sf %g: give a window of 1s or more, a ramp of 0 or more, 1 user or more, a scale above 0 and an SF of 0.01 or more",
			v.sizes.Duration, v.sizes.Ramp, v.sizes.Users, v.sizes.Scale, v.sizes.SF)
	}
	cases, err := parseCases(v.cases)
	if err != nil {
		return opts, err
	}
	paths, err := device.ProfilePaths(v.paths)
	if err != nil {
		return opts, err
	}
	name, paths, err := resolveProfile(v.profile, paths, where)
	if err != nil {
		return opts, err
	}
	pageCache := v.pageCache
	if pageCache == 0 {
		if pageCache, err = memAvailable(); err != nil {
			return opts, fmt.Errorf("--page-cache: %w: give the page cache size", err)
		}
	}
	pageCache = pageCache / (1 << 20) * (1 << 20)
	spec := fmt.Sprintf("pagecache(%s,size=%dMiB", name, pageCache>>20)
	if kib := where.ReadAheadKiB; kib != nil {
		// the host's page cache reads ahead on the real side, so the emulated one does
		spec += fmt.Sprintf(",readahead=%dKiB", *kib)
	}
	spec += ")"
	reg, err := device.Load(paths...)
	if err != nil {
		return opts, fmt.Errorf("--profiles: %w", err)
	}
	if _, err := reg.Build(spec); err != nil {
		return opts, fmt.Errorf("--profile %s: %w", v.profile, err)
	}
	out := v.out
	if out == "" {
		out = "validate-" + name
	}
	if out, err = filepath.Abs(out); err != nil {
		return opts, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return opts, fmt.Errorf("--out %s: %w", v.out, err)
	}
	work := v.work
	if work == "" {
		parent := os.TempDir()
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			parent = "/dev/shm"
		}
		if work, err = os.MkdirTemp(parent, "tierbench-validate-"); err != nil {
			return opts, fmt.Errorf("--work: %w: give a directory for the emulated devices' files", err)
		}
	} else if err := checkDirFlag("--work", work); err != nil {
		return opts, err
	} else if work, err = os.MkdirTemp(work, "tierbench-validate-"); err != nil {
		return opts, fmt.Errorf("--work: %w", err)
	}
	if err := checkWork(work, cases, v.emu); err != nil {
		os.Remove(work)
		return opts, err
	}
	// a managed server runs as its own user and must reach its files there
	if err := os.Chmod(work, 0o755); err != nil {
		return opts, fmt.Errorf("--work: %w", err)
	}
	return ValidateOptions{Where: where, Profile: name, Spec: spec, PageCache: pageCache, Profiles: paths,
		Out: out, Work: work, Rounds: v.rounds, Cases: cases, Sizes: v.sizes, Emulator: v.emu, EmulatorOptions: v.Emulator, Lock: v.lock}, nil
}

// checkWork refuses a work directory on tmpfs for MariaDB on the preload path:
// MariaDB treats a redo log on tmpfs as persistent memory and maps it, which the
// preload path cannot time (a FUSE mount is no tmpfs to it).
func checkWork(work string, cases []Case, path string) error {
	var sfs unix.Statfs_t
	if path == emulator.PathFUSE || unix.Statfs(work, &sfs) != nil || memoryFS[int64(sfs.Type)] != "tmpfs" {
		return nil
	}
	for _, c := range cases {
		if c.Engine == "mysql" {
			return fmt.Errorf("--work %s is on tmpfs, where MariaDB maps its redo log into memory, which the preload path cannot time: give --work a directory on a block device, one in memory for choice (scripts/ram-volume up work 4G makes /mnt/tierbench-work), or --emulator fuse", filepath.Dir(work))
		}
	}
	return nil
}

// parseCases reads --cases.
func parseCases(list []string) ([]Case, error) {
	if len(list) == 0 {
		list = DefaultCases
	}
	var out []Case
	for _, s := range list {
		w, e, ok := strings.Cut(strings.TrimSpace(s), "-")
		if !ok || (w != "oltp" && w != "tpch") || !slices.Contains(engine.Names(), e) {
			return nil, fmt.Errorf("--cases %s: give WORKLOAD-ENGINE, the workload oltp or tpch and the engine sqlite, postgres or mysql (e.g. oltp-postgres)", s)
		}
		out = append(out, Case{Workload: w, Engine: e})
	}
	return out, nil
}

// resolveProfile finds the profile to validate: --profile as a profile file (whose
// one profile is then loaded with the others), a name or spec, or by default the twin
// fitted for the device. It returns the name and the profile files to load.
func resolveProfile(flag string, paths []string, where *Where) (string, []string, error) {
	if flag == "" {
		name := "twin-" + nameOf(where)
		reg, err := device.Load(paths...)
		if err != nil {
			return "", nil, fmt.Errorf("--profiles: %w", err)
		}
		if _, err := reg.Lookup(name); err != nil {
			return "", nil, fmt.Errorf("no profile %s for %s: fit one first (tierbench device fit %s), or give --profile", name, where.Device, where.Dir)
		}
		return name, paths, nil
	}
	if st, err := os.Stat(flag); err == nil && !st.IsDir() || strings.HasSuffix(flag, ".yaml") || strings.HasSuffix(flag, ".yml") {
		data, err := os.ReadFile(flag)
		if err != nil {
			return "", nil, fmt.Errorf("--profile %s: %w", flag, err)
		}
		ps, err := device.ParseProfiles(flag, data)
		if err != nil {
			return "", nil, fmt.Errorf("--profile %s is not a device profile: %w", flag, err)
		}
		if len(ps) != 1 {
			return "", nil, fmt.Errorf("--profile %s holds %d profiles: give a file of one, or its name with --profiles %s", flag, len(ps), flag)
		}
		abs, err := filepath.Abs(flag)
		if err != nil {
			return "", nil, fmt.Errorf("--profile %s: %w", flag, err)
		}
		return ps[0].Name, append(paths, abs), nil
	}
	reg, err := device.Load(paths...)
	if err != nil {
		return "", nil, fmt.Errorf("--profiles: %w", err)
	}
	if _, err := reg.Resolve(flag); err != nil {
		return "", nil, fmt.Errorf("--profile %s: %w", flag, err)
	}
	return flag, paths, nil
}

// memAvailable is MemAvailable of /proc/meminfo: what the host's page cache could
// hold of a run's files.
func memAvailable() (int64, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/meminfo: %w", err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("/proc/meminfo has no MemAvailable")
}

// checkWritable proves dir takes a new file (access(2) says yes to root on a
// read-only mount).
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".tierbench-write-test-*")
	if err != nil {
		return fmt.Errorf("%s is not writable (%v): the runs put their databases there; give a writable directory on the device", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// checkDirFlag checks that flag names an existing directory.
func checkDirFlag(flag, dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s %s: no such directory: create it", flag, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", flag, err)
	case !st.IsDir():
		return fmt.Errorf("%s %s is not a directory", flag, dir)
	}
	return nil
}
