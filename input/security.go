package input

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/fwcheck/fwcheck/chipset"
)

// DMAProtection is what the kernel shows of DMA protection: the IOMMUs it
// drives (/sys/class/iommu), each Thunderbolt domain's security level and
// pre-boot DMA protection flag (/sys/bus/thunderbolt/devices/domainN), and
// the kernel command line, recorded as fwcheck/dma-protection.txt (the
// class entries are links, which a snapshot of plain files cannot hold).
var DMAProtection = Declare(Def[*DMAState]{
	Name: "dma-protection", Doc: "IOMMUs the kernel drives (/sys/class/iommu), Thunderbolt security and DMA protection, the kernel command line",
	Capture: []string{RecordedDir + "/" + DMAProtectionFile},
	Load: func(src Source) (*DMAState, error) {
		b, err := fs.ReadFile(src, path.Join(RecordedDir, DMAProtectionFile))
		if err != nil {
			return nil, err
		}
		return ParseDMAState(b)
	},
})

// DMAProtectionFile is the recorded DMA protection state below RecordedDir.
const DMAProtectionFile = "dma-protection.txt"

// DMAState is the kernel's view of DMA protection.
type DMAState struct {
	IOMMUs      []string // "dmar0", "ivhd0"
	Thunderbolt []ThunderboltDomain
	Cmdline     string
}

// ThunderboltDomain is one Thunderbolt/USB4 domain's security settings.
type ThunderboltDomain struct {
	Name     string // "domain0"
	Security string // "none", "user", "secure", "dponly", "usbonly", "nopcie"
	// DMAProtection is iommu_dma_protection: "1" when the firmware
	// enabled pre-boot DMA protection and the kernel kept the IOMMU on.
	DMAProtection string
}

// ParseDMAState reads the recorded DMA protection lines; at most 4096
// lines are read.
func ParseDMAState(b []byte) (*DMAState, error) {
	s := &DMAState{}
	for i, line := range strings.Split(string(b), "\n") {
		if i > 4096 {
			return nil, errors.New("dma protection: too many lines")
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "iommu":
			s.IOMMUs = append(s.IOMMUs, rest)
		case "thunderbolt":
			f := strings.Fields(rest)
			if len(f) == 0 {
				return nil, fmt.Errorf("dma protection line %d: thunderbolt without a domain", i+1)
			}
			d := ThunderboltDomain{Name: f[0]}
			for _, kv := range f[1:] {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "security":
					d.Security = v
				case "iommu_dma_protection":
					d.DMAProtection = v
				}
			}
			s.Thunderbolt = append(s.Thunderbolt, d)
		case "cmdline":
			s.Cmdline = rest
		default:
			return nil, fmt.Errorf("dma protection line %d: %.40q", i+1, line)
		}
	}
	return s, nil
}

func recordDMAState(root string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# fwcheck dma protection 1\n")
	if ents, err := os.ReadDir(filepath.Join(root, "sys/class/iommu")); err == nil {
		for _, e := range ents {
			fmt.Fprintf(&b, "iommu %s\n", printable(e.Name()))
		}
	}
	tb := filepath.Join(root, "sys/bus/thunderbolt/devices")
	if ents, err := os.ReadDir(tb); err == nil {
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), "domain") {
				continue
			}
			read := func(f string) string {
				v, err := os.ReadFile(filepath.Join(tb, e.Name(), f))
				if err != nil {
					return "unreadable"
				}
				return printable(strings.TrimSpace(string(v)))
			}
			fmt.Fprintf(&b, "thunderbolt %s security=%s iommu_dma_protection=%s\n", printable(e.Name()), read("security"), read("iommu_dma_protection"))
		}
	}
	if c, err := os.ReadFile(filepath.Join(root, "proc/cmdline")); err == nil {
		fmt.Fprintf(&b, "cmdline %s\n", printable(strings.TrimSpace(string(c))))
	}
	return b.Bytes(), nil
}

// printable keeps recorded text to printable ASCII, so that no value can
// end its line early or carry control characters into a report.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}

