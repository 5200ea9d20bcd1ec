package placement

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"tierbench/internal/device"
	"tierbench/internal/emulator"
	"tierbench/internal/engine"
)

// Class is a class of database files.
type Class string

const (
	// Data is the database itself: the SQLite file (with its WAL and journal), the
	// PostgreSQL data directory, the MariaDB datadir.
	Data Class = "data"
	// WAL is the write-ahead or redo log: PostgreSQL's pg_wal (initdb --waldir),
	// InnoDB's redo log (innodb_log_group_home_dir).
	WAL Class = "wal"
	// Temp holds sorts and hashes that spill: a PostgreSQL temp tablespace, MariaDB's
	// tmpdir, SQLite's temp store (SQLITE_TMPDIR).
	Temp Class = "temp"
)

// AllClasses in the order reports list them.
var AllClasses = []Class{Data, WAL, Temp}

// Tier is a place for files: an emulated device (Spec set) or a real directory (Dir).
type Tier struct {
	Name string `json:"name"`
	Spec string `json:"spec,omitempty"`
	Dir  string `json:"dir,omitempty"`
}

// Emulated says whether the tier is an emulated device.
func (t Tier) Emulated() bool { return t.Spec != "" }

// Classes names the tier of each class; "" leaves the class in the engine's default place.
type Classes struct {
	Data, WAL, Temp string
}

func (c Classes) of(class Class) string {
	switch class {
	case Data:
		return c.Data
	case WAL:
		return c.WAL
	default:
		return c.Temp
	}
}

// Plan is a validated placement: the tiers and which class goes where.
type Plan struct {
	Tiers   []Tier
	Classes Classes
	// given is each class as the user gave it (--wal hdd-7200), where Classes names
	// the tier made for it (wal): errors quote what the user typed.
	given Classes
	// flags holds the flag that made each tier, for errors: "--tier fast=nvme".
	flags map[string]string
}

// flag is the command-line text that made tier name.
func (p *Plan) flag(name string) string {
	if f, ok := p.flags[name]; ok {
		return f
	}
	return "tier " + name
}

