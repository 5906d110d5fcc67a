package apicedge

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func override(src byte, gsi uint32, flags uint16) []byte {
	b := []byte{2, 10, 0, src, 0, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[4:], gsi)
	binary.LittleEndian.PutUint16(b[8:], flags)
	return b
}

// qemuPC is QEMU's pc MADT: overrides for IRQ 0 (to GSI 2, conforming) and
// IRQs 5, 9, 10, 11 (level, active high: flags 0x000d).
func qemuPC(extra ...[]byte) []byte {
	e := [][]byte{checktest.LAPIC(0, 0, 1), checktest.IOAPIC(0, 0xFEC00000), override(0, 2, 0),
		override(5, 5, 0xd), override(9, 9, 0xd), override(10, 10, 0xd), override(11, 11, 0xd)}
	return checktest.MADT(1, append(e, extra...)...)
}

func fadt() []byte {
	return checktest.FADT(func(b []byte) { binary.LittleEndian.PutUint16(b[46:], 9) })
}

// pcInterrupts is testdata/seabios-pc's /proc/interrupts (a pc/SeaBIOS
// guest, Debian's Linux 6.1) with IRQ 11 added as a PCI device's
// level-triggered line, as a guest with a virtio NIC on the PIIX link has.
const pcInterrupts = `           CPU0       CPU1
  0:         39          0   IO-APIC   2-edge      timer
  1:          0          9   IO-APIC   1-edge      i8042
  4:          0        312   IO-APIC   4-edge      ttyS0
  8:          0          0   IO-APIC   8-edge      rtc0
  9:          0          0   IO-APIC   9-fasteoi   acpi
 11:          0         27   IO-APIC  11-fasteoi   virtio0
 12:        125          0   IO-APIC  12-edge      i8042
 14:          0          0   IO-APIC  14-edge      ata_piix
 15:          0         61   IO-APIC  15-edge      ata_piix
NMI:          0          0   Non-maskable interrupts
`

func runOn(t *testing.T, interrupts string, madt []byte) tests.Result {
	files := map[string][]byte{"proc/interrupts": []byte(interrupts)}
	if madt != nil {
		files["sys/firmware/acpi/tables/APIC"] = madt
		files["sys/firmware/acpi/tables/FACP"] = fadt()
	}
	return checktest.Run(t, Check, checktest.FilesMachine(t, files))
}

// TestQEMUCaptures runs the check on what two QEMU guests showed
// (TestBootPlatformChecks's snapshots): /proc/interrupts, the MADT and the
// FADT of pc/SeaBIOS and q35/OVMF.
func TestQEMUCaptures(t *testing.T) {
	for name, want := range map[string]string{
		"seabios-pc": "8 legacy IRQs on the I/O APIC as the MADT's 5 overrides give them: edge 0, 1, 4, 8, 12, 14, 15; level 9",
		"ovmf-q35":   "6 legacy IRQs on the I/O APIC as the MADT's 5 overrides give them: edge 0, 1, 4, 8, 12; level 9",
	} {
		r := checktest.Run(t, Check, checktest.SnapshotMachine(t, "testdata/"+name))
		assert.Equal(t, tests.StatusPassed, r.Status, render(r))
		assert.Equal(t, want, r.Findings[0].Message, name)
	}
}

func render(r tests.Result) string { return tests.Render([]tests.Result{r}) }

func TestQEMUPC(t *testing.T) {
	r := runOn(t, pcInterrupts, qemuPC())
	assert.Equal(t, tests.StatusPassed, r.Status, tests.Render([]tests.Result{r}))
	assert.Contains(t, r.Findings[0].Message, "9 legacy IRQs on the I/O APIC as the MADT's 5 overrides give them: edge 0, 1, 4, 8, 12, 14, 15; level 9, 11")
}

func TestDefects(t *testing.T) {
	noOverride11 := checktest.MADT(1, checktest.LAPIC(0, 0, 1), checktest.IOAPIC(0, 0xFEC00000), override(0, 2, 0), override(9, 9, 0xd))
	r := runOn(t, pcInterrupts, noOverride11)
	assert.Equal(t, []string{"LegacyIRQLevelTriggered"}, checktest.FailLabels(r), tests.Render([]tests.Result{r}))
	assert.Contains(t, r.Findings[0].Message, "IRQ 11 (virtio0) is level-triggered (fasteoi)")

	// The SCI without an override: level by default, so edge is wrong.
	edgeSCI := `           CPU0
  9:          0   IO-APIC   9-edge   acpi
`
	r = runOn(t, edgeSCI, checktest.MADT(1, checktest.LAPIC(0, 0, 1), checktest.IOAPIC(0, 0xFEC00000)))
	assert.Equal(t, []string{"LegacyIRQEdgeTriggered"}, checktest.FailLabels(r), tests.Render([]tests.Result{r}))

	// An override making IRQ 4 level, yet the line runs edge.
	r = runOn(t, pcInterrupts, qemuPC(override(4, 4, 0xf)))
	assert.Equal(t, []string{"LegacyIRQEdgeTriggered"}, checktest.FailLabels(r), tests.Render([]tests.Result{r}))

	r = runOn(t, pcInterrupts, qemuPC(override(8, 8, 0x8)))
	assert.Equal(t, []string{"MADTOverrideReservedTrigger"}, checktest.FailLabels(r), tests.Render([]tests.Result{r}))
}

func TestNotApplicableAndUnchecked(t *testing.T) {
	// Firecracker: no legacy IRQ on the I/O APIC.
	r := runOn(t, "           CPU0\n 26:   9   IO-APIC   4-edge   ttyS0\n", nil)
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
	// The 8259 PIC.
	r = runOn(t, "           CPU0\n  0:   9   XT-PIC   timer\n", nil)
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
	// Without the MADT: incomplete, not passed.
	r = runOn(t, pcInterrupts, nil)
	assert.Equal(t, tests.StatusIncomplete, r.Status, tests.Render([]tests.Result{r}))
	// Unparseable: skipped with the parse error.
	r = runOn(t, "junk", nil)
	assert.Equal(t, tests.StatusSkipped, r.Status)
}
