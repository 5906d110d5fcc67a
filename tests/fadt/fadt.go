// Package fadt checks the Fixed ACPI Description Table: its length for its
// revision, the FACS and DSDT pointers, the PM register blocks, the fields
// OSes rely on, and the reset register, whose chipset-specific hazards
// (the single 0xCF9 write) it names.
//
// fwts' facs test, rule by rule (fwts names → fwcheck labels):
// FACSInvalidLength → FACSInvalid; FACSInvalidAlignment →
// FADTFACSAlignment; FACSNotReserved → FACSNotReserved (a warning: no
// corpus dump carries a memory map, so no occurrence has been read); the
// reserved bytes at 33-35, the reserved flag bits 31:2 and
// FACSInvalidReserved1 (bytes 40-63) → FACSReservedNonZero. Added beside
// fwts: FACSS4BIOSWithoutRequest (S4BIOS_F set with no S4BIOS_REQ value or
// SMI_CMD port to use it). Corpus occurrences read against ACPI 6.5
// §5.2.10: FACSReservedNonZero on 4C483D36D3E6 and 728634434C6F (version-1
// FACSs whose bytes from 33 on hold what look like stale memory, 0xff
// runs among them), FACSS4BIOSWithoutRequest on 83A64B35F7D8 (S4BIOS_F set,
// S4BIOS_REQ 0). Left out: the reserved bits of OSPM Flags,
// which the OS writes, not the firmware (a finding would blame firmware
// for what the running OS stored there), and the FACS version (0, 1 and 2
// are all in the corpus, each right for the ACPI version of its
// firmware).
//
// fwts' fadt test, rule by rule: FADTFACSZero and FADT32BitFACSNull →
// FADTFACSMissing; FwCtrl32and64Differ → FADTFACSAddressMismatch;
// FADTDSDTNull and FADTXDSDTNull with both pointers zero →
// FADTDSDTMissing; FADT32And64Mismatch → FADTDSDTAddressMismatch;
// FADTSCIIRQZero → FADTSCIInterruptZero; FADTSMICMDZero →
// FADTSMICommandMissing (a warning until a corpus machine shows it);
// FADTBadPMTMRLEN, FADTBadGPEBLKLEN and FADTBadGPE1BLKLEN →
// FADTPMBlockLength; FADTBadRESETREG → FADTResetRegSpace; its zero
// RESET_VALUE warning → FADTResetValueZero; FADTPM1CNTAddrMismatch and
// FADTPM1CNTSizeMismatch → FADTXBlockAddressMismatch and
// FADTXBlockWidthMismatch; FADTPM1AInvalidWidth → FADTPMBlockLength
// (PM1_CNT_LEN of at least 2); FadtResetRegWidth and FadtResetRegBitOffset →
// FADTResetRegWidth and FADTResetRegOffset. The revision-to-length matrix:
// 116 bytes for revision 1, 129 for 2 (through RESET_VALUE, which revision
// 2 added; the corpus' revision-2 FADTs are 132), 244 for 3 and 4, 268 for
// 5, 276 for 6 and later (FADTLengthRevision). Left out: FADTXDSDTNull
// with the 32-bit DSDT set (ACPI 6.5 allows either pointer alone, and a
// DSDT below 4 GiB needs no X_DSDT); fwts' warnings that a hardware-reduced
// FADT has nonzero SMI_CMD, PM_TMR_LEN or GPE block lengths (the
// specification says OSPM ignores those fields then); SCI_ENNotEnabled,
// which reads the PM1a control port (checks read no I/O ports, and the
// running OS, not the firmware, owns SCI_EN by then).
//
// fwts' newer fadt test (the 2026 source, which splits the 2015 rules and
// adds more), rule by rule: FADTCPUCACHESRESERVED and FADTReservedZero
// (bytes 44 and 111, ARM_BOOT_ARCH in a 5.0 FADT) → FADTReservedNonZero,
// which also holds PERSISTENT_CPU_CACHES' bits to zero before ACPI 6.4;
// FADTPMProfile → FADTPMProfileInvalid; FADTOneDSDTNull → FADTDSDTMissing;
// SMMNeedsAcpiEnableCmd, SMMNeedsAcpiDisableCmd, SMMHasExtraPstateCntCmd and
// SMMHasExtraCSTCntCmd → FADTSMICommandMissing (one finding naming every
// command given without the port); FACSMustBePresent → FADTFACSMissing and
// FACSInvalid; SMMHasNoS4BIOSReqCmd → FACSS4BIOSWithoutRequest;
// FADTPm1aEvtBlkNotSet and FADTPm1aCntBlkNotSet → FADTPMBlockMissing, and
// the "both set and different" branch of those and of the PM1b, PM2 and
// PM timer rules → FADTXBlockAddressMismatch; FADTPm1EvtLenTooSmall,
// FADTPm1CntLenTooSmall, FADTPm2CntLenTooSmall, FADTBadPMTMRLEN,
// FADTBadGPE0BLKLEN and FADTGPE1BlkLenInconsistent (a GPE block with a zero
// length, a warning: no corpus machine has one) → FADTPMBlockLength;
// FADTPm2CntLenInconsistent and FADTPmTmrLenInconsistent →
// FADTBlockLengthWithoutBlock; X_GPE0_BLKBadAccessWidth and
// X_GPE1_BLKBadAccessWidth → FADTGPEBlockAccessSize, but only for word,
// dword or qword sizes: fwts also fails Access Size 0, which the GAS
// defines as "undefined (legacy reasons)" and which QEMU's q35 FADT and 18
// corpus machines give; SleepControlRegHasBadGAS and SleepStatusRegHasBadGAS
// → FADTSleepRegisterLayout (a warning: QEMU's microvm, the only
// hardware-reduced x86 table at hand, gets it right).
//
// Left out of the newer rules, each because the specification allows the
// case: the "FADT revision is outdated" warning (any revision is valid,
// and each is right for the ACPI version its firmware implements);
// FADTRHWNonZero, FADTRHWFlagsNonZero and FADTRHWAPICFlags (ACPI 6.5 §5.2.9
// says OSPM ignores those fields and flags when HW_REDUCED_ACPI is set; it
// does not ask for them to be zero); FADTZeroGPE0BlkLen (GPE0_BLK is
// optional; 3 corpus machines have none); SMMS4BIOSCmdDefined (the FACS's
// S4BIOS_F decides whether OSPM uses S4BIOS_REQ; 12 corpus machines carry
// the AMI value 0xF2 with the flag clear and OSPM never writes it);
// SleepControlRegNotAllowed and SleepStatusRegNotAllowed (the registers are
// optional and used only on hardware-reduced systems; 17 corpus machines
// with fixed hardware publish them, to no effect); PLvl2LatDefinedButNotUsable
// and PLvl3LatDefinedButNotUsable (the latencies matter only for C-states
// entered through a Processor object's P_BLK; processors declared as
// devices describe their C-states in _CST, and a latency nothing uses
// changes nothing: 21 corpus machines give P_LVL2_LAT ≤ 100); the checksum
// test (acpi-tables checks every table's checksum). FADTXBlockAddressMismatch
// is kept for every revision, where fwts drops it after ACPI 6.1: 6.2 and
// later tell OSPM to ignore the 32-bit field, yet Linux still logs the
// mismatch as a firmware bug, and one of the two values is stale.
//
// Labels on corpus machines (linuxhw IDs, core and full dumps):
// FADTGPEBlockAccessSize on 4B89F57A5AA6, 524B6B1AD490, 60A19B2806BE,
// 742F023DAEF2, 795503221AEA, 9C99E007509B, D0292BFAFD2C, D98C04F8D964,
// E273887C5E08, F37B2DCEC897 and F7FA2C1C3292 (X_GPE0_BLK qword or dword
// access at 0x420); FADTBlockLengthWithoutBlock on 279BA270C61D,
// 53B5D217D45C and 9DD6689C023B (PM2_CNT_LEN 1, no PM2 block). Read against
// ACPI 6.5 §4.8.5.1 ("each register in the block is accessed as a byte")
// and Table 5.9 (PM2_CNT_LEN is zero when the block is not supported).
package fadt

