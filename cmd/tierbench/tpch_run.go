package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"tierbench/internal/engine"
	_ "tierbench/internal/engine/mysql"
	_ "tierbench/internal/engine/postgres"
	_ "tierbench/internal/engine/sqlite"
	"tierbench/internal/progress"
	"tierbench/internal/result"
	"tierbench/internal/tpch"
	"tierbench/internal/tpch/qgen"
)

// exitValidationFailed is the status of a run whose answers were wrong.
const exitValidationFailed = 3

type engineFlags struct {
	name, dsn, dbDir, buffer string
	settings                 []string
	keep                     bool
	clientIO                 string
	// sessions is the most sessions the command will hold at once (its users), set by
	// the command before open; --client-io auto decides by it.
	sessions int
	// mustExist opens only a database an earlier command created (tpcc run and check,
	// oltp run): a missing one is an error, not a new, empty one left behind.
	mustExist bool
	// results are the files in --out the command writes, which open sets aside when an
	// earlier command left them there.
	results []string
	// cmd is the command the flags belong to; notes go to its stderr.
	cmd *cobra.Command
	placementFlags
}

func (ef *engineFlags) register(cmd *cobra.Command) {
	ef.cmd = cmd
	f := cmd.Flags()
	f.StringVar(&ef.name, "engine", "sqlite", "database engine: sqlite, postgres or mysql")
	f.StringVar(&ef.dsn, "dsn", "", "connect to a server you run (external mode) instead of starting a private one")
	f.StringVar(&ef.dbDir, "db", "", "directory of the embedded database or managed instance (default: OUT/db)")
	f.StringVar(&ef.buffer, "buffer", "", "buffer size of the engine, e.g. 256MB (shared_buffers, innodb_buffer_pool_size, SQLite cache)")
	f.StringArrayVar(&ef.settings, "set", nil, "extra server setting name=value for a managed instance (repeatable)")
	f.BoolVar(&ef.keep, "keep-db", false, "keep the database in --db after the run (default: a managed instance or SQLite file tierbench created is removed)")
	f.StringVar(&ef.clientIO, "client-io", "auto", "how sessions wait for a server: thread (a thread each, waiting in poll(2), as C clients do: least overhead), poller (Go's network poller: scales to thousands of users), or auto (thread up to 8 users per CPU)")
	ef.placementFlags.register(cmd)
}

