package input

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
)

// Decl is an input as the framework, snapshots and `fwcheck list` see it,
// whatever the type of its value. Every Decl is a *Key[T], and the Key
// itself, not its name, is what a Machine caches values under.
type Decl interface {
	// Name is the input's stable name ("acpi-tables").
	Name() string
	// Doc says what the input is and where it lives on a live machine.
	Doc() string
	// NeedsRoot reports whether reading it live needs root. This is the
	// one place that decides it; a derived input needs root when one of
	// the inputs it is computed from does.
	NeedsRoot() bool
	// Capture lists the files and directory trees (machine paths, no
	// leading slash) a snapshot copies for it: for a derived input, those
	// of the inputs it is computed from.
	Capture() []string
	// Requires lists the inputs a derived input is computed from (nil for
	// an input read from the source).
	Requires() []Decl
	// load loads the value into m's cache and returns the error, if any.
	load(m *Machine) error
}

// Def defines an input of type T: either read from a source (Load, and
// File for one given as a file), or derived from other inputs (Requires and
// Derive), as go/analysis derives an analyzer's facts from those of the
// analyzers it Requires. A derived input is computed at most once per phase
// from the values of its requirements; when one of them is unavailable, so
// is it, with that reason.
type Def[T any] struct {
	Name, Doc string
	// Root is true when reading it on the live machine needs root.
	Root bool
	// Capture lists what a snapshot copies for it (see Decl.Capture).
	Capture []string
	// Load reads the value from a source (the live machine or a snapshot).
	Load func(src Source) (T, error)
	// File, when set, reads the value from a file the user named
	// (--acpidump, --klog); stdin holds standard input for "-". Input that
	// is not of this kind at all is an error saying so.
	File func(path string, stdin []byte) (T, error)
	// Requires are the inputs a derived input is computed from, and Derive
	// computes it from their values (read with Dep). A Def has either
	// Load or Derive.
	Requires []Decl
	Derive   func(d Deps) (T, error)
}

// Key is a typed input: one declaration beside the parser it calls, read
// by checks through a typed accessor (tests.Input).
type Key[T any] struct{ s Def[T] }

// Declare declares an input. Adding an input is one Declare call and its
// loader, or, for an input computed from others, its Requires and Derive.
func Declare[T any](s Def[T]) *Key[T] {
	switch {
	case s.Name == "":
		panic("input: an input needs a Name")
	case (s.Load == nil) == (s.Derive == nil):
		panic("input " + s.Name + ": an input needs either a Load or a Derive")
	case s.Derive != nil && len(s.Requires) == 0:
		panic("input " + s.Name + ": a derived input needs the inputs it Requires")
	case s.Derive != nil && (s.File != nil || s.Root || len(s.Capture) > 0):
		panic("input " + s.Name + ": a derived input takes File, Root and Capture from what it Requires")
	}
	return &Key[T]{s: s}
}

// Name implements Decl.
func (k *Key[T]) Name() string { return k.s.Name }

// Doc implements Decl.
func (k *Key[T]) Doc() string { return k.s.Doc }

// NeedsRoot implements Decl.
func (k *Key[T]) NeedsRoot() bool {
	return k.s.Root || slices.ContainsFunc(k.s.Requires, Decl.NeedsRoot)
}