import (
	"fmt"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

const fadtSpec = "ACPI 6.5 §5.2.9"

var (
	labelFADTMissing = tests.NewLabel("FADTMissing", tests.Critical, fadtSpec,
		"There is no FADT (signature FACP). Without it an OS cannot find the DSDT or any fixed "+
			"hardware, and will not run in ACPI mode. Publish a FADT through the XSDT.")
	labelFADTMalformed = tests.NewLabel("FADTMalformed", tests.Critical, fadtSpec,
		"The FADT is too short or its header length does not match its bytes, so its fields cannot "+
			"be read. Publish a FADT of the size its revision defines.")
	labelFADTLength = tests.NewLabel("FADTLengthRevision", tests.Medium, fadtSpec,
		"The FADT is shorter than its revision requires (116 bytes for revision 1, 129 for 2, 244 for 3 and 4, "+
			"268 for 5, 276 for 6), so fields the revision promises are missing and read as zero. "+
			"Either lower the revision or publish the full table.")
	labelFACSMismatch = tests.NewLabel("FADTFACSAddressMismatch", tests.Medium, fadtSpec,
		"FIRMWARE_CTRL and X_FIRMWARE_CTRL are both set and point to different places. OSes prefer "+
			"X_FIRMWARE_CTRL, others the 32-bit field, so they can use different FACS copies (and "+
			"different waking vectors and global locks). Make them equal, or set only X_FIRMWARE_CTRL.")
	labelFACSNone = tests.NewLabel("FADTFACSMissing", tests.High, fadtSpec,
		"Both FACS pointers are zero on a system that is not hardware-reduced, so the OS has no "+
			"waking vector or global lock and cannot resume from sleep. Point X_FIRMWARE_CTRL at the FACS.")
	labelFACSAlign = tests.NewLabel("FADTFACSAlignment", tests.Medium, "ACPI 6.5 §5.2.10",
		"The FACS address is not a multiple of 64. The specification requires the FACS to be 64-byte "+
			"aligned (its global lock is updated with locked atomic operations). Place the FACS on a "+
			"64-byte boundary.")
	labelFACSInvalid = tests.NewLabel("FACSInvalid", tests.Medium, "ACPI 6.5 §5.2.10",
		"The FACS is shorter than its 64-byte layout or lacks its signature, so the OS reads the "+
			"waking vector and global lock from the wrong bytes. Publish a complete FACS.")
	labelFACSReserved = tests.NewLabel("FACSReservedNonZero", tests.Low, "ACPI 6.5 §5.2.10",
		"The FACS's reserved bytes (offsets 33-35 and 40-63) or reserved flag bits (31:2) are not zero. "+
			"Firmware owns these bytes only to clear them; a later revision may give them a meaning. Clear "+
			"them when the FACS is built.")
	labelFACSS4BIOS = tests.NewLabel("FACSS4BIOSWithoutRequest", tests.Low, "ACPI 6.5 §5.2.10, §5.2.9",
		"The FACS sets S4BIOS_F, saying the firmware can save and restore memory for S4 itself, but the "+
			"FADT gives no S4BIOS_REQ value (or no SMI_CMD port) to ask for it, so the OS cannot use it. "+
			"Give the SMI command value that enters S4BIOS, or clear S4BIOS_F.")
	labelFACSNotReserved = tests.NewLabel("FACSNotReserved", tests.Medium, "ACPI 6.5 §5.2.10, §15.3",
		"The FACS is not in memory the firmware memory map reserves (ACPI NVS), so the OS may reuse it "+
			"and the waking vector and global lock are lost. Report the FACS's range as ACPI NVS.")
	labelSleepPair = tests.NewLabel("FADTSleepRegisterPair", tests.Medium, "ACPI 6.5 §4.8.3.7, §5.2.9",
		"Only one of SLEEP_CONTROL_REG and SLEEP_STATUS_REG is set. A hardware-reduced OS needs both "+
			"to enter and leave sleep states; give both registers or neither.")
	labelDSDTMismatch = tests.NewLabel("FADTDSDTAddressMismatch", tests.Medium, fadtSpec,
		"DSDT and X_DSDT are both set and differ. ACPI 2.0+ OSes use X_DSDT and older ones DSDT, so "+
			"they may run different AML. Make them equal, or leave the 32-bit field zero.")
	labelDSDTNone = tests.NewLabel("FADTDSDTMissing", tests.Critical, fadtSpec,
		"Both DSDT pointers are zero: the OS has no AML namespace at all. Point X_DSDT (and DSDT "+
			"when it fits in 32 bits) at the DSDT.")
	labelPMBlockMissing = tests.NewLabel("FADTPMBlockMissing", tests.High, fadtSpec,
		"A PM1a event or control block is missing on a system that is not hardware-reduced. These "+
			"blocks are required: without them the OS cannot handle power-button events or enter "+
			"sleep states. Describe them, or set HW_REDUCED_ACPI if the hardware really has none.")
	labelPMBlockLen = tests.NewLabel("FADTPMBlockLength", tests.Medium, fadtSpec,
		"A fixed-hardware block length is outside what the specification allows (PM1_EVT_LEN >= 4, "+
			"PM1_CNT_LEN >= 2, PM2_CNT_LEN >= 1 when PM2 exists, PM_TMR_LEN = 4, GPE block lengths even). "+
			"Set the length to the size of the block the chipset implements.")
	labelXBlockMismatch = tests.NewLabel("FADTXBlockAddressMismatch", tests.Medium, fadtSpec,
		"A 32-bit block address and its X_ Generic Address Structure are both set and disagree. OSes "+
			"pick one by their own rules (Linux warns and may use either), so make both describe the "+
			"same register block, or set only the X_ field.")
	labelXBlockWidth = tests.NewLabel("FADTXBlockWidthMismatch", tests.Low, fadtSpec,
		"A PM block's X_ bit width does not match its 32-bit _LEN field. Make the widths agree.")
	labelLenWithoutBlock = tests.NewLabel("FADTBlockLengthWithoutBlock", tests.Low, fadtSpec,
		"A register block's _LEN field is non-zero but the block's address (and its X_ form) is zero. "+
			"The specification asks for a length of 0 when the block is not implemented; OSes key on the "+
			"address, so nothing breaks today, but the two fields disagree about whether the hardware "+
			"exists. Set the length to 0, or give the block's address.")
	labelGPEAccess = tests.NewLabel("FADTGPEBlockAccessSize", tests.Low, "ACPI 6.5 §4.8.5.1, §5.2.3.2",
		"An X_GPE block's Access Size asks for word, dword or qword access, but every GPE status and "+
			"enable register is accessed as a byte. ACPICA ignores the field and uses byte access; an OS "+
			"that honours it touches several GPE registers at once and can clear status bits it did not mean to. "+
			"Set the Access Size to 1 (byte), or 0 (undefined) as older firmware does.")
	labelSleepLayout = tests.NewLabel("FADTSleepRegisterLayout", tests.Medium, "ACPI 6.5 §4.8.3.7, §5.2.9",
		"On a hardware-reduced system SLEEP_CONTROL_REG and SLEEP_STATUS_REG are 8-bit registers whose "+
			"bits (SLP_TYPx, SLP_EN, WAK_STS) are defined from bit 0. A bit width other than 8 or a non-zero "+
			"bit offset moves those bits, so the OS writes the sleep type to the wrong place and the machine "+
			"does not enter, or reports it did not leave, the sleep state. Describe each register as 8 bits at offset 0.")
	labelReserved = tests.NewLabel("FADTReservedNonZero", tests.Low, fadtSpec,
		"A reserved FADT field or flag bit is set. Reserved bits may gain a meaning in a later "+
			"revision, when the stale value will be misread. Write zero to reserved fields.")
	labelPMProfile = tests.NewLabel("FADTPMProfileInvalid", tests.Low, "ACPI 6.5 §5.2.9 Table 5.9",
		"Preferred_PM_Profile is above 8, a value the specification does not define. OSes use it to "+
			"pick power policy; set it to the platform's class (1 desktop, 2 mobile, 4 enterprise server, 8 tablet, …).")
	labelHWReducedRev = tests.NewLabel("FADTHWReducedRevision", tests.Medium, fadtSpec,
		"HW_REDUCED_ACPI is set in a FADT older than revision 5, where the flag did not exist; "+
			"older OSes read it as reserved and expect fixed hardware. Publish a revision 5+ FADT.")
	labelSCIInt = tests.NewLabel("FADTSCIInterruptZero", tests.Medium, fadtSpec,
		"SCI_INT is 0 on a system with fixed ACPI hardware. Interrupt 0 is the system timer on a PC, "+
			"so the SCI cannot be delivered. Give the SCI's real interrupt (usually 9).")
	labelSMICmd = tests.NewLabel("FADTSMICommandValues", tests.Medium, fadtSpec,
		"SMI_CMD is set but ACPI_ENABLE and ACPI_DISABLE are the same non-zero value, so the OS cannot tell firmware to "+
			"hand over or take back the hardware. Give the two distinct command values the SMI handler implements.")
	labelSMICmdMissing = tests.NewLabel("FADTSMICommandMissing", tests.Low, fadtSpec,
		"SMI_CMD is 0, which says the platform has no SMI command port, yet ACPI_ENABLE, ACPI_DISABLE, "+
			"S4BIOS_REQ, PSTATE_CNT or CST_CNT give commands to write to it; these fields must be 0 without "+
			"the port, and the commands cannot be sent. Give the SMI command port, or clear the commands.")
	labelResetNoAddr = tests.NewLabel("FADTResetSupportedNoAddress", tests.High, fadtSpec,
		"RESET_REG_SUP (flag bit 10) says the reset register works, but RESET_REG's address is zero. "+
			"An OS that trusts the flag writes to address 0 and the machine does not reboot. Fill in "+
			"RESET_REG or clear the flag.")
	labelResetUnflagged = tests.NewLabel("FADTResetRegisterUnflagged", tests.Low, fadtSpec,
		"RESET_REG holds a register but RESET_REG_SUP (flag bit 10) is clear, so OSes that honour "+
			"the flag never use it and fall back to slower or less reliable reset methods. Set the "+
			"flag if the register works, otherwise clear RESET_REG.")
	labelResetSpace = tests.NewLabel("FADTResetRegSpace", tests.High, fadtSpec,
		"RESET_REG must be in System I/O, System Memory or PCI Configuration space (bus 0); any "+
			"other address space cannot be written by an OS at reset time. Move the reset register.")
	labelResetWidth = tests.NewLabel("FADTResetRegWidth", tests.Medium, fadtSpec,
		"RESET_REG's Register Bit Width must be 8: the reset register is one byte. OSes may refuse "+
			"the register or write the wrong size. Set the bit width to 8.")
	labelResetOffset = tests.NewLabel("FADTResetRegOffset", tests.Medium, fadtSpec,
		"RESET_REG's Register Bit Offset must be 0. Set it to 0 and put the register's address in "+
			"the Address field.")
	labelResetAccess = tests.NewLabel("FADTResetRegAccessSize", tests.Low, "ACPI 6.5 §5.2.3.2, §5.2.9",
		"RESET_REG's Access Size asks for wider than byte access to an 8-bit register, so the OS "+
			"writes neighbouring registers too. Use 1 (byte) or 0 (undefined, legacy).")
	labelResetValueZero = tests.NewLabel("FADTResetValueZero", tests.Medium, fadtSpec,
		"RESET_REG has an address but RESET_VALUE is 0; writing 0 resets nothing on any known reset "+
			"register. Set RESET_VALUE to the value that triggers the reset.")
	labelResetCF9 = tests.NewLabel("FADTResetCF9SingleWrite", tests.Low, fadtSpec,
		"RESET_REG is I/O port 0xCF9 and RESET_VALUE sets the reset-type bits and RST_CPU (bit 2) in "+
			"one write (0x06, 0x0E, 0x0F). The reset control register latches the type on the same "+
			"write that starts the reset, which on real chipsets fails a few percent of the time and "+
			"leaves the machine hung at reboot. A reliable sequence writes the type first (0x02, or "+
			"0x0A for a full reset), waits briefly, then writes it again with bit 2 set (0x06/0x0E): "+
			"OSes do that in their own fallback, but RESET_REG allows one write only. Prefer a reset "+
			"register that needs a single write, or trap the 0xCF9 write in firmware and sequence it there.")
	labelResetSMI = tests.NewLabel("FADTResetViaSMI", tests.Low, fadtSpec,
		"RESET_REG is the SMI command port: reset is done by an SMI handler.")
	labelResetKBC = tests.NewLabel("FADTResetViaKBC", tests.Low, fadtSpec,
		"RESET_REG is the 8042 keyboard controller.")
)

// Check is the fadt check.
var Check = &tests.Check{
	ID:       "fadt",
	Title:    "FADT fields, pointers, register blocks and the RESET register",
	Category: tests.ACPI,
	Inputs:   []input.Decl{input.ACPITables},
	Optional: []input.Decl{input.MemoryMap},
	Spec:     fadtSpec,
	Labels:   []*tests.Label{labelFADTMissing, labelFADTMalformed, labelFADTLength, labelFACSMismatch, labelFACSNone, labelFACSAlign, labelFACSInvalid, labelFACSReserved, labelFACSS4BIOS, labelFACSNotReserved, labelSleepPair, labelDSDTMismatch, labelDSDTNone, labelPMBlockMissing, labelPMBlockLen, labelXBlockMismatch, labelXBlockWidth, labelReserved, labelPMProfile, labelHWReducedRev, labelSCIInt, labelSMICmd, labelLenWithoutBlock, labelGPEAccess, labelSleepLayout, labelSMICmdMissing, labelResetNoAddr, labelResetUnflagged, labelResetSpace, labelResetWidth, labelResetOffset, labelResetAccess, labelResetValueZero, labelResetCF9, labelResetSMI, labelResetKBC},
	Run:      run,
}

func run(p *tests.Pass) error {
	ts := tests.Input(p, input.ACPITables)
	t := ts.First(acpi.SigFADT)
	if t == nil {
		p.Fail(labelFADTMissing, "no FACP table")
		return nil
	}
	f, err := acpi.ParseFADT(t)
	if err != nil {
		p.Fail(labelFADTMalformed, "%v", err)
		return nil
	}
	maj, min := f.SpecVersion()
	p.Info(nil, "FADT revision %d (ACPI %d.%d), %d bytes, hardware-reduced %v", f.Header.Revision, maj, min, f.Length, f.HWReduced())
	checkFADTLength(p, f)
	checkFADTPointers(p, f)
	checkFADTBlocks(p, f)
	checkFADTFields(p, f)
	checkFADTReset(p, f)
	checkFACS(p, ts, f)
	return nil
}

// checkFACS checks the FACS the FADT points to: its alignment and, when
// the table set holds it, its layout. A FACS missing from the set is no
// failure: sysfs and acpidump usually carry it, but memory reads may not.
func checkFACS(p *tests.Pass, ts *acpi.Tables, f *acpi.FADT) {
	if a := f.FACSAddress(); a != 0 && a%64 != 0 {
		p.Fail(labelFACSAlign, "FACS address 0x%x is not 64-byte aligned", a)
	}
	facs := ts.Get(acpi.SigFACS)
	for _, t := range facs {
		fc, err := acpi.ParseFACS(t.Raw)
		if err != nil {
			p.Fail(labelFACSInvalid, "%s: %v", t.Name(), err)
			continue
		}
		before := p.Failures()
		if fc.Flags&^(acpi.FACSS4BIOS|acpi.FACS64BitWakeAvail) != 0 || fc.Reserved33 != [3]byte{} || fc.Reserved40 != 0 {
			p.Fail(labelFACSReserved, "%s: flags 0x%08x, reserved bytes 33-35 %x, reserved bytes 40-63 %s",
				t.Name(), fc.Flags, fc.Reserved33[:], nonzero(fc.Reserved40))
		}
		if fc.Flags&acpi.FACSS4BIOS != 0 && (f.S4BIOSReq == 0 || f.SMICmd == 0) {
			p.Fail(labelFACSS4BIOS, "%s: S4BIOS_F set; FADT S4BIOS_REQ 0x%02x, SMI_CMD 0x%x", t.Name(), f.S4BIOSReq, f.SMICmd)
		}
		if p.Failures() == before {
			p.Passed("%s: %d bytes, version %d", t.Name(), fc.Length, fc.Version)
		}
	}
	a := f.FACSAddress()
	if a == 0 || len(facs) == 0 {
		return
	}
	mm := tablecheck.MemoryMap(p, "FACS range against the firmware memory map")
	if mm == nil {
		return
	}
	n := uint64(acpi.FACSMinSize)
	if fc, err := acpi.ParseFACS(facs[0].Raw); err == nil {
		n = uint64(fc.Length)
	}
	if ok, what := tablecheck.Reserved(mm, a, a+n-1); !ok {
		// No corpus dump carries a memory map: the label is a warning
		// until a real occurrence is read.
		p.Warn(labelFACSNotReserved, "FACS 0x%x-0x%x: %s", a, a+n-1, what)
	}
}

func nonzero(v uint64) string {
	if v == 0 {
		return "zero"
	}
	return fmt.Sprintf("nonzero (0x%x)", v)
}

func checkFADTLength(p *tests.Pass, f *acpi.FADT) {
	want := 0
	switch r := f.Header.Revision; {
	case r >= 6:
		want = acpi.FADTLenRev6
	case r == 5:
		want = acpi.FADTLenRev5
	case r >= 3:
		want = acpi.FADTLenRev3
	case r == 2:
		want = acpi.FADTLenRev2
	default:
		want = acpi.FADTLenRev1
	}
	if f.Length < want {
		p.Fail(labelFADTLength, "revision %d needs %d bytes, the FADT has %d", f.Header.Revision, want, f.Length)
	}
}

// checkFADTPointers checks the FACS and DSDT pointers. Since ACPI 6.0 both
// forms of a pointer may be set, the X_ one taking precedence; they must
// then agree.
func checkFADTPointers(p *tests.Pass, f *acpi.FADT) {
	switch {
	case f.FirmwareCtrl != 0 && f.XFirmwareCtrl != 0 && uint64(f.FirmwareCtrl) != f.XFirmwareCtrl:
		p.Fail(labelFACSMismatch, "FIRMWARE_CTRL 0x%x, X_FIRMWARE_CTRL 0x%x", f.FirmwareCtrl, f.XFirmwareCtrl)
	case f.FACSAddress() == 0 && !f.HWReduced():
		p.Fail(labelFACSNone, "FIRMWARE_CTRL and X_FIRMWARE_CTRL are zero")
	}
	switch {
	case f.DSDT != 0 && f.XDSDT != 0 && uint64(f.DSDT) != f.XDSDT:
		p.Fail(labelDSDTMismatch, "DSDT 0x%x, X_DSDT 0x%x", f.DSDT, f.XDSDT)
	case f.DSDTAddress() == 0:
		p.Fail(labelDSDTNone, "DSDT and X_DSDT are zero")
	default:
		p.Passed("DSDT at 0x%x", f.DSDTAddress())
	}
}

func checkFADTBlocks(p *tests.Pass, f *acpi.FADT) {
	if f.HWReduced() {
		return // these fields are ignored on hardware-reduced systems
	}
	for _, b := range []acpi.Block{acpi.PM1aEvt, acpi.PM1aCnt} {
		if f.Effective(b).Address == 0 {
			p.Fail(labelPMBlockMissing, "%s is zero (and X_%s too)", b, b)
		}
	}
	if f.PM1EvtLen < 4 && f.Effective(acpi.PM1aEvt).Address != 0 {
		p.Fail(labelPMBlockLen, "PM1_EVT_LEN is %d, at least 4 required", f.PM1EvtLen)
	}
	if f.PM1CntLen < 2 && f.Effective(acpi.PM1aCnt).Address != 0 {
		p.Fail(labelPMBlockLen, "PM1_CNT_LEN is %d, at least 2 required", f.PM1CntLen)
	}
	if f.Effective(acpi.PM2Cnt).Address != 0 && f.PM2CntLen < 1 {
		p.Fail(labelPMBlockLen, "PM2_CNT_BLK is set but PM2_CNT_LEN is 0")
	}
	if f.Effective(acpi.PMTmr).Address != 0 && f.PMTmrLen != 4 {
		p.Fail(labelPMBlockLen, "PM_TMR_LEN is %d, must be 4", f.PMTmrLen)
	}
	for _, l := range []struct {
		b acpi.Block
		n uint8
	}{{acpi.PM2Cnt, f.PM2CntLen}, {acpi.PMTmr, f.PMTmrLen}, {acpi.GPE0, f.GPE0BlkLen}, {acpi.GPE1, f.GPE1BlkLen}} {
		if l.n != 0 && f.Effective(l.b).Address == 0 {
			p.Fail(labelLenWithoutBlock, "%s is %d but %s and X_%s are zero", lenName(l.b), l.n, l.b, l.b)
		}
	}
	for _, g := range []struct {
		b acpi.Block
		n uint8
	}{{acpi.GPE0, f.GPE0BlkLen}, {acpi.GPE1, f.GPE1BlkLen}} {
		if g.n%2 != 0 {
			p.Fail(labelPMBlockLen, "%s_LEN is %d, must be a multiple of 2", g.b, g.n)
		}
		if g.n == 0 && f.Effective(g.b).Address != 0 {
			// No corpus machine gives a GPE block without its length:
			// a warning until one is read.
			p.Warn(labelPMBlockLen, "%s is at 0x%x but %s_LEN is 0, so the OS ignores the block and its events",
				g.b, f.Effective(g.b).Address, g.b)
		}
		// Access Size 0 means undefined (legacy) and is what QEMU's q35
		// and 18 corpus machines give; only a size wider than a byte
		// contradicts the byte-wide GPE registers.
		if x := f.Extended(g.b); x.Present && x.Address != 0 && x.AccessSize > 1 {
			p.Fail(labelGPEAccess, "X_%s access size %d (%s), address 0x%x", g.b, x.AccessSize, accessSizeName(x.AccessSize), x.Address)
		}
	}
	for _, b := range acpi.Blocks {
		addr, n := f.Legacy(b)
		x := f.Extended(b)
		if !x.Present || x.Address == 0 || addr == 0 {
			continue
		}
		if uint64(addr) != x.Address {
			p.Fail(labelXBlockMismatch, "%s is 0x%x, X_%s is 0x%x", b, addr, b, x.Address)
		}
		// The GPE blocks' X_ widths are notoriously unreliable and OSes
		// use the _LEN fields for them; compare the PM blocks only.
		if b != acpi.GPE0 && b != acpi.GPE1 && int(x.BitWidth) != int(n)*8 {
			p.Fail(labelXBlockWidth, "%s length %d bytes, X_%s bit width %d", b, n, b, x.BitWidth)
		}
	}
}

func checkFADTFields(p *tests.Pass, f *acpi.FADT) {
	if f.Header.Revision >= 2 && f.Reserved44 > 1 {
		// ACPI 1.0's INT_MODEL lived here; 0 or 1 are both allowed.
		p.Fail(labelReserved, "byte 44 (former INT_MODEL) is %d, must be 0 or 1", f.Reserved44)
	}
	if f.Reserved111 != 0 {
		p.Fail(labelReserved, "byte 111 is 0x%02x", f.Reserved111)
	}
	if r := f.Flags & acpi.FADTFlagsReservedMask; r != 0 {
		p.Fail(labelReserved, "reserved flag bits 0x%08x are set (Flags 0x%08x)", r, f.Flags)
	}
	maj, min := f.SpecVersion()
	switch pcc := (f.Flags >> acpi.FADTPersistentCachesShift) & 3; {
	case pcc != 0 && (maj < 6 || maj == 6 && min < 4):
		p.Fail(labelReserved, "flag bits 23:22 are 0x%x in an ACPI %d.%d FADT; PERSISTENT_CPU_CACHES was added in 6.4 and they are reserved before it", pcc, maj, min)
	case pcc == 3:
		p.Fail(labelReserved, "PERSISTENT_CPU_CACHES (flag bits 23:22) is 11b, a reserved value")
	}
	if f.Header.Revision == 5 && min == 0 && f.Has(acpi.FADTOffARMBootArch, 2) && f.ARMBootArch != 0 {
		p.Fail(labelReserved, "ARM_BOOT_ARCH is 0x%04x in an ACPI 5.0 FADT, where the field is reserved (it was added in 5.1)", f.ARMBootArch)
	}
	if f.Header.Revision >= 3 {
		if r := f.IAPCBootArch &^ 0x3F; r != 0 {
			p.Fail(labelReserved, "reserved IAPC_BOOT_ARCH bits 0x%04x are set", r)
		}
	}
	if f.Has(acpi.FADTOffARMBootArch, 2) && f.Header.Revision >= 5 {
		if r := f.ARMBootArch &^ 0x3; r != 0 {
			p.Fail(labelReserved, "reserved ARM_BOOT_ARCH bits 0x%04x are set", r)
		}
	}
	if f.PreferredPM > 8 {
		p.Fail(labelPMProfile, "Preferred_PM_Profile is %d", f.PreferredPM)
	}
	if f.Has(acpi.FADTOffSleepControl, 2*acpi.GASSize) && f.SleepControl.IsZero() != f.SleepStatus.IsZero() {
		p.Fail(labelSleepPair, "SLEEP_CONTROL_REG %s, SLEEP_STATUS_REG %s", f.SleepControl, f.SleepStatus)
	}
	if f.HWReduced() && f.Has(acpi.FADTOffSleepControl, 2*acpi.GASSize) {
		for _, r := range []struct {
			name string
			g    acpi.GAS
		}{{"SLEEP_CONTROL_REG", f.SleepControl}, {"SLEEP_STATUS_REG", f.SleepStatus}} {
			if !r.g.IsZero() && (r.g.BitWidth != 8 || r.g.BitOffset != 0) {
				// No corpus or QEMU table gets this wrong (microvm's
				// are 8 bits at offset 0): a warning until one is read.
				p.Warn(labelSleepLayout, "%s %s", r.name, r.g)
			}
		}
	}
	if f.HWReduced() && f.Header.Revision < 5 {
		p.Fail(labelHWReducedRev, "HW_REDUCED_ACPI set in a revision %d FADT", f.Header.Revision)
	}
	if !f.HWReduced() {
		if f.SCIInt == 0 {
			p.Fail(labelSCIInt, "SCI_INT is 0")
		}
		switch {
		case f.SMICmd != 0 && f.ACPIEnable == 0 && f.ACPIDisable == 0:
			// Both zero is how firmware says the hardware is always
			// in ACPI mode; OSes then never write SMI_CMD.
			p.Info(nil, "SMI_CMD is 0x%x but ACPI_ENABLE and ACPI_DISABLE are 0: the platform stays in ACPI mode", f.SMICmd)
		case f.SMICmd != 0 && f.ACPIEnable == f.ACPIDisable:
			p.Fail(labelSMICmd, "SMI_CMD 0x%x with ACPI_ENABLE = ACPI_DISABLE = 0x%02x", f.SMICmd, f.ACPIEnable)
		case f.SMICmd == 0 && f.ACPIEnable|f.ACPIDisable|f.S4BIOSReq|f.PStateCnt|f.CSTCnt != 0:
			// No corpus machine lacks SMI_CMD: a warning until one is read.
			p.Warn(labelSMICmdMissing, "SMI_CMD is 0 with ACPI_ENABLE 0x%02x, ACPI_DISABLE 0x%02x, S4BIOS_REQ 0x%02x, PSTATE_CNT 0x%02x, CST_CNT 0x%02x",
				f.ACPIEnable, f.ACPIDisable, f.S4BIOSReq, f.PStateCnt, f.CSTCnt)
		}
	}
}

// resetTypeBits are the 0xCF9 bits that select the reset type: SYS_RST
// (bit 1) and FULL_RST (bit 3); RST_CPU (bit 2) starts the reset.
const (
	cf9SysRst  = 1 << 1
	cf9RstCPU  = 1 << 2
	cf9FullRst = 1 << 3
)

func checkFADTReset(p *tests.Pass, f *acpi.FADT) {
	if !f.HasResetReg() {
		p.Info(nil, "FADT revision %d (%d bytes) has no RESET_REG: the OS resets by other means", f.Header.Revision, f.Length)
		return
	}
	r, v, sup := f.ResetReg, f.ResetValue, f.ResetSupported()
	desc := fmt.Sprintf("RESET_REG %s 0x%x, RESET_VALUE 0x%02x", r.Space, r.Address, v)
	switch {
	case sup && r.Address == 0:
		p.Fail(labelResetNoAddr, "RESET_REG_SUP is set; %s", desc)
		return
	case !sup && r.Address == 0:
		p.Info(nil, "no reset register (RESET_REG_SUP clear, RESET_REG empty)")
		return
	case !sup:
		p.Fail(labelResetUnflagged, "RESET_REG_SUP is clear; %s", desc)
	}
	switch r.Space {
	case acpi.SpaceSystemIO, acpi.SpaceSystemMemory, acpi.SpacePCIConfig:
	default:
		p.Fail(labelResetSpace, "%s", desc)
	}
	if r.BitWidth != 8 {
		p.Fail(labelResetWidth, "RESET_REG bit width is %d", r.BitWidth)
	}
	if r.BitOffset != 0 {
		p.Fail(labelResetOffset, "RESET_REG bit offset is %d", r.BitOffset)
	}
	if r.AccessSize > 1 {
		p.Fail(labelResetAccess, "RESET_REG access size is %d (%s)", r.AccessSize, accessSizeName(r.AccessSize))
	}
	if v == 0 {
		p.Fail(labelResetValueZero, "%s", desc)
	}
	if !sup || r.Space != acpi.SpaceSystemIO {
		return
	}
	switch {
	case r.Address == 0xCF9 && v&cf9RstCPU != 0 && v&(cf9SysRst|cf9FullRst) != 0:
		p.Fail(labelResetCF9, "%s asks for the reset type and the reset in one write", desc)
	case r.Address == 0xCF9:
		p.Passed("%s", desc)
	case r.Address == uint64(f.SMICmd) || r.Address == 0xB2:
		smi := "the FADT's SMI_CMD port"
		if r.Address != uint64(f.SMICmd) {
			smi = fmt.Sprintf("the conventional SMI command port (the FADT's SMI_CMD is 0x%x)", f.SMICmd)
		}
		p.Info(labelResetSMI, "%s: %s; writing 0x%02x raises an SMI and the firmware's handler does the reset, so it works only as long as that handler does", desc, smi, v)
	case r.Address == 0x64:
		kbc := "the FADT says an 8042 is present"
		if f.IAPCBootArch&acpi.BootArch8042 == 0 {
			kbc = "the FADT does not declare an 8042 (IAPC_BOOT_ARCH bit 1 clear)"
		}
		p.Info(labelResetKBC, "%s: the 8042 keyboard controller's pulse-reset command (0x%02x), a legacy path that depends on the controller being emulated; %s", desc, v, kbc)
	default:
		p.Info(nil, "%s: a chipset-specific reset port", desc)
	}
}

// lenName is the FADT's name for a block's length field.
func lenName(b acpi.Block) string {
	switch b {
	case acpi.PM2Cnt:
		return "PM2_CNT_LEN"
	case acpi.PMTmr:
		return "PM_TMR_LEN"
	}
	return b.String() + "_LEN"
}

func accessSizeName(a uint8) string {
	switch a {
	case 0:
		return "undefined"
	case 1:
		return "byte"
	case 2:
		return "word"
	case 3:
		return "dword"
	case 4:
		return "qword"
	}
	return "reserved"
}
