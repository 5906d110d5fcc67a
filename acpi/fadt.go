package acpi

import (
	"fmt"
)

// FADT lengths of the revisions the spec defined (ACPI 6.5 §5.2.9).
const (
	FADTLenRev1 = 116 // ACPI 1.0
	FADTLenRev2 = 129 // ACPI 1.0b: RESET_REG and RESET_VALUE added
	FADTLenRev3 = 244 // ACPI 2.0 (revision 3), 3.0, 4.0
	FADTLenRev5 = 268 // ACPI 5.0 adds SLEEP_CONTROL/STATUS_REG
	FADTLenRev6 = 276 // ACPI 6.0+ adds the hypervisor vendor identity
)

// FADT flag bits (ACPI 6.5 §5.2.9, Table 5.10).
const (
	FADTFlagWBINVD           = 1 << 0
	FADTFlagWBINVDFlush      = 1 << 1
	FADTFlagProcC1           = 1 << 2
	FADTFlagPLvl2Up          = 1 << 3
	FADTFlagPowerButton      = 1 << 4
	FADTFlagSleepButton      = 1 << 5
	FADTFlagFixRTC           = 1 << 6
	FADTFlagRTCS4            = 1 << 7
	FADTFlagTmrValExt        = 1 << 8
	FADTFlagDockCap          = 1 << 9
	FADTFlagResetRegSup      = 1 << 10
	FADTFlagSealedCase       = 1 << 11
	FADTFlagHeadless         = 1 << 12
	FADTFlagCPUSwSleep       = 1 << 13
	FADTFlagPCIExpWak        = 1 << 14
	FADTFlagPlatformClock    = 1 << 15
	FADTFlagS4RTCStsValid    = 1 << 16
	FADTFlagRemotePowerOn    = 1 << 17
	FADTFlagForceAPICCluster = 1 << 18
	FADTFlagForceAPICPhys    = 1 << 19
	FADTFlagHWReduced        = 1 << 20
	FADTFlagLowPowerS0Idle   = 1 << 21
	// Bits 22-23 are PERSISTENT_CPU_CACHES (ACPI 6.4 and later; 11b is
	// reserved); 24-31 are reserved.
	FADTPersistentCachesShift = 22
	FADTFlagsReservedMask     = 0xFF000000
)

// IA-PC boot architecture flags (ACPI 6.5 §5.2.9.3).
const (
	BootArchLegacyDevices = 1 << 0
	BootArch8042          = 1 << 1
	BootArchNoVGA         = 1 << 2
	BootArchNoMSI         = 1 << 3
	BootArchNoASPM        = 1 << 4
	BootArchNoCMOSRTC     = 1 << 5
)

// FADT is the Fixed ACPI Description Table (ACPI 6.5 §5.2.9). Fields a
// revision does not have (the table is shorter) are zero; Has reports
// whether a field's offset lies within the table.
type FADT struct {
	Header Header
	// Length is the table length used for parsing (Header.Length).
	Length int

	FirmwareCtrl  uint32
	DSDT          uint32
	Reserved44    uint8 // INT_MODEL in ACPI 1.0, reserved since
	PreferredPM   uint8
	SCIInt        uint16
	SMICmd        uint32
	ACPIEnable    uint8
	ACPIDisable   uint8
	S4BIOSReq     uint8
	PStateCnt     uint8
	PM1aEvtBlk    uint32
	PM1bEvtBlk    uint32
	PM1aCntBlk    uint32
	PM1bCntBlk    uint32
	PM2CntBlk     uint32
	PMTmrBlk      uint32
	GPE0Blk       uint32
	GPE1Blk       uint32
	PM1EvtLen     uint8
	PM1CntLen     uint8
	PM2CntLen     uint8
	PMTmrLen      uint8
	GPE0BlkLen    uint8
	GPE1BlkLen    uint8
	GPE1Base      uint8
	CSTCnt        uint8
	PLvl2Lat      uint16
	PLvl3Lat      uint16
	FlushSize     uint16
	FlushStride   uint16
	DutyOffset    uint8
	DutyWidth     uint8
	DayAlrm       uint8
	MonAlrm       uint8
	Century       uint8
	IAPCBootArch  uint16
	Reserved111   uint8
	Flags         uint32
	ResetReg      GAS
	ResetValue    uint8
	ARMBootArch   uint16
	MinorVersion  uint8
	XFirmwareCtrl uint64
	XDSDT         uint64
	XPM1aEvtBlk   GAS
	XPM1bEvtBlk   GAS
	XPM1aCntBlk   GAS
	XPM1bCntBlk   GAS
	XPM2CntBlk    GAS
	XPMTmrBlk     GAS
	XGPE0Blk      GAS
	XGPE1Blk      GAS
	SleepControl  GAS
	SleepStatus   GAS
	HypervisorID  uint64
}

