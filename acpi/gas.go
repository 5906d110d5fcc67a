package acpi

import "fmt"

// GASSize is the size of a Generic Address Structure.
const GASSize = 12

// AddressSpace is a GAS address space ID (ACPI 6.5 §5.2.3.2, Table 5.1).
type AddressSpace uint8

// Address space IDs.
const (
	SpaceSystemMemory     AddressSpace = 0x00
	SpaceSystemIO         AddressSpace = 0x01
	SpacePCIConfig        AddressSpace = 0x02
	SpaceEmbeddedCtrl     AddressSpace = 0x03
	SpaceSMBus            AddressSpace = 0x04
	SpaceCMOS             AddressSpace = 0x05
	SpacePCIBarTarget     AddressSpace = 0x06
	SpaceIPMI             AddressSpace = 0x07
	SpaceGPIO             AddressSpace = 0x08
	SpaceGenericSerialBus AddressSpace = 0x09
	SpacePCC              AddressSpace = 0x0A
	SpacePRM              AddressSpace = 0x0B
	SpaceFunctionalFixed  AddressSpace = 0x7F
)

func (s AddressSpace) String() string {
	switch s {
	case SpaceSystemMemory:
		return "SystemMemory"
	case SpaceSystemIO:
		return "SystemIO"
	case SpacePCIConfig:
		return "PCIConfig"
	case SpaceEmbeddedCtrl:
		return "EmbeddedControl"
	case SpaceSMBus:
		return "SMBus"
	case SpaceCMOS:
		return "CMOS"
	case SpacePCIBarTarget:
		return "PCIBarTarget"
	case SpaceIPMI:
		return "IPMI"
	case SpaceGPIO:
		return "GPIO"
	case SpaceGenericSerialBus:
		return "GenericSerialBus"
	case SpacePCC:
		return "PCC"
	case SpacePRM:
		return "PlatformRuntimeMechanism"
	case SpaceFunctionalFixed:
		return "FunctionalFixedHW"
	}
	return fmt.Sprintf("AddressSpace(0x%02x)", uint8(s))
}

// GAS is a Generic Address Structure (ACPI 6.5 §5.2.3.2).
type GAS struct {
	Space      AddressSpace
	BitWidth   uint8
	BitOffset  uint8
	AccessSize uint8 // 0 undefined, 1 byte, 2 word, 3 dword, 4 qword
	Address    uint64
	Present    bool // the structure lies within the table
}

// IsZero reports whether every field of the GAS is zero (an unused register).
func (g GAS) IsZero() bool {
	return g.Space == 0 && g.BitWidth == 0 && g.BitOffset == 0 && g.AccessSize == 0 && g.Address == 0
}

func (g GAS) String() string {
	return fmt.Sprintf("{%s 0x%x width %d offset %d access %d}", g.Space, g.Address, g.BitWidth, g.BitOffset, g.AccessSize)
}

// ParseGAS decodes a GAS from the first 12 bytes of b.
func ParseGAS(b []byte) (GAS, error) {
	if len(b) < GASSize {
		return GAS{}, fmt.Errorf("gas: %d bytes, need %d: %w", len(b), GASSize, ErrTruncated)
	}
	return GAS{
		Space:      AddressSpace(b[0]),
		BitWidth:   b[1],
		BitOffset:  b[2],
		AccessSize: b[3],
		Address:    le(b).u64(4),
		Present:    true,
	}, nil
}

// gasAt decodes the GAS at off in b, leaving it zero and not Present when b
// is too short.
func gasAt(b []byte, off int) GAS {
	if off+GASSize > len(b) {
		return GAS{}
	}
	g, _ := ParseGAS(b[off:])
	return g
}
