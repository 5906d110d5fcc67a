package acpi

import (
	"fmt"
)

// MADT interrupt controller structure types (ACPI 6.5 §5.2.12, Table 5.21).
const (
	MADTLocalAPIC         = 0x00
	MADTIOAPIC            = 0x01
	MADTIntSrcOverride    = 0x02
	MADTNMISource         = 0x03
	MADTLocalAPICNMI      = 0x04
	MADTLocalAPICOverride = 0x05
	MADTIOSAPIC           = 0x06
	MADTLocalSAPIC        = 0x07
	MADTPlatformIntSrc    = 0x08
	MADTLocalX2APIC       = 0x09
	MADTLocalX2APICNMI    = 0x0A
	MADTGICC              = 0x0B
	MADTGICD              = 0x0C
	MADTGICMSIFrame       = 0x0D
	MADTGICR              = 0x0E
	MADTGICITS            = 0x0F
	MADTMPWakeup          = 0x10
	MADTCorePIC           = 0x11
	MADTLIOPIC            = 0x12
	MADTHTPIC             = 0x13
	MADTEIOPIC            = 0x14
	MADTMSIPIC            = 0x15
	MADTBIOPIC            = 0x16
	MADTLPCPIC            = 0x17
	// Types 0x18-0x7F are reserved; 0x80-0xFF are for OEM use.
	MADTFirstReserved = 0x18
	MADTFirstOEM      = 0x80
)

// madtTypes gives each defined type's name and minimum length.
var madtTypes = map[uint8]struct {
	name string
	min  int
}{
	MADTLocalAPIC:         {"Processor Local APIC", 8},
	MADTIOAPIC:            {"I/O APIC", 12},
	MADTIntSrcOverride:    {"Interrupt Source Override", 10},
	MADTNMISource:         {"NMI Source", 8},
	MADTLocalAPICNMI:      {"Local APIC NMI", 6},
	MADTLocalAPICOverride: {"Local APIC Address Override", 12},
	MADTIOSAPIC:           {"I/O SAPIC", 16},
	MADTLocalSAPIC:        {"Local SAPIC", 17},
	MADTPlatformIntSrc:    {"Platform Interrupt Sources", 16},
	MADTLocalX2APIC:       {"Processor Local x2APIC", 16},
	MADTLocalX2APICNMI:    {"Local x2APIC NMI", 12},
	MADTGICC:              {"GIC CPU Interface", 40}, // ACPI 5.0 size; 76+ since 5.1
	MADTGICD:              {"GIC Distributor", 24},
	MADTGICMSIFrame:       {"GIC MSI Frame", 24},
	MADTGICR:              {"GIC Redistributor", 16},
	MADTGICITS:            {"GIC ITS", 20},
	MADTMPWakeup:          {"Multiprocessor Wakeup", 16},
	MADTCorePIC:           {"Core PIC", 15},
	MADTLIOPIC:            {"LIO PIC", 23},
	MADTHTPIC:             {"HT PIC", 21},
	MADTEIOPIC:            {"EIO PIC", 13},
	MADTMSIPIC:            {"MSI PIC", 19},
	MADTBIOPIC:            {"BIO PIC", 17},
	MADTLPCPIC:            {"LPC PIC", 15},
}

// MADTTypeName names a subtable type ("I/O APIC", "reserved 0x20", "OEM 0x80").
func MADTTypeName(t uint8) string {
	if d, ok := madtTypes[t]; ok {
		return d.name
	}
	if t >= MADTFirstOEM {
		return fmt.Sprintf("OEM 0x%02x", t)
	}
	return fmt.Sprintf("reserved 0x%02x", t)
}

// MADTTypeMinLength is the spec's minimum length for a subtable type, 2 for
// reserved and OEM types.
func MADTTypeMinLength(t uint8) int {
	if d, ok := madtTypes[t]; ok {
		return d.min
	}
	return 2
}

// MADT local APIC flags (ACPI 6.5 §5.2.12.2, Table 5.23).
const (
	LAPICEnabled       = 1 << 0
	LAPICOnlineCapable = 1 << 1
)

// GICC flags (ACPI 6.5 §5.2.12.14, Table 5.37): bit 3, Online Capable,
// is defined from MADT revision 6 (ACPI 6.5).
const (
	GICCEnabled       = 1 << 0
	GICCPerfEdge      = 1 << 1
	GICCVGICEdge      = 1 << 2
	GICCOnlineCapable = 1 << 3
)