// FADT field offsets used by Has.
const (
	FADTOffResetReg      = 116
	FADTOffResetValue    = 128
	FADTOffARMBootArch   = 129
	FADTOffMinorVersion  = 131
	FADTOffXFirmwareCtrl = 132
	FADTOffXDSDT         = 140
	FADTOffXPM1aEvtBlk   = 148
	FADTOffSleepControl  = 244
	FADTOffHypervisorID  = 268
)

// ParseFADT decodes a FADT of any revision. A table shorter than the
// ACPI 1.0 layout is an error; fields past its length stay zero.
func ParseFADT(t *Table) (*FADT, error) {
	b, err := sdtBody(t, SigFADT, FADTLenRev1)
	if err != nil {
		return nil, err
	}
	r := le(b)
	f := &FADT{
		Header:       t.Header,
		Length:       len(b),
		FirmwareCtrl: r.u32(36),
		DSDT:         r.u32(40),
		Reserved44:   r.u8(44),
		PreferredPM:  r.u8(45),
		SCIInt:       r.u16(46),
		SMICmd:       r.u32(48),
		ACPIEnable:   r.u8(52),
		ACPIDisable:  r.u8(53),
		S4BIOSReq:    r.u8(54),
		PStateCnt:    r.u8(55),
		PM1aEvtBlk:   r.u32(56),
		PM1bEvtBlk:   r.u32(60),
		PM1aCntBlk:   r.u32(64),
		PM1bCntBlk:   r.u32(68),
		PM2CntBlk:    r.u32(72),
		PMTmrBlk:     r.u32(76),
		GPE0Blk:      r.u32(80),
		GPE1Blk:      r.u32(84),
		PM1EvtLen:    r.u8(88),
		PM1CntLen:    r.u8(89),
		PM2CntLen:    r.u8(90),
		PMTmrLen:     r.u8(91),
		GPE0BlkLen:   r.u8(92),
		GPE1BlkLen:   r.u8(93),
		GPE1Base:     r.u8(94),
		CSTCnt:       r.u8(95),
		PLvl2Lat:     r.u16(96),
		PLvl3Lat:     r.u16(98),
		FlushSize:    r.u16(100),
		FlushStride:  r.u16(102),
		DutyOffset:   r.u8(104),
		DutyWidth:    r.u8(105),
		DayAlrm:      r.u8(106),
		MonAlrm:      r.u8(107),
		Century:      r.u8(108),
		IAPCBootArch: r.u16(109),
		Reserved111:  r.u8(111),
		Flags:        r.u32(112),
		ResetReg:     gasAt(b, 116),
		ResetValue:   r.u8(128),
		ARMBootArch:  r.u16(129),
		MinorVersion: r.u8(131),
	}
	if len(b) >= 140 {
		f.XFirmwareCtrl = r.u64(132)
	}
	if len(b) >= 148 {
		f.XDSDT = r.u64(140)
	}
	f.XPM1aEvtBlk = gasAt(b, 148)
	f.XPM1bEvtBlk = gasAt(b, 160)
	f.XPM1aCntBlk = gasAt(b, 172)
	f.XPM1bCntBlk = gasAt(b, 184)
	f.XPM2CntBlk = gasAt(b, 196)
	f.XPMTmrBlk = gasAt(b, 208)
	f.XGPE0Blk = gasAt(b, 220)
	f.XGPE1Blk = gasAt(b, 232)
	f.SleepControl = gasAt(b, 244)
	f.SleepStatus = gasAt(b, 256)
	if len(b) >= 276 {
		f.HypervisorID = r.u64(268)
	}
	return f, nil
}

