package irq

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFirecracker(t *testing.T) {
	// /proc/interrupts of a two-vCPU Firecracker guest (Linux 6.18): no
	// legacy IRQs, an I/O APIC and MSI-X lines.
	b, err := os.ReadFile("testdata/firecracker-2cpu.txt")
	require.NoError(t, err)
	tb, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, 2, tb.CPUs)
	l := tb.Get(26)
	require.NotNil(t, l)
	assert.Equal(t, "IO-APIC", l.Chip)
	assert.Equal(t, "4", l.HWIRQ)
	assert.Equal(t, "edge", l.Flow)
	assert.Equal(t, "ttyS0", l.Devices)
	lv, ok := l.Level()
	assert.True(t, ok)
	assert.False(t, lv)
	assert.Equal(t, "PCI-MSIX-0000:00:01.0", tb.Get(28).Chip)
	assert.Nil(t, tb.Get(0))
}

func TestParseLayouts(t *testing.T) {
	tb, err := Parse([]byte(`           CPU0       CPU1
  0:         38          0   IO-APIC   2-edge      timer
  9:          0          0   IO-APIC   9-fasteoi   acpi
 11:         10          2   IO-APIC  11-fasteoi   uhci_hcd:usb1, virtio0
NMI:          0          0   Non-maskable interrupts
`))
	require.NoError(t, err)
	require.Len(t, tb.Lines, 3)
	assert.Equal(t, Line{IRQ: 0, Counts: []uint64{38, 0}, Chip: "IO-APIC", HWIRQ: "2", Flow: "edge", Devices: "timer"}, tb.Lines[0])
	lv, _ := tb.Get(9).Level()
	assert.True(t, lv)
	assert.Equal(t, "uhci_hcd:usb1, virtio0", tb.Get(11).Devices)
	assert.Equal(t, uint64(12), tb.Get(11).Total())

	// Before Linux 4.4 the flow was part of the chip's name.
	tb, err = Parse([]byte("           CPU0\n  8:          1   IO-APIC-edge      rtc0\n  3:    0   XT-PIC  cascade\n"))
	require.NoError(t, err)
	assert.Equal(t, Line{IRQ: 8, Counts: []uint64{1}, Chip: "IO-APIC", Flow: "edge", Devices: "rtc0"}, tb.Lines[0])
	_, ok := tb.Lines[1].Level()
	assert.False(t, ok, "the flow is not shown")

	for _, bad := range []string{"", "  0: 1 2\n", "CPU0\n 0: x IO-APIC\n", "CPU0 CPU1\n 5: 1\n"} {
		_, err := Parse([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
}

func FuzzParse(f *testing.F) {
	b, _ := os.ReadFile("testdata/firecracker-2cpu.txt")
	f.Add(b)
	f.Add([]byte("CPU0\n 0: 1 IO-APIC 2-edge timer\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tb, err := Parse(b)
		if err == nil {
			for _, l := range tb.Lines {
				assert.Len(t, l.Counts, tb.CPUs)
			}
		}
	})
}
