package input

import (
	"errors"
	"io/fs"

	"github.com/fwcheck/fwcheck/efi"
)

// The UEFI inputs: the variables in efivarfs and the ESRT. On a machine
// that did not boot through UEFI (no /sys/firmware/efi) they are available
// and say so, so that the UEFI checks end not applicable rather than
// skipped.
var (
	// EFIVars are the UEFI variables (/sys/firmware/efi/efivars).
	EFIVars = Declare(Def[*EFIState]{
		Name: "efi-vars", Doc: "UEFI variables (/sys/firmware/efi/efivars)",
		Capture: []string{efiDir + "/fw_platform_size", efi.VarsDir},
		Load:    loadEFIVars,
	})
	// ESRT is the EFI System Resource Table (/sys/firmware/efi/esrt).
	ESRT = Declare(Def[*ESRTState]{
		Name: "esrt", Doc: "the EFI System Resource Table (/sys/firmware/efi/esrt)",
		Capture: []string{efiDir + "/fw_platform_size", efi.ESRTDir},
		Load:    loadESRT,
	})
)

const efiDir = "sys/firmware/efi"

// EFIState is the machine's UEFI variables, or the fact that it did not
// boot through UEFI.
type EFIState struct {
	// UEFI is false when the kernel shows no /sys/firmware/efi: the
	// machine booted through a legacy BIOS (or with noefi).
	UEFI bool
	Vars *efi.Vars
}

// ESRTState is the machine's ESRT, if it has one.
type ESRTState struct {
	UEFI bool
	// ESRT is nil when the firmware publishes none.
	ESRT *efi.ESRT
}

func booted(src Source) bool {
	_, err := fs.Stat(src, efiDir)
	return err == nil
}

func loadEFIVars(src Source) (*EFIState, error) {
	if !booted(src) {
		return &EFIState{}, nil
	}
	v, err := efi.ReadVars(src, efi.VarsDir)
	if errors.Is(err, efi.ErrNoVars) || err == nil && len(v.List) == 0 && len(v.Problems) == 0 {
		return nil, &Unavailable{"efi-vars", "efivarfs is not mounted at /" + efi.VarsDir + " (mount -t efivarfs efivarfs /" + efi.VarsDir + ")"}
	}
	if err != nil {
		return nil, err
	}
	return &EFIState{UEFI: true, Vars: v}, nil
}

func loadESRT(src Source) (*ESRTState, error) {
	if !booted(src) {
		return &ESRTState{}, nil
	}
	e, err := efi.ReadESRT(src, efi.ESRTDir)
	if errors.Is(err, efi.ErrNoESRT) {
		return &ESRTState{UEFI: true}, nil
	}
	if err != nil {
		return nil, err
	}
	return &ESRTState{UEFI: true, ESRT: e}, nil
}
