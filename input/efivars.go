package input

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/fwcheck/fwcheck/efi"
)

// VariableStore is the firmware's variable services as the running OS
// reaches them: on Linux, efivarfs, whose files are the variables
// (GetVariable reads one, SetVariable is a write, GetNextVariableName a
// directory listing, QueryVariableInfo the file system's statfs). Only a
// Control hands one out (see Variables), to checks flagged as writing
// variables, and only when the user named them: every call but Names, Get
// and Info changes the firmware's non-volatile store.
type VariableStore interface {
	// Names lists every variable, in the order the OS gives them (the
	// firmware's GetNextVariableName walk, as efivarfs caches it).
	Names() ([]VariableName, error)
	// Get reads a variable (GetVariable); one that does not exist is an
	// error matching fs.ErrNotExist.
	Get(name string, g efi.GUID) (efi.Attributes, []byte, error)
	// Set creates the variable or replaces its data (SetVariable).
	Set(name string, g efi.GUID, attrs efi.Attributes, data []byte) error
	// Append adds data at the end of an existing variable's (SetVariable
	// with EFI_VARIABLE_APPEND_WRITE).
	Append(name string, g efi.GUID, attrs efi.Attributes, data []byte) error
	// Delete removes the variable (SetVariable with no data).
	Delete(name string, g efi.GUID) error
	// Info is the store's space (QueryVariableInfo).
	Info() (VariableInfo, error)
}

// VariableName is one name GetNextVariableName returns.
type VariableName struct {
	Name string
	GUID efi.GUID
}

func (n VariableName) String() string { return n.Name + "-" + n.GUID.String() }

// VariableInfo is the variable store's space as QueryVariableInfo gives it
// for non-volatile, boot-service and runtime variables, in bytes.
type VariableInfo struct {
	// Reported is false when the OS does not pass the figures on: Linux's
	// efivarfs reports the store's size in statfs from 6.5 on (commit
	// d86ff3333cb1, "efivarfs: expose used and total size"; in 6.1 from
	// 6.1.178), earlier kernels report a file system of size 0, and so do
	// later ones when the firmware has no QueryVariableInfo at runtime.
	Reported bool
	// Total is MaximumVariableStorageSize, Free RemainingVariableStorageSize;
	// Available is what the OS lets callers use of Free (Linux keeps a
	// reserve on x86, so Available can be less than Free).
	Total, Free, Available uint64
}

// Used is the space taken: Total minus Free.
func (i VariableInfo) Used() uint64 {
	if i.Free > i.Total {
		return 0
	}
	return i.Total - i.Free
}

// VariableWriter is what a Control may also do: hand out the firmware's
// variable store. The framework passes it, through the Control, only to
// checks flagged as writing variables, and only when the user named them.
// A Control that is not a VariableWriter refuses with ErrNoControl.
type VariableWriter interface {
	Variables() (VariableStore, error)
}

// Variables asks c for the variable store, or says it cannot.
func Variables(c Control) (VariableStore, error) {
	if w, ok := c.(VariableWriter); ok {
		return w.Variables()
	}
	return nil, ErrNoControl
}

// Variables hands out the store with m's inputs read afresh after every
// change to it: the efi-vars input no longer holds.
func (p phased) Variables() (VariableStore, error) {
	s, err := Variables(p.c)
	if err != nil {
		return nil, err
	}
	return phasedStore{s, p.m}, nil
}

type phasedStore struct {
	VariableStore
	m *Machine
}

func (s phasedStore) Set(name string, g efi.GUID, attrs efi.Attributes, data []byte) error {
	defer s.m.NewPhase()
	return s.VariableStore.Set(name, g, attrs, data)
}

func (s phasedStore) Append(name string, g efi.GUID, attrs efi.Attributes, data []byte) error {
	defer s.m.NewPhase()
	return s.VariableStore.Append(name, g, attrs, data)
}

func (s phasedStore) Delete(name string, g efi.GUID) error {
	defer s.m.NewPhase()
	return s.VariableStore.Delete(name, g)
}