// MEI is what the kernel's mei driver shows of the Intel ME (CSME): the
// firmware status registers and the firmware version
// (/sys/class/mei/mei0/fw_status and fw_ver), recorded as fwcheck/mei.txt.
// A machine without the driver records nothing, and the me check reads the
// same registers from the HECI function's configuration space instead.
var MEI = Declare(Def[*MEIState]{
	Name: "mei", Doc: "the Intel ME's status registers and version (/sys/class/mei/mei0)",
	Capture: []string{RecordedDir + "/" + MEIFile},
	Load: func(src Source) (*MEIState, error) {
		b, err := fs.ReadFile(src, path.Join(RecordedDir, MEIFile))
		if err != nil {
			return nil, err
		}
		return ParseMEI(b)
	},
})

// MEIFile is the recorded ME state below RecordedDir.
const MEIFile = "mei.txt"

// MEIState is the ME's firmware status registers (HFSTS1 first) and
// version lines ("0:16.1.25.2124").
type MEIState struct {
	Status   []uint32
	Versions []string
}

// ParseMEI reads the recorded ME lines: "fw_status HEX" (one per
// register, at most 6) and "fw_ver TEXT".
func ParseMEI(b []byte) (*MEIState, error) {
	s := &MEIState{}
	for i, line := range strings.Split(string(b), "\n") {
		if i > 64 {
			return nil, errors.New("mei: too many lines")
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "fw_status":
			x, err := strconv.ParseUint(v, 16, 32)
			if err != nil || len(v) != 8 {
				return nil, fmt.Errorf("mei line %d: %.20q is not a status register", i+1, v)
			}
			if len(s.Status) < 6 {
				s.Status = append(s.Status, uint32(x))
			}
		case "fw_ver":
			if len(s.Versions) < 8 {
				s.Versions = append(s.Versions, printable(v))
			}
		default:
			return nil, fmt.Errorf("mei line %d: %.40q", i+1, line)
		}
	}
	return s, nil
}

func recordMEI(root string) ([]byte, error) {
	dir := filepath.Join(root, "sys/class/mei/mei0")
	st, err := os.ReadFile(filepath.Join(dir, "fw_status"))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("# fwcheck mei 1\n")
	for _, l := range strings.Fields(string(st)) {
		fmt.Fprintf(&b, "fw_status %s\n", printable(l))
	}
	if v, err := os.ReadFile(filepath.Join(dir, "fw_ver")); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(v)), "\n") {
			fmt.Fprintf(&b, "fw_ver %s\n", printable(strings.TrimSpace(l)))
		}
	}
	return b.Bytes(), nil
}

// SPIFlash is the Intel SPI controller's flash protection registers, read
// from its memory-mapped register block through /dev/mem: found through
// the SPI function's BAR0 (00:1f.5, 100 Series and later) or the LPC
// bridge's RCBA (6 to 9 Series), as package chipset says for the
// chipset's PCI ID. Recorded as fwcheck/spi.txt. A chipset whose SPI
// controller fwcheck does not know records why, not registers; a refused
// /dev/mem (kernel lockdown, iomem=strict) makes the input unavailable
// with the kernel's error, which input.Remedy turns into the remedy.
var SPIFlash = Declare(Def[*SPIState]{
	Name: "spi-flash", Doc: "the SPI flash controller's protection registers (FLOCKDN, PR0-PR4, region access) from its MMIO block (/dev/mem)", Root: true,
	Capture: []string{RecordedDir + "/" + SPIFile},
	Load: func(src Source) (*SPIState, error) {
		b, err := fs.ReadFile(src, path.Join(RecordedDir, SPIFile))
		if err != nil {
			return nil, err
		}
		return ParseSPI(b)
	},
})

// SPIFile is the recorded SPI controller state below RecordedDir.
const SPIFile = "spi.txt"