var tierName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// ParseTier reads one --tier value, NAME=PROFILE|DIR. A value the registry resolves
// (or emulator.NullSpec) is an emulated device; anything else must be an existing,
// writable directory.
func ParseTier(text string, reg *device.Registry) (Tier, error) {
	name, value, ok := strings.Cut(text, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || value == "" {
		return Tier{}, fmt.Errorf("--tier %q: give NAME=PROFILE or NAME=DIR, e.g. --tier fast=sata-ssd or --tier slow=/srv/hdd", text)
	}
	if !tierName.MatchString(name) {
		return Tier{}, fmt.Errorf("--tier %q: the name %q may hold letters, digits, '_', '.' and '-' only", text, name)
	}
	t, err := resolveValue(value, reg)
	if err != nil {
		return Tier{}, fmt.Errorf("--tier %s: %w", text, err)
	}
	t.Name = name
	return t, nil
}

// resolveValue decides whether value is a device spec or a directory.
func resolveValue(value string, reg *device.Registry) (Tier, error) {
	if value == emulator.NullSpec {
		return Tier{Spec: value}, nil
	}
	_, specErr := reg.Resolve(value)
	if specErr == nil {
		// Resolve checks the spec's own fields; the devices a composite holds are
		// checked when its model is built, as the emulator will build it: now, not
		// once the run has started.
		if _, err := reg.Build(value); err != nil {
			return Tier{}, err
		}
		return Tier{Spec: value}, nil
	}
	looksLikePath := strings.ContainsAny(value, `/\`) || strings.HasPrefix(value, ".") || strings.HasPrefix(value, "~")
	if !looksLikePath && strings.ContainsAny(value, "(),") {
		return Tier{}, specErr // a spec with a mistake in it
	}
	st, err := os.Stat(value)
	switch {
	case err == nil && !st.IsDir():
		return Tier{}, fmt.Errorf("%s is a file, not a directory or a device profile", value)
	case err != nil && !looksLikePath:
		return Tier{}, fmt.Errorf("%w; nor is %q an existing directory", specErr, value)
	case errors.Is(err, os.ErrNotExist):
		return Tier{}, fmt.Errorf("directory %s does not exist: create it, or name a device profile to emulate one", value)
	case err != nil:
		return Tier{}, fmt.Errorf("directory %s: %w", value, err)
	}
	if err := checkWritable(value); err != nil {
		return Tier{}, err
	}
	abs, err := filepath.Abs(value)
	if err != nil {
		return Tier{}, err
	}
	return Tier{Dir: abs}, nil
}

// checkWritable proves dir is writable by creating and removing a file in it (access(2)
// says yes to root on a read-only mount).
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".tierbench-write-test-*")
	if err != nil {
		return fmt.Errorf("directory %s is not writable (%v): fix its permissions or choose another directory", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// NewPlan parses the --tier values and checks that each class names a known tier.
// A class may also name a profile or directory directly (--data sata-ssd): it then
// gets a tier of its own, named after the class.
func NewPlan(tierFlags []string, classes Classes, reg *device.Registry) (*Plan, error) {
	p := &Plan{Classes: classes, given: classes, flags: map[string]string{}}
	byName := map[string]bool{}
	for _, text := range tierFlags {
		t, err := ParseTier(text, reg)
		if err != nil {
			return nil, err
		}
		if byName[t.Name] {
			return nil, fmt.Errorf("--tier %s: tier %q is given twice", text, t.Name)
		}
		byName[t.Name] = true
		p.Tiers = append(p.Tiers, t)
		p.flags[t.Name] = "--tier " + text
	}
	names := func() string {
		var list []string
		for _, t := range p.Tiers {
			list = append(list, t.Name)
		}
		if len(list) == 0 {
			return "no --tier was given"
		}
		return "tiers are " + strings.Join(list, ", ")
	}
	used := map[string]bool{}
	for _, class := range AllClasses {
		name := classes.of(class)
		if name == "" {
			continue
		}
		if !byName[name] {
			t, err := resolveValue(name, reg)
			if err != nil {
				return nil, fmt.Errorf("--%s %s: not a tier (%s), and not a profile or directory either: %v", class, name, names(), err)
			}
			t.Name = string(class)
			if byName[t.Name] {
				return nil, fmt.Errorf("--%s %s: a tier named %q exists already; give --tier NAME=%s and --%s NAME", class, name, t.Name, name, class)
			}
			byName[t.Name] = true
			p.Tiers = append(p.Tiers, t)
			p.flags[t.Name] = "--" + string(class) + " " + name
			p.set(class, t.Name)
			name = t.Name
		}
		used[name] = true
	}
	for _, t := range p.Tiers {
		if !used[t.Name] {
			return nil, fmt.Errorf("--tier %s=%s holds nothing: place a class on it with --data %s, --wal %s or --temp %s", t.Name, t.value(), t.Name, t.Name, t.Name)
		}
	}
	return p, nil
}

func (p *Plan) set(class Class, tier string) {
	switch class {
	case Data:
		p.Classes.Data = tier
	case WAL:
		p.Classes.WAL = tier
	case Temp:
		p.Classes.Temp = tier
	}
}

func (t Tier) value() string {
	if t.Emulated() {
		return t.Spec
	}
	return t.Dir
}

// Tier returns the tier class is placed on, if any.
func (p *Plan) Tier(class Class) (Tier, bool) {
	name := p.Classes.of(class)
	i := slices.IndexFunc(p.Tiers, func(t Tier) bool { return t.Name == name })
	if name == "" || i < 0 {
		return Tier{}, false
	}
	return p.Tiers[i], true
}

// Empty says whether nothing is placed.
func (p *Plan) Empty() bool { return p == nil || len(p.Tiers) == 0 }

// Emulated says whether any tier is an emulated device.
func (p *Plan) Emulated() bool {
	if p == nil {
		return false
	}
	return slices.ContainsFunc(p.Tiers, Tier.Emulated)
}

// CheckEngine refuses, before anything is mounted, what the engine cfg describes
// cannot do with the plan and the flush method: anything placed, or a flush method,
// for an external server (cfg.DSN), whose settings and files tierbench never
// changes; a flush method the engine does not have (engine.IOSettings.NoFlush); and a
// WAL tier other than the data tier for an engine that keeps its WAL beside the data
// (SQLite: engine.IOSettings.NoSeparateWAL). A method a server version lacks is found
// later, by EngineFiles, which knows the version.
func (p *Plan) CheckEngine(cfg *engine.Config, method engine.FlushMethod) error {
	if cfg.DSN != "" {
		if !p.Empty() {
			return errors.New("--tier, --data, --wal and --temp place the files of a database tierbench runs; an external server (--dsn) keeps its files where it was set up")
		}
		if method != "" {
			return errors.New("--flush-method changes server settings, which tierbench never does on an external server (--dsn): set it on your server instead")
		}
		return nil
	}
	io, err := engine.IOSettingsOf(cfg.Name)
	if err != nil {
		return fmt.Errorf("placement: %w", err)
	}
	if why := io.NoFlush[method]; why != "" {
		return fmt.Errorf("--flush-method %s: %s", method, why)
	}
	if p.Classes.WAL == "" || p.Classes.WAL == p.Classes.Data || io.NoSeparateWAL == "" {
		return nil
	}
	wal := p.given.WAL
	if wal == "" { // a plan built by hand, not by NewPlan
		wal = p.Classes.WAL
	}
	return fmt.Errorf("--wal %s: %s", wal, io.NoSeparateWAL)
}