// MADT is the Multiple APIC Description Table (ACPI 6.5 §5.2.12).
type MADT struct {
	Header Header
	// LocalAPICAddress is the 32-bit local interrupt controller address.
	LocalAPICAddress uint32
	// Flags: bit 0 PCAT_COMPAT.
	Flags uint32
	// Entries holds every subtable in order, of every type, unknown ones
	// included.
	Entries []MADTEntry

	LocalAPICs    []LocalAPIC
	IOAPICs       []IOAPIC
	Overrides     []IntSrcOverride
	NMISources    []NMISource
	LocalAPICNMIs []LocalAPICNMI
	// LocalAPICOverride is the 64-bit local APIC address, 0 if no override.
	LocalAPICOverride uint64
	IOSAPICs          []IOSAPIC
	LocalSAPICs       []LocalSAPIC
	X2APICs           []LocalX2APIC
	X2APICNMIs        []LocalX2APICNMI
	GICCs             []GICC
	GICDs             []GICD
	GICMSIFrames      []GICMSIFrame
	GICRs             []GICR
	GICITSs           []GICITS
	MPWakeups         []MPWakeup
	// NotRead counts the bytes after the first MaxMADTEntries subtables,
	// which ParseMADT leaves unparsed.
	NotRead int
}

// MADTEntry is one interrupt controller structure, as found.
type MADTEntry struct {
	Type   uint8
	Length uint8
	// Offset is the entry's offset in the table.
	Offset int
	// Raw is the entry's bytes (Length of them).
	Raw []byte
	// Short is set when Length is below the type's minimum; the entry then
	// has no typed value.
	Short bool
}

// LocalAPIC is a Processor Local APIC structure (type 0).
type LocalAPIC struct {
	ProcessorUID uint8
	APICID       uint8
	Flags        uint32
}

// IOAPIC is an I/O APIC structure (type 1).
type IOAPIC struct {
	ID      uint8
	Address uint32
	GSIBase uint32
}

// IntSrcOverride is an Interrupt Source Override (type 2).
type IntSrcOverride struct {
	Bus, Source uint8
	GSI         uint32
	Flags       uint16
}

// NMISource is a Non-Maskable Interrupt Source structure (type 3).
type NMISource struct {
	Flags uint16
	GSI   uint32
}

// LocalAPICNMI is a Local APIC NMI structure (type 4); ProcessorUID 0xFF
// means all processors.
type LocalAPICNMI struct {
	ProcessorUID uint8
	Flags        uint16
	LINT         uint8
}

// IOSAPIC is an I/O SAPIC structure (type 6).
type IOSAPIC struct {
	ID      uint8
	GSIBase uint32
	Address uint64
}

// LocalSAPIC is a Local SAPIC structure (type 7).
type LocalSAPIC struct {
	ProcessorID, ID, EID uint8
	Flags                uint32
	UID                  uint32
	UIDString            string
}

// LocalX2APIC is a Processor Local x2APIC structure (type 9).
type LocalX2APIC struct {
	X2APICID     uint32
	Flags        uint32
	ProcessorUID uint32
}

// LocalX2APICNMI is a Local x2APIC NMI structure (type 0xA); UID
// 0xFFFFFFFF means all processors.
type LocalX2APICNMI struct {
	Flags        uint16
	ProcessorUID uint32
	LINT         uint8
}

// GICC is a GIC CPU Interface structure (type 0xB).
type GICC struct {
	CPUInterfaceNumber uint32
	ProcessorUID       uint32
	Flags              uint32
	PhysicalBase       uint64
	GICRBase           uint64
	MPIDR              uint64
	// PerfGSIV and VGICMaintGSIV are the performance monitoring and
	// virtual GIC maintenance interrupts (0: none); Length is the
	// structure's length (76 in ACPI 5.1, 80 from 6.0, 82 from 6.5).
	PerfGSIV, VGICMaintGSIV uint32
	Length                  uint8
}

// GICD is a GIC Distributor structure (type 0xC).
type GICD struct {
	ID           uint32
	PhysicalBase uint64
	Version      uint8
}

// GICMSIFrame is a GIC MSI Frame structure (type 0xD).
type GICMSIFrame struct {
	ID           uint32
	PhysicalBase uint64
	Flags        uint32
	SPICount     uint16
	SPIBase      uint16
}

// GICR is a GIC Redistributor structure (type 0xE).
type GICR struct {
	DiscoveryBase uint64
	Length        uint32
}

// GICITS is a GIC Interrupt Translation Service structure (type 0xF).
type GICITS struct {
	ID           uint32
	PhysicalBase uint64
}

// MPWakeup is a Multiprocessor Wakeup structure (type 0x10).
type MPWakeup struct {
	MailboxVersion uint16
	MailboxAddress uint64
}

// MADTMinLength is the size of the MADT before its subtables.
const MADTMinLength = HeaderSize + 8

// MaxMADTEntries bounds the subtables ParseMADT decodes. The largest real
// MADTs (servers of several hundred logical CPUs, an x2APIC and an NMI
// entry each) have a few thousand; a crafted one of millions would cost
// gigabytes. What follows is counted in MADT.NotRead.
const MaxMADTEntries = 65536