// SPIState is what the SPI input read.
type SPIState struct {
	// Addr and Vendor/Device name the PCI function the controller was
	// found through: the SPI function itself, or the LPC bridge whose
	// RCBA points at it.
	Addr           string
	Vendor, Device uint16
	// Base is the register block's physical address.
	Base uint64
	// Regs are the registers read, by offset in the block.
	Regs map[int]uint32
	// Absent, when set, says why no register was read (no SPI controller
	// fwcheck knows); the other fields are then empty.
	Absent string
}

// Reg returns the register at off, and whether it was read.
func (s *SPIState) Reg(off int) (uint32, bool) {
	if s == nil {
		return 0, false
	}
	v, ok := s.Regs[off]
	return v, ok
}

// maxSPIRegs bounds the registers a recorded SPI state may hold: more
// than any layout names.
const maxSPIRegs = 64

// ParseSPI reads the recorded SPI lines:
//
//	controller 0000:00:1f.5 8086:a324 base 0xfe010000
//	reg 0x04 0x0000e008
//	absent TEXT
//
// At most 256 lines and maxSPIRegs registers, offsets 4-aligned below
// 4 KiB.
func ParseSPI(b []byte) (*SPIState, error) {
	s := &SPIState{Regs: map[int]uint32{}}
	haveCtl := false
	for i, line := range strings.Split(string(b), "\n") {
		if i > 256 {
			return nil, errors.New("spi: too many lines")
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "controller":
			f := strings.Fields(rest)
			if haveCtl || len(f) != 4 || f[2] != "base" {
				return nil, fmt.Errorf("spi line %d: want one \"controller ADDR VENDOR:DEVICE base ADDRESS\": %.60q", i+1, line)
			}
			ven, dev, ok := strings.Cut(f[1], ":")
			v, err1 := strconv.ParseUint(ven, 16, 16)
			d, err2 := strconv.ParseUint(dev, 16, 16)
			base, err3 := strconv.ParseUint(f[3], 0, 64)
			if !ok || err1 != nil || err2 != nil || err3 != nil || base%4 != 0 {
				return nil, fmt.Errorf("spi line %d: bad controller %.60q", i+1, rest)
			}
			s.Addr, s.Vendor, s.Device, s.Base = printable(f[0]), uint16(v), uint16(d), base
			haveCtl = true
		case "reg":
			o, v, ok := parseReg(rest)
			if !ok {
				return nil, fmt.Errorf("spi line %d: bad register %.40q", i+1, rest)
			}
			if len(s.Regs) >= maxSPIRegs {
				return nil, fmt.Errorf("spi: more than %d registers", maxSPIRegs)
			}
			s.Regs[o] = v
		case "absent":
			s.Absent = printable(rest)
		default:
			return nil, fmt.Errorf("spi line %d: %.40q", i+1, line)
		}
	}
	switch {
	case s.Absent != "" && (haveCtl || len(s.Regs) > 0):
		return nil, errors.New("spi: both absent and registers")
	case s.Absent == "" && !haveCtl:
		return nil, errors.New("spi: no controller line")
	}
	return s, nil
}

// parseReg reads a recorded register's "OFFSET VALUE": a 4-aligned
// offset below 4 KiB and a 32-bit value.
func parseReg(rest string) (int, uint32, bool) {
	off, val, _ := strings.Cut(rest, " ")
	o, err1 := strconv.ParseUint(off, 0, 16)
	v, err2 := strconv.ParseUint(strings.TrimSpace(val), 0, 32)
	if err1 != nil || err2 != nil || o%4 != 0 || o >= 0x1000 {
		return 0, 0, false
	}
	return int(o), uint32(v), true
}

const (
	lpcAddr = "0000:00:1f.0"
	spiAddr = "0000:00:1f.5"
)

