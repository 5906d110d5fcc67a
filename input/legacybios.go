package input

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/fwcheck/fwcheck/pcbios"
)

// LegacyBIOS is the low memory a legacy BIOS (or a CSM) fills for
// pre-ACPI operating systems, read through /dev/mem: the BIOS data area,
// the BIOS area 0xE0000–0xFFFFF, the EBDA the BDA points at, and the MP
// configuration table the MP floating pointer points at. A snapshot
// records each under RecordedDir; an absent EBDA or MP table is recorded
// as an empty file.
var LegacyBIOS = Declare(Def[*LegacyBIOSState]{
	Name: "legacy-bios", Doc: "the BIOS area 0xE0000-0xFFFFF, the EBDA and the MP configuration table (/dev/mem)", Root: true,
	Capture: []string{efiDir + "/fw_platform_size", RecordedDir + "/" + BDAFile, RecordedDir + "/" + BIOSAreaFile,
		RecordedDir + "/" + EBDAFile, RecordedDir + "/" + MPConfigFile},
	Load: loadLegacyBIOS,
})

// Recorded file names of the legacy BIOS input, below RecordedDir.
const (
	BIOSAreaFile = "bios-area.bin"
	EBDAFile     = "ebda.bin"
	MPConfigFile = "mp-config.bin"
)

// LegacyBIOSState is what the legacy BIOS input read.
type LegacyBIOSState struct {
	// UEFI: the machine booted through UEFI (/sys/firmware/efi).
	UEFI bool
	// BDA is the BIOS data area (256 bytes from 0x400).
	BDA []byte
	// Area is 0xE0000–0xFFFFF; nil when it could not be read on a UEFI
	// machine (AreaErr says why).
	Area    []byte
	AreaErr string
	// EBDA is the EBDA's bytes from EBDAAddr to 640 KiB; nil if the BDA
	// names none.
	EBDA     []byte
	EBDAAddr uint64
	// MPConfig is the MP configuration table (base and extended), nil if
	// there is no floating pointer or it names a default configuration.
	MPConfig []byte
}

// EBDAAddress returns the EBDA's address from the BDA's segment at 0x40E,
// and whether it lies where an EBDA can (512–640 KiB).
func EBDAAddress(bda []byte) (uint64, bool) {
	if len(bda) < 0x10 {
		return 0, false
	}
	a := (uint64(bda[0x0E]) | uint64(bda[0x0F])<<8) << 4
	return a, a >= pcbios.EBDAMin && a < pcbios.BaseMemoryEnd
}

func loadLegacyBIOS(src Source) (*LegacyBIOSState, error) {
	s := &LegacyBIOSState{UEFI: booted(src)}
	if _, err := fs.Stat(src, efiDir+"/fw_platform_size"); err == nil {
		s.UEFI = true
	}
	area, err := fs.ReadFile(src, RecordedDir+"/"+BIOSAreaFile)
	if err == nil && len(area) != pcbios.AreaSize {
		err = fmt.Errorf("recorded BIOS area is %d bytes, not %d", len(area), pcbios.AreaSize)
	}
	if err != nil {
		if !s.UEFI {
			return nil, err
		}
		s.AreaErr = err.Error()
		return s, nil
	}
	s.Area = area
	if b, err := fs.ReadFile(src, RecordedDir+"/"+BDAFile); err == nil && len(b) == 256 {
		s.BDA = b
	}
	if a, ok := EBDAAddress(s.BDA); ok {
		b, err := fs.ReadFile(src, RecordedDir+"/"+EBDAFile)
		if err != nil {
			return nil, err
		}
		if len(b) > int(pcbios.BaseMemoryEnd-a) {
			return nil, fmt.Errorf("recorded EBDA is %d bytes, more than the %d from 0x%x to 640 KiB", len(b), pcbios.BaseMemoryEnd-a, a)
		}
		if len(b) > 0 {
			s.EBDA, s.EBDAAddr = b, a
		}
	}
	b, err := fs.ReadFile(src, RecordedDir+"/"+MPConfigFile)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !src.Live():
		// A snapshot without it: nothing to say beyond the floating pointer.
	case err != nil:
		return nil, err
	case len(b) > pcbios.MaxMPTable:
		return nil, fmt.Errorf("recorded MP configuration table is %d bytes, more than %d", len(b), pcbios.MaxMPTable)
	case len(b) > 0:
		s.MPConfig = b
	}
	return s, nil
}

// readMem reads n bytes of physical memory at addr through /dev/mem below
// root, by mmap(2) first. In the first MiB, read(2) returns zeros for any
// page that holds some System RAM (the kernel's devmem_is_allowed gives
// "show as zeros" there), and the EBDA shares its page with the RAM below
// it on most machines (SeaBIOS: RAM to 0x9fbff, EBDA from 0x9fc00); a
// mapping of the same page shows the real bytes. Where mapping is refused,
// read(2) (through devMem) is the fallback.
func readMem(root string, addr uint64, n int) ([]byte, error) {
	f, err := os.Open(filepath.Join(root, "dev/mem"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	page := uint64(os.Getpagesize())
	start := addr &^ (page - 1)
	if m, merr := unix.Mmap(int(f.Fd()), int64(start), int(addr-start)+n, unix.PROT_READ, unix.MAP_SHARED); merr == nil {
		copy(b, m[addr-start:])
		unix.Munmap(m)
		return b, nil
	}
	if _, err := (devMem{f}).ReadAt(b, int64(addr)); err != nil {
		return nil, fmt.Errorf("read 0x%x bytes at 0x%x: %w", n, addr, err)
	}
	return b, nil
}

func recordEBDA(root string) ([]byte, []byte, uint64, error) {
	bda, err := readMem(root, 0x400, 256)
	if err != nil {
		return nil, nil, 0, err
	}
	a, ok := EBDAAddress(bda)
	if !ok {
		return bda, nil, 0, nil
	}
	b, err := readMem(root, a, int(pcbios.BaseMemoryEnd-a))
	return bda, b, a, err
}

// addBIOSRecorders adds the legacy BIOS areas to a live source's recorders.
func addBIOSRecorders(add func(string, Recorder)) {
	add(BIOSAreaFile, func(root string) ([]byte, error) {
		return readMem(root, pcbios.AreaBase, pcbios.AreaSize)
	})
	add(EBDAFile, func(root string) ([]byte, error) {
		_, b, _, err := recordEBDA(root)
		if b == nil {
			b = []byte{}
		}
		return b, err
	})
	add(MPConfigFile, func(root string) ([]byte, error) {
		_, ebda, ebdaAddr, err := recordEBDA(root)
		if err != nil {
			return nil, err
		}
		area, err := readMem(root, pcbios.AreaBase, pcbios.AreaSize)
		if err != nil {
			return nil, err
		}
		f, ok := pcbios.FindMP(ebda, ebdaAddr, area)
		if !ok || f.DefaultConfig() || f.ConfigAddr == 0 {
			return []byte{}, nil
		}
		h, err := readMem(root, uint64(f.ConfigAddr), pcbios.MPConfigHeaderSize)
		if err != nil {
			return nil, err
		}
		n := pcbios.ConfigLength(h)
		if n <= pcbios.MPConfigHeaderSize {
			// Not a table (or only its header): the check reports the
			// signature or length the header holds.
			return h, nil
		}
		return readMem(root, uint64(f.ConfigAddr), n)
	})
}
