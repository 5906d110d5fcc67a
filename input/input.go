package input

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
)

// Decl is an input as the framework, snapshots and `fwcheck list` see it,
// whatever the type of its value. Every Decl is a *Key[T].
type Decl interface {
	// Name is the input's stable name ("acpi-tables").
	Name() string
	// Doc says what the input is and where it lives on a live machine.
	Doc() string
	// NeedsRoot reports whether reading it live needs root. This is the
	// one place that decides it.
	NeedsRoot() bool
	// Capture lists the files and directory trees (machine paths, no
	// leading slash) a snapshot copies for it.
	Capture() []string
	// load loads the value into m's cache and returns the error, if any.
	load(m *Machine) error
}

// Spec declares an input of type T.
type Spec[T any] struct {
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
}

// Key is a typed input: one declaration beside the parser it calls, read
// by checks through a typed accessor (tests.Input).
type Key[T any] struct{ s Spec[T] }

// Declare declares an input. Adding an input is one Declare call and its
// loader.
func Declare[T any](s Spec[T]) *Key[T] {
	if s.Name == "" || s.Load == nil {
		panic("input: an input needs a Name and a Load")
	}
	return &Key[T]{s: s}
}

// Name implements Decl.
func (k *Key[T]) Name() string { return k.s.Name }

// Doc implements Decl.
func (k *Key[T]) Doc() string { return k.s.Doc }

// NeedsRoot implements Decl.
func (k *Key[T]) NeedsRoot() bool { return k.s.Root }

// Capture implements Decl.
func (k *Key[T]) Capture() []string { return k.s.Capture }

func (k *Key[T]) load(m *Machine) error { _, err := k.Get(m); return err }

// Get returns the input's value on m, loading it once per phase, or why it
// is unavailable (an *Unavailable).
func (k *Key[T]) Get(m *Machine) (T, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.cache[k.s.Name]; ok {
		v, _ := l.v.(T)
		return v, l.err
	}
	var (
		v   T
		err error
	)
	p, file := m.files[k.s.Name]
	switch {
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
		case errors.Is(err, fs.ErrNotExist) && !file && !isRecorded(err): // a recorder's cause is kept
			err = &Unavailable{k.s.Name, m.missing(k.s.Doc)}
		default:
			err = &Unavailable{k.s.Name, err.Error()}
		}
	}
	m.cache[k.s.Name] = loaded{v, err}
	return v, err
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
// given as files. Each input is loaded at most once per phase; a check that
// acts on the machine (suspends it) starts a new phase, after which inputs
// are read afresh.
type Machine struct {
	Src   Source
	files map[string]string
	stdin []byte

	mu    sync.Mutex
	cache map[string]loaded
}

type loaded struct {
	v   any
	err error
}

// New returns a Machine reading src, with the inputs in opts taking
// precedence over it.
func New(src Source, opts Options) *Machine {
	m := &Machine{Src: src, files: map[string]string{}, stdin: opts.Stdin, cache: map[string]loaded{}}
	for d, p := range opts.Files {
		m.files[d.Name()] = p
	}
	return m
}

// Unavailable is the error for an input that cannot be had; its message is
// the reason the checks needing it skip.
type Unavailable struct {
	Input  string
	Reason string
}

func (u *Unavailable) Error() string { return fmt.Sprintf("%s unavailable: %s", u.Input, u.Reason) }

// Available loads d and returns why it is unavailable, or nil.
func (m *Machine) Available(d Decl) error { return d.load(m) }

func (m *Machine) needsRoot(d Decl) bool {
	_, file := m.files[d.Name()]
	return d.NeedsRoot() && !file && !m.Src.Privileged()
}

// NewPhase forgets every value read from the source, so that the next reads
// see the machine as it is now (after a resume, say). Inputs given as
// files do not change and stay.
func (m *Machine) NewPhase() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for n := range m.cache {
		if _, file := m.files[n]; !file {
			delete(m.cache, n)
		}
	}
}

// Identity says which machine the inputs describe, for reports.
type Identity struct {
	Source string   `json:"source"`
	Kernel string   `json:"kernel,omitempty"`
	DMI    *DMIInfo `json:"dmi,omitempty"`
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
	return id
}