// Errors a VariableStore returns, matched with errors.Is. The live store
// returns the kernel's errno, wrapped with these where it stands for one
// (EINVAL, ENOSPC).
var (
	// ErrVariableParameter is EFI_INVALID_PARAMETER: attributes or a size
	// the firmware does not accept.
	ErrVariableParameter = errors.New("invalid parameter (EFI_INVALID_PARAMETER)")
	// ErrVariableSpace is EFI_OUT_OF_RESOURCES: no room in the store.
	ErrVariableSpace = errors.New("out of resources (EFI_OUT_OF_RESOURCES)")
)

// EncodeVariable is a variable as an efivarfs file holds it, and as one
// write to efivarfs must give it: the attribute word (little-endian), then
// the data.
func EncodeVariable(attrs efi.Attributes, data []byte) []byte {
	b := make([]byte, 4+len(data))
	binary.LittleEndian.PutUint32(b, uint32(attrs))
	copy(b[4:], data)
	return b
}

// DecodeVariable splits an efivarfs file into its attribute word and data.
func DecodeVariable(b []byte) (efi.Attributes, []byte, error) {
	if len(b) < 4 {
		return 0, nil, fmt.Errorf("%d bytes, shorter than the attribute word", len(b))
	}
	return efi.Attributes(binary.LittleEndian.Uint32(b)), b[4:], nil
}

// ParseVariableName splits an efivarfs file name ("Name-GUID") into the
// variable's name and vendor GUID.
func ParseVariableName(file string) (VariableName, error) {
	if len(file) < 38 || file[len(file)-37] != '-' {
		return VariableName{}, fmt.Errorf("%q: not a Name-GUID file name", file)
	}
	g, err := efi.ParseGUID(file[len(file)-36:])
	if err != nil {
		return VariableName{}, fmt.Errorf("%q: %w", file, err)
	}
	return VariableName{file[:len(file)-37], g}, nil
}

// MemVariables is a variable store in memory, for tests and offline runs
// of the checks that write variables. It behaves as a firmware at runtime
// does (UEFI 2.10 §8.2): only non-volatile variables with runtime access
// can be set, and every variable takes its name, data and a header's worth
// of its Size. Its fields are the faults a test gives it.
type MemVariables struct {
	// Size is the store's size (MaximumVariableStorageSize); MaxVar the
	// largest variable (its name, data and header) it takes.
	Size, MaxVar uint64
	// Leak is how many bytes every deletion fails to give back: the
	// firmware bug that fills a store for good.
	Leak uint64
	// NoAppend makes appends fail, as a firmware without
	// EFI_VARIABLE_APPEND_WRITE support does.
	NoAppend bool
	// Unreported makes Info report nothing, as a kernel before 6.5 does.
	Unreported bool
	// AcceptBootService accepts variables without runtime access, which a
	// firmware at runtime must refuse.
	AcceptBootService bool
	// Deferred keeps the space of deleted and replaced variables counted
	// until the store is full, when it is reclaimed (garbage collection),
	// as EDK II's variable services do at runtime.
	Deferred bool

	vars   map[VariableName]memVar
	order  []VariableName
	leaked uint64
	stale  uint64 // space of deleted or replaced copies, with Deferred
}

type memVar struct {
	attrs efi.Attributes
	data  []byte
}

// memVarHeader is what each variable costs besides its name and data (an
// EDK II authenticated variable header is 60 bytes).
const memVarHeader = 60

func memVarSize(name string, data []byte) uint64 {
	return memVarHeader + uint64(2*(len(name)+1)) + uint64(len(data))
}

func (m *MemVariables) used() uint64 {
	u := m.leaked + m.stale
	for n, v := range m.vars {
		if v.attrs&efi.NonVolatile != 0 {
			u += memVarSize(n.Name, v.data)
		}
	}
	return u
}

// Names lists the variables in the order they were created.
func (m *MemVariables) Names() ([]VariableName, error) {
	return append([]VariableName(nil), m.order...), nil
}

// Get reads a variable.
func (m *MemVariables) Get(name string, g efi.GUID) (efi.Attributes, []byte, error) {
	v, ok := m.vars[VariableName{name, g}]
	if !ok {
		return 0, nil, fmt.Errorf("%s-%s: %w", name, g, fs.ErrNotExist)
	}
	return v.attrs, bytes.Clone(v.data), nil
}