// Has reports whether the field that starts at off and is size bytes long
// lies within the table.
func (f *FADT) Has(off, size int) bool { return off+size <= f.Length }

// HasResetReg reports whether the table is long enough to hold RESET_REG
// and RESET_VALUE (ACPI 2.0 and later).
func (f *FADT) HasResetReg() bool { return f.Has(FADTOffResetValue, 1) }

// HWReduced reports the HW_REDUCED_ACPI flag.
func (f *FADT) HWReduced() bool { return f.Flags&FADTFlagHWReduced != 0 }

// ResetSupported reports the RESET_REG_SUP flag.
func (f *FADT) ResetSupported() bool { return f.Flags&FADTFlagResetRegSup != 0 }

// SpecVersion is the ACPI version the FADT declares, as major and minor:
// revisions 1 and 2 are 1.0, 3 is 2.0, 4 is 4.0 (ACPI 3.0 used it too),
// 5 is 5.x and 6 is 6.x, with the minor from the FADT Minor Version field
// (ACPI 6.5 §5.2.9).
func (f *FADT) SpecVersion() (major, minor int) {
	switch rev := int(f.Header.Revision); {
	case rev <= 2:
		return 1, 0
	case rev == 3:
		return 2, 0
	default:
		return rev, int(f.MinorVersion & 0x0F)
	}
}

// FACSAddress is the FACS address OSPM uses: X_FIRMWARE_CTRL when non-zero,
// else FIRMWARE_CTRL.
func (f *FADT) FACSAddress() uint64 {
	if f.XFirmwareCtrl != 0 {
		return f.XFirmwareCtrl
	}
	return uint64(f.FirmwareCtrl)
}

// DSDTAddress is the DSDT address OSPM uses: X_DSDT when non-zero, else
// DSDT.
func (f *FADT) DSDTAddress() uint64 {
	if f.XDSDT != 0 {
		return f.XDSDT
	}
	return uint64(f.DSDT)
}

// Block identifies one of the fixed-hardware register blocks.
type Block int

// Fixed-hardware register blocks that have a 32-bit and an X_ form.
const (
	PM1aEvt Block = iota
	PM1bEvt
	PM1aCnt
	PM1bCnt
	PM2Cnt
	PMTmr
	GPE0
	GPE1
)

var blockNames = [...]string{"PM1a_EVT_BLK", "PM1b_EVT_BLK", "PM1a_CNT_BLK", "PM1b_CNT_BLK", "PM2_CNT_BLK", "PM_TMR_BLK", "GPE0_BLK", "GPE1_BLK"}

func (b Block) String() string {
	if b < 0 || int(b) >= len(blockNames) {
		return fmt.Sprintf("Block(%d)", int(b))
	}
	return blockNames[b]
}

// Blocks lists every register block.
var Blocks = []Block{PM1aEvt, PM1bEvt, PM1aCnt, PM1bCnt, PM2Cnt, PMTmr, GPE0, GPE1}

// Legacy returns the 32-bit port address and length field of a block.
func (f *FADT) Legacy(b Block) (addr uint32, length uint8) {
	switch b {
	case PM1aEvt:
		return f.PM1aEvtBlk, f.PM1EvtLen
	case PM1bEvt:
		return f.PM1bEvtBlk, f.PM1EvtLen
	case PM1aCnt:
		return f.PM1aCntBlk, f.PM1CntLen
	case PM1bCnt:
		return f.PM1bCntBlk, f.PM1CntLen
	case PM2Cnt:
		return f.PM2CntBlk, f.PM2CntLen
	case PMTmr:
		return f.PMTmrBlk, f.PMTmrLen
	case GPE0:
		return f.GPE0Blk, f.GPE0BlkLen
	case GPE1:
		return f.GPE1Blk, f.GPE1BlkLen
	}
	return 0, 0
}

