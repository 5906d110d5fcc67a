package input

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/fwcheck/fwcheck/pci"
)

// PCIConfig is the configuration space of every PCI function, recorded as
// fwcheck/pci-config.txt. As root the kernel returns 256 bytes (4096 with
// extended config space), otherwise only the 64-byte header, so the
// chipset lock registers need root; kernel lockdown does not refuse reads.
var PCIConfig = Declare(Spec[*pci.Dump]{
	Name: "pci-config", Doc: "PCI configuration space of every function (/sys/bus/pci/devices/*/config)", Root: true,
	Capture: []string{RecordedDir + "/" + PCIConfigFile},
	Load: func(src Source) (*pci.Dump, error) {
		b, err := fs.ReadFile(src, path.Join(RecordedDir, PCIConfigFile))
		if err != nil {
			return nil, err
		}
		return pci.Parse(b)
	},
})

// PCIConfigFile is the recorded configuration space's name below
// RecordedDir.
const PCIConfigFile = "pci-config.txt"

// recordPCIConfig reads every function's config file under root. A
// function whose file cannot be read is left out; no readable function at
// all is the error of the first.
func recordPCIConfig(root string) ([]byte, error) {
	dir := filepath.Join(root, pciDevices)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	d := &pci.Dump{}
	var first error
	for _, e := range ents {
		if !pci.ValidAddress(e.Name()) {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name(), "config"))
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		b, err := io.ReadAll(io.LimitReader(f, pci.MaxConfigSize))
		f.Close()
		if err != nil && len(b) == 0 {
			if first == nil {
				first = err
			}
			continue
		}
		if err := d.Add(e.Name(), b); err != nil {
			return nil, err
		}
	}
	if len(d.Devices) == 0 && first != nil {
		return nil, first
	}
	var out bytes.Buffer
	err = d.Format(&out)
	return out.Bytes(), err
}