func (m *MemVariables) check(name string, attrs efi.Attributes) error {
	switch {
	case name == "" || strings.ContainsRune(name, 0):
		return fmt.Errorf("variable name %q: %w", name, ErrVariableParameter)
	case attrs&^(efi.NonVolatile|efi.BootserviceAccess|efi.RuntimeAccess|efi.AppendWrite) != 0:
		return fmt.Errorf("attributes %v: %w", attrs, ErrVariableParameter)
	case attrs&efi.RuntimeAccess != 0 && attrs&efi.BootserviceAccess == 0:
		return fmt.Errorf("attributes %v: runtime access without boot-service access: %w", attrs, ErrVariableParameter)
	case attrs&efi.RuntimeAccess == 0 && !m.AcceptBootService:
		return fmt.Errorf("attributes %v: no runtime access after ExitBootServices: %w", attrs, ErrVariableParameter)
	case attrs&efi.NonVolatile == 0:
		return fmt.Errorf("attributes %v: volatile variables are read-only after ExitBootServices: %w", attrs, ErrVariableParameter)
	}
	return nil
}

// Set creates or replaces a variable; no data deletes it.
func (m *MemVariables) Set(name string, g efi.GUID, attrs efi.Attributes, data []byte) error {
	if len(data) == 0 {
		return m.Delete(name, g)
	}
	return m.put(name, g, attrs, data, false)
}

// Append adds data to an existing variable.
func (m *MemVariables) Append(name string, g efi.GUID, attrs efi.Attributes, data []byte) error {
	if m.NoAppend {
		return fmt.Errorf("append to %s-%s: %w", name, g, ErrVariableParameter)
	}
	return m.put(name, g, attrs, data, true)
}

func (m *MemVariables) put(name string, g efi.GUID, attrs efi.Attributes, data []byte, appending bool) error {
	if err := m.check(name, attrs&^efi.AppendWrite); err != nil {
		return err
	}
	attrs &^= efi.AppendWrite
	k := VariableName{name, g}
	old, exists := m.vars[k]
	if exists && old.attrs != attrs {
		return fmt.Errorf("%s: attributes %v differ from the variable's %v: %w", k, attrs, old.attrs, ErrVariableParameter)
	}
	nd := bytes.Clone(data)
	if appending && exists {
		nd = append(bytes.Clone(old.data), data...)
	}
	if memVarSize(name, nd) > m.MaxVar {
		return fmt.Errorf("%s: %d bytes over the largest variable (%d): %w", k, memVarSize(name, nd), m.MaxVar, ErrVariableParameter)
	}
	// A replaced variable's old copy is freed only once the new one is in.
	if m.used()+memVarSize(name, nd) > m.Size && m.stale > 0 {
		m.stale = 0 // garbage collection
	}
	if m.used()+memVarSize(name, nd) > m.Size {
		return fmt.Errorf("%s: %w", k, ErrVariableSpace)
	}
	if exists && m.Deferred {
		m.stale += memVarSize(name, old.data)
	}
	if m.vars == nil {
		m.vars = map[VariableName]memVar{}
	}
	if !exists {
		m.order = append(m.order, k)
	}
	m.vars[k] = memVar{attrs, nd}
	return nil
}

// Delete removes a variable, losing Leak bytes of the store.
func (m *MemVariables) Delete(name string, g efi.GUID) error {
	k := VariableName{name, g}
	v, ok := m.vars[k]
	if !ok {
		return fmt.Errorf("%s: %w", k, fs.ErrNotExist)
	}
	if m.Deferred {
		m.stale += memVarSize(name, v.data)
	}
	delete(m.vars, k)
	m.order = deleteName(m.order, k)
	m.leaked = min(m.Size, m.leaked+m.Leak)
	return nil
}

func deleteName(ns []VariableName, k VariableName) []VariableName {
	out := ns[:0]
	for _, n := range ns {
		if n != k {
			out = append(out, n)
		}
	}
	return out
}

// Info reports the store's space.
func (m *MemVariables) Info() (VariableInfo, error) {
	if m.Unreported {
		return VariableInfo{}, nil
	}
	free := m.Size - min(m.Size, m.used())
	return VariableInfo{Reported: true, Total: m.Size, Free: free, Available: free}, nil
}