// recordSPI finds the SPI controller under root and reads its
// protection registers.
func recordSPI(root string) ([]byte, error) {
	cfg := func(addr string) []byte {
		b, err := os.ReadFile(filepath.Join(root, pciDevices, addr, "config"))
		if err != nil || len(b) < 256 {
			return nil
		}
		return b
	}
	u16 := func(b []byte, off int) uint16 { return uint16(b[off]) | uint16(b[off+1])<<8 }
	u32 := func(b []byte, off int) uint32 { return uint32(u16(b, off)) | uint32(u16(b, off+2))<<16 }
	var b bytes.Buffer
	b.WriteString("# fwcheck spi 1\n")
	absent := func(format string, args ...any) ([]byte, error) {
		fmt.Fprintf(&b, "absent %s\n", printable(fmt.Sprintf(format, args...)))
		return b.Bytes(), nil
	}
	var (
		ctl  *chipset.SPIController
		addr string
		base uint64
		id   [2]uint16
	)
	if c := cfg(spiAddr); c != nil {
		id = [2]uint16{u16(c, 0), u16(c, 2)}
		if ctl = chipset.LookupSPIFunction(id[0], id[1]); ctl == nil {
			return absent("the function at %s is %s, which is not in fwcheck's table of SPI controllers", spiAddr, chipset.ID(id[0], id[1]))
		}
		addr, base = spiAddr, uint64(u32(c, chipset.SPIBAR0)&chipset.SPIBARMask)
	} else if c := cfg(lpcAddr); c != nil {
		id = [2]uint16{u16(c, 0), u16(c, 2)}
		if ctl = chipset.LookupSPIBehindRCBA(id[0], id[1]); ctl == nil {
			return absent("no SPI function at %s, and the LPC bridge %s is not one whose SPI controller fwcheck knows behind RCBA", spiAddr, chipset.ID(id[0], id[1]))
		}
		rcba := u32(c, chipset.RCBAOffset)
		if rcba&chipset.RCBAEnable == 0 {
			return nil, fmt.Errorf("the LPC bridge's RCBA (0x%08x) is not enabled", rcba)
		}
		addr, base = lpcAddr, uint64(rcba&chipset.RCBABaseMask)+chipset.RCBASPI
	} else {
		return absent("neither an SPI function at %s nor an LPC bridge at %s (configuration space past 256 bytes unreadable or absent)", spiAddr, lpcAddr)
	}
	if base == 0 {
		return nil, fmt.Errorf("%s %s: the SPI register block has no address assigned", addr, chipset.ID(id[0], id[1]))
	}
	offs := ctl.Layout.Offsets()
	vals, err := readMMIO32(root, base, offs)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "controller %s %s base 0x%x\n", addr, chipset.ID(id[0], id[1]), base)
	for i, o := range offs {
		fmt.Fprintf(&b, "reg 0x%02x 0x%08x\n", o, vals[i])
	}
	return b.Bytes(), nil
}