// Capture implements Decl.
func (k *Key[T]) Capture() []string {
	out := slices.Clone(k.s.Capture)
	for _, r := range k.s.Requires {
		for _, p := range r.Capture() {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// Requires implements Decl.
func (k *Key[T]) Requires() []Decl { return k.s.Requires }

func (k *Key[T]) load(m *Machine) error { _, err := k.Get(m); return err }

// Deps is what a derived input's Derive reads the inputs it requires from.
type Deps struct {
	m  *Machine
	of Decl
}

// Machine describes where the inputs come from, for messages.
func (d Deps) Machine() *Machine { return d.m }

// Dep returns the value of k, one of the inputs the derived input being
// computed Requires (it is available: Derive runs only when all are).
// Reading another input panics: it would be missing from snapshots.
func Dep[T any](d Deps, k *Key[T]) T {
	if !slices.Contains(d.of.Requires(), Decl(k)) {
		panic(fmt.Sprintf("input %s reads input %s without requiring it", d.of.Name(), k.Name()))
	}
	v, err := k.Get(d.m)
	if err != nil {
		panic(fmt.Sprintf("input %s: %v", k.Name(), err))
	}
	return v
}

// Get returns the input's value on m, loading it once per phase, or why it
// is unavailable (an *Unavailable).
func (k *Key[T]) Get(m *Machine) (T, error) {
	e := m.entry(k)
	e.once.Do(func() { e.v, e.err = k.compute(m) })
	v, _ := e.v.(T)
	return v, e.err
}

// compute reads or derives the value.
func (k *Key[T]) compute(m *Machine) (v T, err error) {
	p, file := m.files[k]
	switch {
	case k.s.Derive != nil:
		for _, r := range k.s.Requires {
			if err := r.load(m); err != nil {
				return v, err // already an *Unavailable naming the input
			}
		}
		v, err = k.s.Derive(Deps{m, k})
	case file && k.s.File != nil:
		v, err = k.s.File(p, m.stdin)
	case m.needsRoot(k):
		err = &Unavailable{k.s.Name, "needs root: run fwcheck as root (sudo fwcheck run), or take a snapshot as root and run with --from SNAPSHOT"}
	default:
		v, err = k.s.Load(m.Src)
	}
	if err != nil {
		var u *Unavailable
		switch {
		case errors.As(err, &u):
		case errors.Is(err, fs.ErrNotExist) && !file && recorded(err) == nil: // a recorder's cause is kept
			err = &Unavailable{k.s.Name, m.missingInput(k.s.Name, k.s.Doc)}
		default:
			err = &Unavailable{k.s.Name, err.Error()}
		}
	}
	return v, err
}

// missingInput is missing, except where the architecture explains the
// absence: Linux fills /sys/firmware/memmap from the e820 map, on x86
// only, so an arm64 kernel never has one.
func (m *Machine) missingInput(name, doc string) string {
	if name == "memory-map" && m.Src.String() != "snapshot:none" {
		if a, from := m.Arch(); a != "" && a != "amd64" && a != "386" {
			if from != "" {
				from = ", says " + from
			}
			return fmt.Sprintf("%s is x86 only: Linux fills it from the e820 map, and this is an %s machine%s", doc, a, from)
		}
	}
	return m.missing(doc)
}

// missing says, in the user's words, why an input the source does not
// hold is missing, and how to get it.
func (m *Machine) missing(doc string) string {
	switch src := m.Src.String(); {
	case src == "snapshot:none":
		return fmt.Sprintf("%s is not among the files this run was given (run on the machine, or use --from SNAPSHOT, to include it)", doc)
	case strings.HasPrefix(src, "snapshot:"):
		return fmt.Sprintf("the snapshot %s does not hold %s (it could not be read where the snapshot was taken)", strings.TrimPrefix(src, "snapshot:"), doc)
	}
	return fmt.Sprintf("this machine does not provide %s (the kernel may lack the feature, or the filesystem is not mounted)", doc)
}

// Options are inputs given as files rather than taken from the source.
type Options struct {
	// Files maps an input to the file it is read from ("-": standard input).
	Files map[Decl]string
	// Stdin supplies "-".
	Stdin []byte
}

// Machine is the machine under test as checks see it: a Source plus inputs
// given as files. Each input, read or derived, is computed at most once per
// phase, keyed by its declaration; a check that acts on the machine
// (suspends it) starts a new phase, after which inputs are read afresh.
type Machine struct {
	Src   Source
	files map[Decl]string
	stdin []byte

	mu    sync.Mutex
	cache map[Decl]*loaded
}

// loaded is one input's value in one phase, computed once.
type loaded struct {
	once sync.Once
	v    any
	err  error
}

// entry returns d's cache entry in the current phase.
func (m *Machine) entry(d Decl) *loaded {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.cache[d]
	if e == nil {
		e = &loaded{}
		m.cache[d] = e
	}
	return e
}

// New returns a Machine reading src, with the inputs in opts taking
// precedence over it.
func New(src Source, opts Options) *Machine {
	m := &Machine{Src: src, files: map[Decl]string{}, stdin: opts.Stdin, cache: map[Decl]*loaded{}}
	for d, p := range opts.Files {
		m.files[d] = p
	}
	return m
}

// Loaded reports whether d has been read or derived in the current phase
// (whether a check asked for it).
func (m *Machine) Loaded(d Decl) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.cache[d]
	return ok
}

// Unavailable is the error for an input that cannot be had; its message is
// the reason the checks needing it skip.
type Unavailable struct {
	Input  string
	Reason string
}

func (u *Unavailable) Error() string { return fmt.Sprintf("%s unavailable: %s", u.Input, u.Reason) }

// Absent is the error for an input the machine lacks legally, such as the
// ACPI tables of a machine its firmware describes with a devicetree: the
// checks that need it are not applicable, with the reason, rather than
// skipped. It is also an *Unavailable (errors.As finds it).
type Absent struct{ Unavailable }

func (a *Absent) Error() string { return a.Unavailable.Error() }

// Unwrap returns the Unavailable a is.
func (a *Absent) Unwrap() error { return &a.Unavailable }

// Available loads d and returns why it is unavailable, or nil.
func (m *Machine) Available(d Decl) error { return d.load(m) }

func (m *Machine) needsRoot(d Decl) bool {
	_, file := m.files[d]
	return d.NeedsRoot() && !file && !m.Src.Privileged()
}

// NewPhase forgets every value read from the source, so that the next reads
// see the machine as it is now (after a resume, say). Inputs given as
// files do not change and stay.
func (m *Machine) NewPhase() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for d := range m.cache {
		if _, file := m.files[d]; !file {
			delete(m.cache, d)
		}
	}
}

// Identity says which machine the inputs describe, for reports.
type Identity struct {
	Source string   `json:"source"`
	Kernel string   `json:"kernel,omitempty"`
	DMI    *DMIInfo `json:"dmi,omitempty"`
	// Lockdown is the kernel's lockdown mode ("none", "integrity",
	// "confidentiality") and SecureBoot the firmware's Secure Boot state
	// ("on", "off") at the start of the run, where they can be read: what
	// explains the inputs a locked-down kernel refuses.
	Lockdown   string `json:"lockdown,omitempty"`
	SecureBoot string `json:"secure_boot,omitempty"`
	// Files are the inputs given as files, by input name ("acpi-tables":
	// the --acpidump path); the driver fills them in.
	Files map[string]string `json:"files,omitempty"`
}

// Identify returns m's identity: the source, and the kernel and DMI
// identity where they can be read.
func (m *Machine) Identify() Identity {
	id := Identity{Source: m.Src.String()}
	id.Kernel, _ = Kernel.Get(m)
	id.DMI, _ = DMI.Get(m)
	if l, err := Lockdown.Get(m); err == nil {
		id.Lockdown, id.SecureBoot = l.Mode, l.SecureBoot
	}
	return id
}