// ParseMADT decodes a MADT and each of its subtables (at most
// MaxMADTEntries). When the subtable list is malformed (a zero length, or
// an entry running past the table) it returns the MADT with the entries
// before the fault together with an error.
func ParseMADT(t *Table) (*MADT, error) {
	b, err := sdtBody(t, SigMADT, MADTMinLength)
	if err != nil {
		return nil, err
	}
	r := le(b)
	m := &MADT{Header: t.Header, LocalAPICAddress: r.u32(36), Flags: r.u32(40)}
	for off := MADTMinLength; off < len(b); {
		if len(m.Entries) == MaxMADTEntries {
			m.NotRead = len(b) - off
			break
		}
		if off+2 > len(b) {
			return m, fmt.Errorf("APIC: 1 stray byte at offset %d", off)
		}
		typ, n := b[off], int(b[off+1])
		if n < 2 {
			return m, fmt.Errorf("APIC: subtable type %d at offset %d has length %d", typ, off, n)
		}
		if off+n > len(b) {
			return m, fmt.Errorf("APIC: subtable type %d at offset %d, length %d, runs past the table end %d: %w", typ, off, n, len(b), ErrTruncated)
		}
		e := MADTEntry{Type: typ, Length: uint8(n), Offset: off, Raw: b[off : off+n]}
		e.Short = n < MADTTypeMinLength(typ)
		m.Entries = append(m.Entries, e)
		if !e.Short {
			m.decode(e)
		}
		off += n
	}
	return m, nil
}

func (m *MADT) decode(e MADTEntry) {
	s := le(e.Raw)
	switch e.Type {
	case MADTLocalAPIC:
		m.LocalAPICs = append(m.LocalAPICs, LocalAPIC{ProcessorUID: s.u8(2), APICID: s.u8(3), Flags: s.u32(4)})
	case MADTIOAPIC:
		m.IOAPICs = append(m.IOAPICs, IOAPIC{ID: s.u8(2), Address: s.u32(4), GSIBase: s.u32(8)})
	case MADTIntSrcOverride:
		m.Overrides = append(m.Overrides, IntSrcOverride{Bus: s.u8(2), Source: s.u8(3), GSI: s.u32(4), Flags: s.u16(8)})
	case MADTNMISource:
		m.NMISources = append(m.NMISources, NMISource{Flags: s.u16(2), GSI: s.u32(4)})
	case MADTLocalAPICNMI:
		m.LocalAPICNMIs = append(m.LocalAPICNMIs, LocalAPICNMI{ProcessorUID: s.u8(2), Flags: s.u16(3), LINT: s.u8(5)})
	case MADTLocalAPICOverride:
		m.LocalAPICOverride = s.u64(4)
	case MADTIOSAPIC:
		m.IOSAPICs = append(m.IOSAPICs, IOSAPIC{ID: s.u8(2), GSIBase: s.u32(4), Address: s.u64(8)})
	case MADTLocalSAPIC:
		ls := LocalSAPIC{ProcessorID: s.u8(2), ID: s.u8(3), EID: s.u8(4), Flags: s.u32(8), UID: s.u32(12)}
		str := e.Raw[16:]
		for i, c := range str {
			if c == 0 {
				str = str[:i]
				break
			}
		}
		ls.UIDString = string(str)
		m.LocalSAPICs = append(m.LocalSAPICs, ls)
	case MADTLocalX2APIC:
		m.X2APICs = append(m.X2APICs, LocalX2APIC{X2APICID: s.u32(4), Flags: s.u32(8), ProcessorUID: s.u32(12)})
	case MADTLocalX2APICNMI:
		m.X2APICNMIs = append(m.X2APICNMIs, LocalX2APICNMI{Flags: s.u16(2), ProcessorUID: s.u32(4), LINT: s.u8(8)})
	case MADTGICC:
		m.GICCs = append(m.GICCs, GICC{CPUInterfaceNumber: s.u32(4), ProcessorUID: s.u32(8), Flags: s.u32(12),
			PhysicalBase: s.u64(32), GICRBase: s.u64(60), MPIDR: s.u64(68),
			PerfGSIV: s.u32(20), VGICMaintGSIV: s.u32(56), Length: e.Length})
	case MADTGICD:
		m.GICDs = append(m.GICDs, GICD{ID: s.u32(4), PhysicalBase: s.u64(8), Version: s.u8(20)})
	case MADTGICMSIFrame:
		m.GICMSIFrames = append(m.GICMSIFrames, GICMSIFrame{ID: s.u32(4), PhysicalBase: s.u64(8), Flags: s.u32(16), SPICount: s.u16(20), SPIBase: s.u16(22)})
	case MADTGICR:
		m.GICRs = append(m.GICRs, GICR{DiscoveryBase: s.u64(4), Length: s.u32(12)})
	case MADTGICITS:
		m.GICITSs = append(m.GICITSs, GICITS{ID: s.u32(4), PhysicalBase: s.u64(8)})
	case MADTMPWakeup:
		m.MPWakeups = append(m.MPWakeups, MPWakeup{MailboxVersion: s.u16(2), MailboxAddress: s.u64(8)})
	}
}

// MADT returns the first parsed MADT, or an error when it is absent or
// malformed (see ParseMADT for the partial result).
func (ts *Tables) MADT() (*MADT, error) {
	t := ts.First(SigMADT)
	if t == nil {
		return nil, fmt.Errorf("%s: not in %s", SigMADT, ts.Source)
	}
	return ParseMADT(t)
}