// readMMIO32 reads 32-bit registers at base+off (offs below 4 KiB)
// through a mapping of /dev/mem below root, each with one aligned 32-bit
// load: device registers must not be read with the wide or byte accesses
// a memory copy makes.
func readMMIO32(root string, base uint64, offs []int) ([]uint32, error) {
	if base%4 != 0 {
		return nil, fmt.Errorf("register block address 0x%x not 4-byte aligned", base)
	}
	for _, o := range offs {
		if o < 0 || o%4 != 0 || o >= 0x1000 {
			return nil, fmt.Errorf("register offset 0x%x outside the block", o)
		}
	}
	f, err := os.Open(filepath.Join(root, "dev/mem"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	page := uint64(os.Getpagesize())
	start := base &^ (page - 1)
	length := int((base - start + 0x1000 + page - 1) &^ (page - 1))
	m, err := unix.Mmap(int(f.Fd()), int64(start), length, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map /dev/mem at 0x%x: %w", start, err)
	}
	defer unix.Munmap(m)
	out := make([]uint32, len(offs))
	for i, o := range offs {
		out[i] = atomic.LoadUint32((*uint32)(unsafe.Pointer(&m[base-start+uint64(o)])))
	}
	return out, nil
}

// TXT is the Intel TXT public configuration space's status registers
// (physical FED30000h, read through /dev/mem with 32-bit loads), recorded
// as fwcheck/txt.txt. It is read only on an Intel CPU whose
// /proc/cpuinfo lists smx (the CPU side of TXT); otherwise the record says
// why not, and nothing is read from an address no device may decode.
var TXT = Declare(Def[*TXTState]{
	Name: "txt-public", Doc: "the Intel TXT public space's status registers at FED30000h (/dev/mem)", Root: true,
	Capture: []string{RecordedDir + "/" + TXTFile},
	Load: func(src Source) (*TXTState, error) {
		b, err := fs.ReadFile(src, path.Join(RecordedDir, TXTFile))
		if err != nil {
			return nil, err
		}
		return ParseTXT(b)
	},
})

// TXTFile is the recorded TXT public space below RecordedDir.
const TXTFile = "txt.txt"

// TXTBase is the TXT public space's physical address.
const TXTBase = 0xFED30000

// TXT public space registers fwcheck reads (low 32 bits of each).
const (
	TXTSts       = 0x000 // TXT.STS: SENTER.DONE (0), SEXIT.DONE (1), MEM-CONFIG-LOCK (6), PRIVATE-OPEN (7)
	TXTEsts      = 0x008 // TXT.ESTS: TXT_RESET.STS (0)
	TXTErrorCode = 0x030 // TXT.ERRORCODE: valid (31)
	TXTDIDVID    = 0x110 // TXT.DIDVID: vendor ID (15:0), device ID (31:16)
	TXTACMStatus = 0x328 // ACM status: valid (31), ACM started (15)
	TXTDPR       = 0x330 // TXT.DPR: lock (0), size in MiB (11:4), top (31:20)
)

var txtRegs = []int{TXTSts, TXTEsts, TXTErrorCode, TXTDIDVID, TXTACMStatus, TXTDPR}

// TXTState is what the TXT input read: registers by offset, or why none.
type TXTState struct {
	Regs   map[int]uint32
	Absent string
}

// ParseTXT reads the recorded TXT lines, "reg OFFSET VALUE" (offsets
// 4-aligned below 4 KiB, at most 16) or one "absent TEXT".
func ParseTXT(b []byte) (*TXTState, error) {
	s := &TXTState{Regs: map[int]uint32{}}
	for i, line := range strings.Split(string(b), "\n") {
		if i > 64 {
			return nil, errors.New("txt: too many lines")
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "reg":
			o, v, ok := parseReg(rest)
			if !ok || len(s.Regs) >= 16 {
				return nil, fmt.Errorf("txt line %d: bad register %.40q", i+1, rest)
			}
			s.Regs[o] = v
		case "absent":
			s.Absent = printable(rest)
		default:
			return nil, fmt.Errorf("txt line %d: %.40q", i+1, line)
		}
	}
	if (s.Absent == "") == (len(s.Regs) == 0) {
		return nil, errors.New("txt: want registers or an absent line, not both or neither")
	}
	return s, nil
}

func recordTXT(root string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# fwcheck txt 1\n")
	ci, err := os.ReadFile(filepath.Join(root, "proc/cpuinfo"))
	if err != nil {
		return nil, err
	}
	first, _, _ := strings.Cut(string(ci), "\n\n")
	smx := false
	for _, l := range strings.Split(first, "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "flags" {
			smx = slices.Contains(strings.Fields(v), "smx")
		}
	}
	switch {
	case !strings.Contains(first, "GenuineIntel"):
		fmt.Fprintf(&b, "absent not an Intel CPU: no TXT\n")
		return b.Bytes(), nil
	case !smx:
		fmt.Fprintf(&b, "absent the CPU has no SMX (cpuinfo flag smx): no TXT\n")
		return b.Bytes(), nil
	}
	vals, err := readMMIO32(root, TXTBase, txtRegs)
	if err != nil {
		return nil, err
	}
	for i, o := range txtRegs {
		fmt.Fprintf(&b, "reg 0x%03x 0x%08x\n", o, vals[i])
	}
	return b.Bytes(), nil
}
