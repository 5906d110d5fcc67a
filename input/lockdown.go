package input

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/fwcheck/fwcheck/efi"
)

// Lockdown is the kernel's lockdown mode and the Secure Boot state the
// firmware booted with: what decides, on a machine with Secure Boot on,
// which inputs the kernel refuses. Under lockdown (integrity, or
// confidentiality) the ACPI tables in sysfs, SMBIOS, efivarfs, the TPM
// event log, PCI configuration space and MSR reads stay available; /dev/mem,
// /dev/port, iomem=relaxed, unsigned modules and MSR writes are refused.
var Lockdown = Declare(Def[*LockdownState]{
	Name: "lockdown", Doc: "the kernel lockdown mode (/sys/kernel/security/lockdown) and the Secure Boot state (the SecureBoot UEFI variable)",
	Capture: []string{LockdownFile, secureBootVar},
	Load: func(src Source) (*LockdownState, error) {
		return readLockdown(src), nil
	},
})

// LockdownFile is securityfs' lockdown file (machine path): the modes the
// kernel offers, the active one in brackets ("none [integrity]
// confidentiality").
const LockdownFile = "sys/kernel/security/lockdown"

// secureBootVar is the SecureBoot variable in efivarfs.
var secureBootVar = efi.VarsDir + "/SecureBoot-" + efi.GlobalVariable.String()

// LockdownState is the lockdown mode and the Secure Boot state.
type LockdownState struct {
	// Mode is the active lockdown mode: "none", "integrity" or
	// "confidentiality"; empty when the kernel does not say (no
	// securityfs, or a kernel without the lockdown LSM).
	Mode string
	// SecureBoot is "on" or "off" from the SecureBoot variable; empty
	// when the machine did not boot through UEFI or the variable cannot be
	// read.
	SecureBoot string
}

// Locked reports whether the kernel is locked down.
func (s *LockdownState) Locked() bool {
	return s != nil && s.Mode != "" && s.Mode != "none"
}

// Words says the state in one line for a report header: "integrity,
// because Secure Boot is on"; "none" when the kernel is not locked down,
// "" when it does not say.
func (s *LockdownState) Words() string {
	if s == nil || !s.Locked() {
		if s == nil {
			return ""
		}
		return s.Mode
	}
	return s.Mode + s.because()
}

func (s *LockdownState) because() string {
	switch s.SecureBoot {
	case "on":
		return ", because Secure Boot is on"
	case "off":
		return " (Secure Boot is off: lockdown= on the kernel command line, or the kernel's own default)"
	}
	return ""
}

func readLockdown(src Source) *LockdownState {
	s := &LockdownState{}
	if b, err := fs.ReadFile(src, LockdownFile); err == nil {
		s.Mode = ParseLockdown(b)
	}
	if b, err := fs.ReadFile(src, secureBootVar); err == nil && len(b) == 5 {
		switch b[4] {
		case 0:
			s.SecureBoot = "off"
		case 1:
			s.SecureBoot = "on"
		}
	}
	return s
}

// ParseLockdown returns the active mode of a lockdown file's contents
// (the word in brackets), or "" when there is none or it is not one of the
// three modes Linux has.
func ParseLockdown(b []byte) string {
	if len(b) > 256 {
		b = b[:256]
	}
	s := string(b)
	i := strings.IndexByte(s, '[')
	j := strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return ""
	}
	switch mode := s[i+1 : j]; mode {
	case "none", "integrity", "confidentiality":
		return mode
	}
	return ""
}

// lockdownRefused marks the reason of an input the locked-down kernel
// refused; rootCause keys its remedy on it.
const lockdownRefused = "refused: kernel lockdown"

// LockdownRemedy is what lets an input lockdown refuses be read.
const LockdownRemedy = "run again with Secure Boot off in the firmware setup (the fwcheck stick boots either way, without lockdown then), " +
	"or run --from a snapshot taken without lockdown"

// ErrLockdown is the cause of an input the locked-down kernel refused
// (errors.Is).
var ErrLockdown = errors.New(lockdownRefused)

// lockdownError says which device the kernel refused, in which mode, and
// why it is locked down.
type lockdownError struct {
	dev   string // "/dev/mem"
	state *LockdownState
	err   error
}

func (e *lockdownError) Error() string {
	return fmt.Sprintf("%s %s (%s)%s", e.dev, lockdownRefused, e.state.Mode, e.state.because())
}

func (e *lockdownError) Unwrap() []error { return []error{ErrLockdown, e.err} }

// lockdownDevices are the devices a locked-down kernel refuses to open.
var lockdownDevices = []string{"/dev/mem", "/dev/port", "/dev/kmem"}

// explainLockdown returns err as a lockdownError when it is a refusal to
// open one of the devices lockdown closes and the kernel under src is
// locked down; otherwise err.
func explainLockdown(src Source, err error) error {
	if err == nil || !errors.Is(err, fs.ErrPermission) || errors.Is(err, ErrLockdown) {
		return err
	}
	msg := err.Error()
	dev := ""
	for _, d := range lockdownDevices {
		if strings.Contains(msg, d) {
			dev = d
			break
		}
	}
	if dev == "" {
		return err
	}
	st := readLockdown(src)
	if !st.Locked() {
		return err
	}
	return &lockdownError{dev: dev, state: st, err: err}
}
