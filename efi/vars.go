package efi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode/utf16"
)

// VarsDir is where Linux mounts efivarfs, without the leading slash.
const VarsDir = "sys/firmware/efi/efivars"

// Attributes are a variable's EFI_VARIABLE_* attribute bits (the values of
// u-root's efivarfs.VariableAttributes).
type Attributes uint32

// Attribute bits (UEFI 2.10 §8.2, GetVariable).
const (
	NonVolatile                       Attributes = 0x01
	BootserviceAccess                 Attributes = 0x02
	RuntimeAccess                     Attributes = 0x04
	HardwareErrorRecord               Attributes = 0x08
	AuthenticatedWriteAccess          Attributes = 0x10
	TimeBasedAuthenticatedWriteAccess Attributes = 0x20
	AppendWrite                       Attributes = 0x40
	EnhancedAuthenticatedAccess       Attributes = 0x80
)

var attrNames = []string{"NV", "BS", "RT", "HR", "AW", "AT", "AP", "EA"}

// String lists the set bits as the short names UEFI tools use ("NV+BS+RT").
func (a Attributes) String() string {
	var parts []string
	for i, n := range attrNames {
		if a&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := a &^ 0xff; rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", uint32(rest)))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}

// Variable is one UEFI variable as efivarfs shows it.
type Variable struct {
	Name       string
	GUID       GUID
	Attributes Attributes
	Data       []byte
}

// Vars are the variables read from efivarfs, by "Name-guid".
type Vars struct {
	// List is every variable, sorted by name then GUID.
	List []*Variable
	// Problems are files that are not well-formed variables (too short
	// for the attribute word, a name without a GUID).
	Problems []string
	// Unreadable are variables that could not be read (efivarfs keeps
	// some from users other than root), with the error.
	Unreadable []string
	byKey      map[string]*Variable
}

// Get returns the variable name of vendor g, or nil.
func (v *Vars) Get(name string, g GUID) *Variable {
	if v == nil {
		return nil
	}
	return v.byKey[name+"-"+g.String()]
}

// Global returns the EFI_GLOBAL_VARIABLE variable name, or nil.
func (v *Vars) Global(name string) *Variable { return v.Get(name, GlobalVariable) }

// Add adds a variable (for building Vars in tests and tools).
func (v *Vars) Add(x *Variable) {
	if v.byKey == nil {
		v.byKey = map[string]*Variable{}
	}
	k := x.Name + "-" + x.GUID.String()
	if _, dup := v.byKey[k]; !dup {
		v.List = append(v.List, x)
	}
	v.byKey[k] = x
}

// maxVarSize bounds one variable read from a source: real variables are at
// most a few hundred KiB (a large dbx), efivarfs caps them lower still.
const maxVarSize = 4 << 20

// ErrNoVars says the source has no efivarfs directory.
var ErrNoVars = errors.New("no efivarfs at /" + VarsDir)

// ReadVars reads every variable in dir (VarsDir on a machine) of fsys.
func ReadVars(fsys fs.FS, dir string) (*Vars, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoVars
	}
	if err != nil {
		return nil, err
	}
	v := &Vars{}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		n := e.Name()
		if len(n) < 38 || n[len(n)-37] != '-' {
			v.Problems = append(v.Problems, fmt.Sprintf("%s: not a Name-GUID file name", n))
			continue
		}
		g, err := ParseGUID(n[len(n)-36:])
		if err != nil {
			v.Problems = append(v.Problems, fmt.Sprintf("%s: %v", n, err))
			continue
		}
		if info, err := e.Info(); err == nil && info.Size() > maxVarSize {
			v.Problems = append(v.Problems, fmt.Sprintf("%s: %d bytes, over the %d-byte limit", n, info.Size(), maxVarSize))
			continue
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, n))
		if err != nil {
			v.Unreadable = append(v.Unreadable, fmt.Sprintf("%s: %v", n, err))
			continue
		}
		if len(b) < 4 {
			v.Problems = append(v.Problems, fmt.Sprintf("%s: %d bytes, shorter than the attribute word", n, len(b)))
			continue
		}
		v.Add(&Variable{Name: n[:len(n)-37], GUID: g, Attributes: Attributes(binary.LittleEndian.Uint32(b)), Data: b[4:]})
	}
	sort.Slice(v.List, func(i, j int) bool {
		if v.List[i].Name != v.List[j].Name {
			return v.List[i].Name < v.List[j].Name
		}
		return v.List[i].GUID.String() < v.List[j].GUID.String()
	})
	return v, nil
}

// Uint16s reads data as little-endian 16-bit words (BootOrder); an odd
// length is an error.
func Uint16s(data []byte) ([]uint16, error) {
	if len(data)%2 != 0 {
		return nil, fmt.Errorf("%d bytes: not a whole number of 16-bit entries", len(data))
	}
	out := make([]uint16, len(data)/2)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(data[2*i:])
	}
	return out, nil
}

// Bool reads a one-byte boolean variable (SecureBoot, SetupMode).
func Bool(data []byte) (bool, error) {
	if len(data) != 1 {
		return false, fmt.Errorf("%d bytes, expected 1", len(data))
	}
	if data[0] > 1 {
		return data[0] != 0, fmt.Errorf("value %d, expected 0 or 1", data[0])
	}
	return data[0] == 1, nil
}

// ucs2 decodes a NUL-terminated UCS-2 string from b, returning it and the
// bytes it took (the terminator included), or ok=false when b holds no
// terminator.
func ucs2(b []byte) (s string, n int, ok bool) {
	var u []uint16
	for i := 0; i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			return string(utf16.Decode(u)), i + 2, true
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u)), len(b), false
}
