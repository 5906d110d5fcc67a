package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/fwcheck/fwcheck/acpi"

	"github.com/fwcheck/fwcheck/devicetree"
)

// FDTFile is the flattened devicetree the kernel booted with, as it
// exposes it (CONFIG_OF; readable by root only).
const FDTFile = "sys/firmware/fdt"

// Devicetree is the devicetree blob the kernel was handed (by the firmware,
// or by the EFI stub, which edits the firmware's: it adds /chosen's UEFI
// properties and drops the memory reservations), parsed. A machine without one
// (x86, or an Arm machine booted without CONFIG_OF) lacks it.
var Devicetree = Declare(Def[*devicetree.Blob]{
	Name: "devicetree", Doc: "the flattened devicetree the kernel booted with (/sys/firmware/fdt)", Root: true,
	Capture: []string{FDTFile},
	Load: func(src Source) (*devicetree.Blob, error) {
		b, err := readBounded(src, FDTFile, devicetree.MaxSize)
		if errors.Is(err, fs.ErrNotExist) {
			if _, aerr := fs.Stat(src, acpi.SysfsDir); aerr == nil {
				return nil, &Absent{Unavailable{"devicetree", "the machine has no devicetree: its firmware describes it with ACPI tables"}}
			}
		}
		if err != nil {
			return nil, err
		}
		return devicetree.Parse(b)
	},
})

// readBounded reads a file of at most max bytes; a longer one is an error.
func readBounded(src Source, name string, max int64) ([]byte, error) {
	f, err := src.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: over %d bytes", name, max)
	}
	return b, nil
}
