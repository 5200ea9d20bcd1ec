package params

import (
	"errors"

	"github.com/spf13/pflag"
)

// ValueError is a value's error that names its flag and says what would be valid by
// itself (`--buffer "huge" is not a size: give bytes ...`). Set returns it as it is,
// and FlagError takes it out of pflag's `invalid argument "huge" for "--buffer" flag:`
// on a command line, so the flag is named once.
type ValueError struct{ Err error }

func (e *ValueError) Error() string { return e.Err.Error() }
func (e *ValueError) Unwrap() error { return e.Err }

// FlagError is err as a command line shows it: a ValueError out of pflag's wrapping,
// anything else unchanged. Commands give it to cobra (Command.SetFlagErrorFunc).
func FlagError(err error) error {
	var iv *pflag.InvalidValueError
	var ve *ValueError
	if errors.As(err, &iv) && errors.As(iv.Unwrap(), &ve) {
		return ve
	}
	return err
}

// parsedValue is a flag whose text is read into a typed value when it is set: the
// text stays, for help's default and for Values and Args, which give what was set
// (a study's command line shows 256MB, not 268435456).
type parsedValue[T any] struct {
	p     *T
	text  string
	parse func(string) (T, error)
}

func (v *parsedValue[T]) String() string { return v.text }

// Type is "string", as for the text flags these replaced, so help reads the same.
func (v *parsedValue[T]) Type() string { return "string" }

func (v *parsedValue[T]) Set(s string) error {
	x, err := v.parse(s)
	if err != nil {
		return &ValueError{err}
	}
	*v.p, v.text = x, s
	return nil
}

// Parsed adds a parameter whose text parse reads into *p when it is set, on the
// command line or by Set, so that a value is parsed once, where it is given, and
// travels typed from there. parse's errors name the flag and what would be valid
// (they are shown as they are: ValueError). def is the text of the default, which
// parse must accept: a default it refuses is a programming error, and panics.
func Parsed[T any](s *Set, p *T, name, def string, kind Kind, parse func(string) (T, error), help string) *Param {
	x, err := parse(def)
	if err != nil {
		panic("params: the default of --" + name + " does not parse: " + err.Error())
	}
	*p = x
	s.fs.Var(&parsedValue[T]{p: p, text: def, parse: parse}, name, help)
	return s.add(name, kind, help)
}

// Size adds a byte size (256MB, 2GiB, 1048576) read into *p in bytes; empty text is
// 0, for "not given" (the engine's own buffer size).
func (s *Set) Size(p *int64, name, def, help string) *Param {
	return Parsed(s, p, name, def, Size, func(text string) (int64, error) {
		if text == "" {
			return 0, nil
		}
		return ParseSize("--"+name, text)
	}, help)
}