// Extended returns the X_ GAS of a block (not Present before ACPI 2.0).
func (f *FADT) Extended(b Block) GAS {
	switch b {
	case PM1aEvt:
		return f.XPM1aEvtBlk
	case PM1bEvt:
		return f.XPM1bEvtBlk
	case PM1aCnt:
		return f.XPM1aCntBlk
	case PM1bCnt:
		return f.XPM1bCntBlk
	case PM2Cnt:
		return f.XPM2CntBlk
	case PMTmr:
		return f.XPMTmrBlk
	case GPE0:
		return f.XGPE0Blk
	case GPE1:
		return f.XGPE1Blk
	}
	return GAS{}
}

// Effective returns the register block OSPM uses, following the spec's
// precedence: the X_ GAS when its address is non-zero, else the 32-bit
// field as a System I/O block of the length the _LEN field gives.
func (f *FADT) Effective(b Block) GAS {
	if x := f.Extended(b); x.Present && x.Address != 0 {
		return x
	}
	addr, n := f.Legacy(b)
	if addr == 0 {
		return GAS{}
	}
	return GAS{Space: SpaceSystemIO, BitWidth: n * 8, Address: uint64(addr), Present: true}
}

// FADT returns the parsed FADT, or an error when it is absent or malformed.
func (ts *Tables) FADT() (*FADT, error) {
	t := ts.First(SigFADT)
	if t == nil {
		return nil, fmt.Errorf("%s: not in %s", SigFADT, ts.Source)
	}
	return ParseFADT(t)
}

// FACS is the Firmware ACPI Control Structure (ACPI 6.5 §5.2.10).
type FACS struct {
	Length                uint32
	HardwareSignature     uint32
	FirmwareWakingVector  uint32
	GlobalLock            uint32
	Flags                 uint32
	XFirmwareWakingVector uint64
	Version               uint8
	Reserved33            [3]byte
	OSPMFlags             uint32
	// Reserved40 is the OR of the 24 reserved bytes at offset 40.
	Reserved40 uint64
}

// FACS flags (ACPI 6.5 §5.2.10, Table 5.15).
const (
	FACSS4BIOS         = 1 << 0 // the platform supports S4BIOS_REQ
	FACS64BitWakeAvail = 1 << 1 // the platform can wake in 64-bit mode
)

// FACSMinSize is the size of the FACS structure (it may be longer).
const FACSMinSize = 64

// ParseFACS decodes a FACS.
func ParseFACS(b []byte) (*FACS, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("FACS: %d bytes: %w", len(b), ErrTruncated)
	}
	if string(b[:4]) != SigFACS {
		return nil, fmt.Errorf("FACS: signature is %q", b[:4])
	}
	r := le(b)
	f := &FACS{Length: r.u32(4)}
	if f.Length < FACSMinSize {
		return nil, fmt.Errorf("FACS: length %d, need at least %d", f.Length, FACSMinSize)
	}
	if len(b) < FACSMinSize {
		return nil, fmt.Errorf("FACS: %d bytes, need %d: %w", len(b), FACSMinSize, ErrTruncated)
	}
	f.HardwareSignature = r.u32(8)
	f.FirmwareWakingVector = r.u32(12)
	f.GlobalLock = r.u32(16)
	f.Flags = r.u32(20)
	f.XFirmwareWakingVector = r.u64(24)
	f.Version = r.u8(32)
	copy(f.Reserved33[:], b[33:36])
	f.OSPMFlags = r.u32(36)
	f.Reserved40 = r.u64(40) | r.u64(48) | r.u64(56)
	return f, nil
}

// FACS returns the parsed FACS, or an error when it is absent or malformed.
func (ts *Tables) FACS() (*FACS, error) {
	t := ts.First(SigFACS)
	if t == nil {
		return nil, fmt.Errorf("%s: not in %s", SigFACS, ts.Source)
	}
	return ParseFACS(t.Raw)
}
