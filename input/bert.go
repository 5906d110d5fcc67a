package input

import (
	"io"

	"github.com/fwcheck/fwcheck/acpi"
)

// maxBERTRegion bounds the boot error region read: real ones are a few
// KiB to 64 KiB.
const maxBERTRegion = 1 << 20

// BERTRegion is the boot error region the BERT points at, as Linux copies
// it to /sys/firmware/acpi/tables/data/BERT: the errors the firmware
// recorded during the previous boot (at most its first MiB).
var BERTRegion = Declare(Def[[]byte]{
	Name: "bert-region", Doc: "the boot error region (/sys/firmware/acpi/tables/data/BERT)", Root: true,
	Capture: []string{acpi.BERTDataPath},
	Load: func(src Source) ([]byte, error) {
		f, err := src.Open(acpi.BERTDataPath)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, maxBERTRegion))
	},
})
