package postmark

import (
	"fmt"
	"time"
)

// Config is one run: Postmark's parameters (with Postmark's names in the comments, as
// its `set` commands take them), where the files go, or an idle run.
type Config struct {
	// Files is the pool created before the transactions (`set number`).
	Files int `json:"files"`
	// Transactions is how many transactions run (`set transactions`).
	Transactions int `json:"transactions"`
	// SizeMin and SizeMax bound the file sizes in bytes (`set size LOW HIGH`): a new
	// file gets SizeMin + a number in [0, SizeMax-SizeMin), and appends grow a file up
	// to SizeMax.
	SizeMin int `json:"size_min"`
	SizeMax int `json:"size_max"`
	// Subdirs spreads the files over that many subdirectories s0, s1, ... (`set
	// subdirectories`); 0 and 1 both mean none, as in Postmark.
	Subdirs int `json:"subdirs"`
	// ReadBlock and WriteBlock are the sizes of each read and write call (`set read`,
	// `set write`).
	ReadBlock  int `json:"read_block"`
	WriteBlock int `json:"write_block"`
	// Buffered uses buffered I/O in the process, as Postmark's C stdio does (`set
	// buffering true`), with the system calls the GNU C library's stdio makes (see
	// stream). Unbuffered makes one system call per block. Neither bypasses the
	// kernel's page cache.
	Buffered bool `json:"buffered"`
	// ReadBias is the chance, in tenths, that a transaction reads a file rather than
	// appends to one; CreateBias the chance that it creates a file rather than deletes
	// one (`set bias read`, `set bias create`). -1 leaves that half out of every
	// transaction.
	ReadBias   int `json:"read_bias"`
	CreateBias int `json:"create_bias"`
	// Seed seeds the random numbers (`set seed`): the same seed and parameters give
	// the same operations, also as Postmark's.
	Seed int `json:"seed"`
	// Idle, when above zero, makes an idle run: no files, no transactions, only the
	// time (the device's idle power over it). The Postmark parameters must then be 0.
	Idle time.Duration `json:"-"`
}

// Postmark's own defaults, for a Config that starts from them.
func PostmarkDefaults() Config {
	return Config{Files: 500, Transactions: 500, SizeMin: 500, SizeMax: 10000, ReadBlock: 512, WriteBlock: 512,
		Buffered: true, ReadBias: 5, CreateBias: 5, Seed: 42}
}

// Limits of the parameters, with the reason for each in Validate's messages.
const (
	// maxFiles bounds the pool: the file table holds twice as many slots.
	maxFiles = 50_000_000
	// maxSize keeps sizes in a C int, as Postmark does (it also allocates a source
	// buffer of twice the largest size).
	maxSize = 1 << 30
	// maxBlock bounds a read or write call's buffer.
	maxBlock = 64 << 20
	// maxSubdirs bounds the directories made before the run.
	maxSubdirs = 1_000_000
	// maxSeed is Postmark's: it reads the seed as a C int above 0.
	maxSeed = 1<<31 - 1
)

// fieldFlags pairs each field with its command-line flag, for errors and Override.
func fieldFlags(c *Config) []struct {
	field, flag string
	ptr         any
} {
	return []struct {
		field, flag string
		ptr         any
	}{
		{"Files", "--files", &c.Files}, {"Transactions", "--transactions", &c.Transactions},
		{"SizeMin", "--size-min", &c.SizeMin}, {"SizeMax", "--size-max", &c.SizeMax}, {"Subdirs", "--subdirs", &c.Subdirs},
		{"ReadBlock", "--read-block", &c.ReadBlock}, {"WriteBlock", "--write-block", &c.WriteBlock},
		{"Buffered", "--buffered", &c.Buffered}, {"ReadBias", "--read-bias", &c.ReadBias},
		{"CreateBias", "--create-bias", &c.CreateBias}, {"Seed", "--seed", &c.Seed}, {"Idle", "--idle", &c.Idle},
	}
}

// Override returns c with the parameters whose flags were given (given("--files"))
// taken from from: a preset with the user's own flags on top.
func (c Config) Override(from Config, given func(flag string) bool) Config {
	src := fieldFlags(&from)
	for i, p := range fieldFlags(&c) {
		if !given(p.flag) {
			continue
		}
		switch dst := p.ptr.(type) {
		case *int:
			*dst = *src[i].ptr.(*int)
		case *bool:
			*dst = *src[i].ptr.(*bool)
		case *time.Duration:
			*dst = *src[i].ptr.(*time.Duration)
		}
	}
	return c
}

// FieldError is a parameter out of range: which one, the value, and what is valid.
// Its text names the command-line flag; a caller that names parameters otherwise (a
// study file) builds its own text from Field.
type FieldError struct {
	Field string // the Config field, e.g. "SizeMax"
	Value any
	Valid string
}

// Flag is the command-line flag of the field, e.g. "--size-max".
func (e *FieldError) Flag() string {
	for _, p := range fieldFlags(&Config{}) {
		if p.field == e.Field {
			return p.flag
		}
	}
	return e.Field
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %v: %s", e.Flag(), e.Value, e.Valid)
}

// Validate checks every parameter and returns the first one out of range.
func (c Config) Validate() error {
	if c.Idle < 0 {
		return &FieldError{"Idle", c.Idle, "give a duration above 0 for an idle run, such as 60s, or leave it out"}
	}
	if c.Idle > 0 {
		if c.Files != 0 || c.Transactions != 0 {
			return &FieldError{"Idle", c.Idle, "an idle run (preset non-load) makes no files: leave out --files and --transactions, or choose another --preset"}
		}
		return nil
	}
	checks := []struct {
		field    string
		value    int
		min, max int
		valid    string
	}{
		{"Files", c.Files, 1, maxFiles, fmt.Sprintf("give the number of files in the pool, 1 to %d", maxFiles)},
		{"Transactions", c.Transactions, 1, 1<<31 - 1, "give the number of transactions, 1 or more"},
		{"SizeMin", c.SizeMin, 1, maxSize, fmt.Sprintf("give the smallest file size in bytes, 1 to %d (1 GiB; Postmark keeps sizes in a C int)", maxSize)},
		{"SizeMax", c.SizeMax, c.SizeMin, maxSize, fmt.Sprintf("give the largest file size in bytes, at least --size-min (%d) and at most %d (1 GiB)", c.SizeMin, maxSize)},
		{"Subdirs", c.Subdirs, 0, maxSubdirs, fmt.Sprintf("give 0 or 1 for none, or up to %d subdirectories", maxSubdirs)},
		{"ReadBlock", c.ReadBlock, 1, maxBlock, fmt.Sprintf("give the bytes of each read call, 1 to %d (64 MiB)", maxBlock)},
		{"WriteBlock", c.WriteBlock, 1, maxBlock, fmt.Sprintf("give the bytes of each write call, 1 to %d (64 MiB)", maxBlock)},
		{"ReadBias", c.ReadBias, -1, 10, "give the chance of a read rather than an append in tenths, 0 to 10, or -1 for neither"},
		{"CreateBias", c.CreateBias, -1, 10, "give the chance of a create rather than a delete in tenths, 0 to 10, or -1 for neither"},
		{"Seed", c.Seed, 1, maxSeed, fmt.Sprintf("give a seed from 1 to %d, as Postmark takes", maxSeed)},
	}
	for _, k := range checks {
		if k.value < k.min || k.value > k.max {
			return &FieldError{k.field, k.value, k.valid}
		}
	}
	return nil
}
