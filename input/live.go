package input

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/fwcheck/fwcheck/klog"

	"github.com/fwcheck/fwcheck/acpi"
)

// The ACPI root tables (RSDP, XSDT, RSDT) are not in sysfs: on the live
// machine they are read from /dev/mem, found through the EFI system table
// or the BIOS areas, and a snapshot records them as fwcheck/acpi/<name>.
var rootFiles = map[string]string{"RSDP": acpi.SigRSDP, "XSDT": acpi.SigXSDT, "RSDT": acpi.SigRSDT}

const acpiRootsDir = "acpi"

// EntriesFile, below RecordedDir/acpi, records the first bytes at each
// XSDT and RSDT entry's address (acpi.FormatProbes), read through
// /dev/mem with the root tables: the acpi-tables check judges from them
// whether an entry points at a table.
const EntriesFile = "ENTRIES"

// errNoRootTable says the RSDP does not point at this root table at all.
var errNoRootTable = fmt.Errorf("the RSDP does not point at one: %w", fs.ErrNotExist)

// liveRecorders is the table of the values a live machine records, by
// name below RecordedDir. Each live source builds its own, so that what a
// recorder keeps (the ACPI root tables, read once through /dev/mem)
// belongs to that source, not to the process.
func liveRecorders() map[string]Recorder {
	rs := map[string]Recorder{
		KlogFile:          recordKlog,
		MSRFile:           recordMSRs,
		PCIBARFile:        recordPCIBARs,
		DMAProtectionFile: recordDMAState,
		MEIFile:           recordMEI,
		SPIFile:           recordSPI,
		TXTFile:           recordTXT,
		CPUIDFile:         recordCPUID,
		BDAFile:           recordBDA,
		PCRFile:           recordPCRs,
		ArchFile:          recordArch,
	}
	var (
		mu    sync.Mutex
		cache = map[string]*acpi.Tables{}
	)
	readRoots := func(root string) (*acpi.Tables, error) {
		mu.Lock()
		defer mu.Unlock()
		if ts, ok := cache[root]; ok {
			return ts, nil
		}
		mem, err := os.Open(filepath.Join(root, "dev/mem"))
		if err != nil {
			return nil, err
		}
		defer mem.Close()
		systab, _ := os.ReadFile(filepath.Join(root, "sys/firmware/efi/systab"))
		ts, err := acpi.ReadRoots(devMem{mem}, systab)
		if err != nil && runtime.GOARCH == "arm64" {
			// arm64's devmem_is_allowed refuses every page of RAM, and
			// UEFI puts the RSDP in RAM: iomem=relaxed changes nothing.
			return nil, fmt.Errorf("%w (%s)", err, arm64DevMem)
		}
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("%w (the kernel restricts /dev/mem: boot with iomem=relaxed)", err)
		}
		if err != nil {
			return nil, err
		}
		cache[root] = ts
		return ts, nil
	}
	for file, sig := range rootFiles {
		rs[acpiRootsDir+"/"+file] = func(root string) ([]byte, error) {
			ts, err := readRoots(root)
			if err != nil {
				return nil, err
			}
			t := ts.First(sig)
			if t == nil {
				if len(ts.Warnings) == 0 {
					return nil, errNoRootTable // an ACPI 1.0 RSDP has no XSDT
				}
				return nil, fmt.Errorf("no %s read: %s", file, strings.Join(ts.Warnings, "; "))
			}
			return t.Raw, nil
		}
	}
	rs[acpiRootsDir+"/"+EntriesFile] = func(root string) ([]byte, error) {
		ts, err := readRoots(root)
		if err != nil {
			return nil, err
		}
		return acpi.FormatProbes(ts.Probes), nil
	}
	add := func(name string, r Recorder) { rs[name] = r }
	addBIOSRecorders(add)
	addPlatformRecorders(add)
	return rs
}

// recordKlog reads the live kernel log: /dev/kmsg under root, or, on the
// real root only, syslog(2) where /dev/kmsg cannot be opened.
func recordKlog(root string) ([]byte, error) {
	p := filepath.Join(root, "dev/kmsg")
	var recs []klog.Record
	var err error
	if filepath.Clean(root) == "/" {
		recs, err = klog.ReadLive(p)
	} else {
		recs, err = klog.ReadKmsg(p)
	}
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := klog.Format(&b, recs); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
