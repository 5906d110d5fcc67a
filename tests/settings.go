package tests

import (
	"fmt"
	"strconv"
	"time"
)

// Setting is one option of a check ("cycles" of the s3 check). Drivers
// expose it as --ID.NAME; its value belongs to one run (Settings), never to
// the process, so two runs in one process (tests, the suspend loop) cannot
// leak values into each other.
type Setting interface {
	Name() string
	Usage() string
	// Default is the default value as text, for help output.
	Default() string
	parse(s string) (any, error)
}

// Opt is a typed Setting. A check declares it once as a package variable
// and reads its value for the current run with Get.
type Opt[T any] struct {
	name, usage, def string
	defVal           T
	parseFn          func(string) (T, error)
}

// NewOpt declares a setting of type T parsed by parse, with default def.
func NewOpt[T any](name, usage string, def T, parse func(string) (T, error)) *Opt[T] {
	return &Opt[T]{name: name, usage: usage, def: fmt.Sprint(def), defVal: def, parseFn: parse}
}

// IntOpt declares an integer setting with an inclusive range.
func IntOpt(name, usage string, def, min, max int) *Opt[int] {
	return NewOpt(name, usage, def, func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("not a whole number: %q", s)
		}
		if n < min || n > max {
			return 0, fmt.Errorf("%d is outside %d…%d", n, min, max)
		}
		return n, nil
	})
}

// DurationOpt declares a duration setting ("10s", "1m30s") with an
// inclusive range.
func DurationOpt(name, usage string, def, min, max time.Duration) *Opt[time.Duration] {
	return NewOpt(name, usage, def, func(s string) (time.Duration, error) {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("not a duration (like 10s or 1m30s): %q", s)
		}
		if d < min || d > max {
			return 0, fmt.Errorf("%v is outside %v…%v", d, min, max)
		}
		return d, nil
	})
}

// StringOpt declares a string setting; when choices are given, the value
// must be one of them.
func StringOpt(name, usage, def string, choices ...string) *Opt[string] {
	return NewOpt(name, usage, def, func(s string) (string, error) {
		if len(choices) == 0 {
			return s, nil
		}
		for _, c := range choices {
			if s == c {
				return s, nil
			}
		}
		return "", fmt.Errorf("%q is not one of %v", s, choices)
	})
}

// BoolOpt declares a boolean setting.
func BoolOpt(name, usage string, def bool) *Opt[bool] {
	return NewOpt(name, usage, def, strconv.ParseBool)
}

// Name returns the setting's name.
func (o *Opt[T]) Name() string { return o.name }

// Usage returns the setting's one-line help.
func (o *Opt[T]) Usage() string { return o.usage }

// Default returns the default value as text.
func (o *Opt[T]) Default() string { return o.def }

func (o *Opt[T]) parse(s string) (any, error) { return o.parseFn(s) }

// Get returns the setting's value in p's run: the value set for it, or the
// default.
func (o *Opt[T]) Get(p *Pass) T {
	if v, ok := p.env.Settings.get(p.Check, o); ok {
		return v.(T)
	}
	return o.defVal
}

// settingKey is one check's setting: the typed handle, not its name.
type settingKey struct {
	c  *Check
	st Setting
}

// Settings are the values one run gives check settings, keyed by the check
// and the setting's declaration. The zero value holds none (every setting
// at its default).
type Settings struct {
	vals map[settingKey]setValue
}

type setValue struct {
	v   any    // parsed, of the Opt's type
	raw string // as given
}

// Set parses value for check c's setting name and records it; a bad name
// or value is an error naming the setting.
func (s *Settings) Set(c *Check, name, value string) error {
	for _, st := range c.Settings {
		if st.Name() != name {
			continue
		}
		v, err := st.parse(value)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", c.ID, name, err)
		}
		if s.vals == nil {
			s.vals = map[settingKey]setValue{}
		}
		s.vals[settingKey{c, st}] = setValue{v, value}
		return nil
	}
	return fmt.Errorf("%s.%s: no such setting", c.ID, name)
}

// Raw returns the values set, as text, keyed "ID.NAME" (for reports).
func (s *Settings) Raw() map[string]string {
	if s == nil || len(s.vals) == 0 {
		return nil
	}
	out := map[string]string{}
	for k, v := range s.vals {
		out[k.c.ID+"."+k.st.Name()] = v.raw
	}
	return out
}

func (s *Settings) get(c *Check, st Setting) (any, bool) {
	if s == nil {
		return nil, false
	}
	v, ok := s.vals[settingKey{c, st}]
	return v.v, ok
}

// Flag adapts setting name of check c to flag.Value, writing into s.
func (s *Settings) Flag(c *Check, st Setting) *SettingFlag {
	return &SettingFlag{s: s, c: c, st: st}
}

// SettingFlag is a flag.Value that sets one check setting in a Settings.
type SettingFlag struct {
	s  *Settings
	c  *Check
	st Setting
}

// String returns the value set, or the default.
func (f *SettingFlag) String() string {
	if f == nil || f.s == nil {
		return ""
	}
	if v, ok := f.s.vals[settingKey{f.c, f.st}]; ok {
		return v.raw
	}
	return f.st.Default()
}

// Set sets the value.
func (f *SettingFlag) Set(v string) error {
	err := f.s.Set(f.c, f.st.Name(), v)
	if err != nil {
		// flag prefixes the flag name already.
		if e, ok := err.(interface{ Unwrap() error }); ok && e.Unwrap() != nil {
			return e.Unwrap()
		}
	}
	return err
}