func (ef *engineFlags) config(flagName, out string) (engine.Config, error) {
	cfg := engine.Config{Name: strings.ToLower(ef.name), DSN: ef.dsn, Dir: ef.dbDir, Keep: ef.keep}
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(out, "db")
	}
	if ef.buffer != "" {
		n, err := parseSize("--buffer", ef.buffer)
		if err != nil {
			return cfg, err
		}
		cfg.BufferBytes = n
	}
	if len(ef.settings) > 0 {
		if ef.dsn != "" {
			return cfg, fmt.Errorf("--set changes server settings, which tierbench never does on an external server (--dsn): set them on your server instead")
		}
		cfg.Settings = map[string]string{}
		for _, s := range ef.settings {
			name, value, ok := strings.Cut(s, "=")
			if !ok || strings.TrimSpace(name) == "" {
				return cfg, fmt.Errorf("--set %q: give name=value, e.g. --set work_mem=64MB", s)
			}
			cfg.Settings[strings.TrimSpace(name)] = strings.TrimSpace(value)
		}
	}
	cio, err := engine.ParseClientIO(ef.clientIO)
	if err != nil {
		return cfg, fmt.Errorf("--client-io %w", err)
	}
	cfg.ClientIO, cfg.Sessions = cio, ef.sessions
	if !contains(engine.Names(), cfg.Name) {
		return cfg, fmt.Errorf("%s %q: unknown engine: valid engines are %s", flagName, ef.name, strings.Join(engine.Names(), ", "))
	}
	return cfg, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func newTPCHRunCommand() *cobra.Command {
	var (
		ef              engineFlags
		sfText, out     string
		validateAgainst string
		streams         int
		seed            int64
		validate        bool
		useDefault      bool
		skipLoad        bool
		ignoreLimits    bool
		queryTimeout    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the TPC-H load, power and throughput tests and report the official metrics",
		Example: `  tierbench tpch run --sf 0.1 --out runs/sqlite-sf0.1
  tierbench tpch run --engine postgres --buffer 1GB --sf 1 --validate --out runs/pg-sf1
  tierbench tpch run --engine mysql --dsn 'bench@tcp(127.0.0.1:3306)/tpch' --sf 1 --out runs/ext`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sf, err := parseSF(sfText)
			if err != nil {
				return err
			}
			if out == "" {
				return fmt.Errorf("--out is required: the directory for result.json (and, by default, the database)")
			}
			if streams < 0 || streams > tpch.MaxStreams {
				return fmt.Errorf("--streams %d: give 0 (the spec minimum for the SF) up to %d (the power test uses update set 1, the throughput test sets 2..S+1, and dbgen's sets from %d on delete nothing)",
					streams, tpch.MaxStreams, tpch.MaxUpdateSets+1)
			}
			runStreams := streams
			if runStreams == 0 {
				runStreams = tpch.MinStreams(sf)
			}
			if err := tpch.CheckSeeds(seed, runStreams, useDefault || validate); err != nil {
				return fmt.Errorf("--%w", err) // "--seed N ..."
			}
			if queryTimeout < 0 {
				return fmt.Errorf("--query-timeout %s: give a positive duration such as 10m, or 0 for none", queryTimeout)
			}
			if validate && validateAgainst != "" {
				return fmt.Errorf("--validate and --validate-against are exclusive: --validate checks the TPC's SF 1 answers, --validate-against compares with another engine")
			}
			if validate && sf != 1 {
				return fmt.Errorf("--validate compares with the TPC's answers, which exist only at SF 1: use --sf 1, or --validate-against ENGINE at other scale factors")
			}
			if validate {
				useDefault = true // the qualification answers are for the default parameters
			}
			ctx := cmd.Context()
			ef.mustExist = skipLoad // a run that loads nothing needs the kept database
			ef.results = []string{tpch.ResultFile}
			// The throughput test's query streams and refresh stream hold a session
			// each; a managed server's connection limit is sized to them.
			ef.sessions = runStreams + 1
			opened, err := ef.open(ctx, out, ef.keep)
			if err != nil {
				return err
			}
			defer opened.Close() // on an early return too

			rc := tpch.RunConfig{
				SF: sf, Streams: streams, Seed: seed, UseDefaultParams: useDefault,
				Validate: validate, QueryTimeout: queryTimeout, OutDir: out, SkipLoad: skipLoad,
				Log: cmd.ErrOrStderr(), BufferBytes: opened.cfg.BufferBytes, IgnoreLimits: ignoreLimits,
			}
			if opened.cfg.DSN == "" {
				rc.DatabaseDir = opened.cfg.Dir
			}
			if progress.IsTerminal(os.Stderr) {
				rc.Progress = os.Stderr
			}
			if validateAgainst != "" {
				other := engineFlags{name: validateAgainst}
				ocfg, err := other.config("--validate-against", out)
				if err != nil {
					return err
				}
				ocfg.Dir = filepath.Join(out, "validate-db")
				ocfg.Traversable = []string{out}
				oeng, err := engine.Open(ctx, ocfg)
				if err != nil {
					return fmt.Errorf("--validate-against: %w", err) // the engine names itself
				}
				defer closeEngine(oeng, ocfg)
				rc.ValidateAgainst = oeng
			}
			res, err := tpch.Run(ctx, opened.Engine(), rc)
			if res == nil {
				return finishRun(nil, opened, runOutput{}, false, err)
			}
			// The engine stops before the devices it ran on are unmounted; then the
			// devices' counters go into the result.
			if err := finishRun(cmd.OutOrStdout(), opened, runOutput{
				path: filepath.Join(out, tpch.ResultFile), started: res.Started,
				write:   func(st *result.Storage) error { res.Storage = st; return tpch.WriteResult(out, res) },
				summary: func() { tpch.Summary(cmd.OutOrStdout(), res) },
			}, true, err); err != nil {
				return err
			}
			if res != nil && res.Validation != nil && !res.Validation.Passed {
				return &exitError{code: exitValidationFailed, err: fmt.Errorf("answer validation failed (%d mismatches): see the summary above", len(res.Validation.Failures))}
			}
			return nil
		},
	}
	ef.register(cmd)
	f := cmd.Flags()
	f.StringVar(&sfText, "sf", "1", "scale factor (0.01 and up; the spec's official sizes are 1, 10, 30, 100, ...)")
	f.StringVar(&out, "out", "", "directory for result.json (created if missing)")
	registerInt(cmd, &streams, "streams", 0, fmt.Sprintf("query streams of the throughput test, up to %d (0 = the spec minimum for the SF; 2 below SF 1)", tpch.MaxStreams))
	registerSeed(cmd, &seed, 0, 0, qgen.MaxSeed, "qgen seed of the power test, decimal; stream s uses seed + s (0 = the end-of-load timestamp mmddhhmmss, as the spec says)")
	registerIgnoreLimits(cmd, &ignoreLimits)
	f.BoolVar(&validate, "validate", false, "check every answer against the TPC's SF 1 qualification answers (implies --default-params)")
	f.StringVar(&validateAgainst, "validate-against", "", "compare every answer with a second engine (sqlite, postgres, mysql) loaded with the same data")
	f.BoolVar(&useDefault, "default-params", false, "use the qualification parameters (qgen -d) instead of seeded ones")
	f.BoolVar(&skipLoad, "skip-load", false, "reuse the database an earlier run kept (--keep-db) in --db; refresh functions continue with the next update sets")
	f.DurationVar(&queryTimeout, "query-timeout", 0, "cancel a query that runs longer than this, e.g. 10m (the run then has no official metric)")
	return cmd
}

// closeEngine stops the engine and, unless the database is kept, removes its
// directory when nothing is left in it.
func closeEngine(eng engine.Engine, cfg engine.Config) {
	eng.Close()
	if !cfg.Keep && cfg.DSN == "" {
		os.Remove(cfg.Dir) // fails harmlessly when the directory is not empty
	}
}
