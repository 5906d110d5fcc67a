package input

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lines of /sys/firmware/acpi/interrupts as Linux 6.x prints them
// (count, EN and STS flags, state, mask).
func TestParseACPIEventLine(t *testing.T) {
	for _, c := range []struct {
		line  string
		count int64
		state string
	}{
		{"       0         disabled     unmasked\n", 0, "disabled"},
		{"       3  EN     enabled      unmasked\n", 3, "enabled"},
		{"       1     STS wake_enabled unmasked\n", 1, "wake_enabled"},
		{"       0         invalid      unmasked\n", 0, "invalid"},
		{"      12\n", 12, ""},
		{"", 0, ""},
		{"-5 enabled", 0, "enabled"},
	} {
		n, st := ParseACPIEventLine(c.line)
		assert.Equal(t, c.count, n, "%q", c.line)
		assert.Equal(t, c.state, st, "%q", c.line)
	}
}

func FuzzParseACPIEventLine(f *testing.F) {
	f.Add("       3  EN STS enabled      unmasked\n")
	f.Add("99999999999999999999999 invalid")
	f.Fuzz(func(t *testing.T, line string) {
		n, st := ParseACPIEventLine(line)
		if n < 0 {
			t.Fatalf("negative count %d", n)
		}
		switch st {
		case "", "enabled", "disabled", "wake_enabled", "invalid":
		default:
			t.Fatalf("state %q", st)
		}
	})
}

// TestRTCWakeEvent: rtc_cmos with a handler for the ACPI RTC event counts
// its alarm wakes; without the handler, without ACPI or with another
// driver nothing says so.
func TestRTCWakeEvent(t *testing.T) {
	for _, c := range []struct {
		name, ff string // ff "" : no ACPI
		counts   bool
	}{
		{"rtc_cmos 00:05\n", "       0         disabled     unmasked\n", true},
		{"rtc_cmos 00:05\n", "       0         invalid      unmasked\n", false},
		{"rtc_cmos rtc_cmos\n", "", false},
		{"rtc-efi rtc-efi.0\n", "       0         disabled     unmasked\n", false},
	} {
		root := t.TempDir()
		write := func(p, v string) {
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte(v), 0o644))
		}
		write("sys/class/rtc/rtc0/name", c.name)
		if c.ff != "" {
			write(acpiRTCEvent, c.ff)
		}
		w, err := loadRTCWake(Live(root))
		require.NoError(t, err)
		assert.Equal(t, c.counts, w.CountsAlarmWakes(), "%q %q: %+v", c.name, c.ff, w)
	}
	_, err := loadRTCWake(Live(t.TempDir()))
	var u *Unavailable
	assert.ErrorAs(t, err, &u, "no RTC")
}
