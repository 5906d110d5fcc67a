package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// Inputs of the reboot checks: when this boot's kernel started, and how
// the kernel is set to reset the machine.
var (
	// BootTime is the wall-clock time the running kernel started (the
	// btime line of /proc/stat: whole seconds, and only as right as the RTC
	// the kernel read at boot).
	BootTime = Declare(Def[time.Time]{
		Name: "boot-time", Doc: "when the running kernel started (/proc/stat btime)",
		Capture: []string{"proc/stat"},
		Load:    loadBootTime,
	})
	// RebootConfig is how the kernel will reset the machine.
	RebootConfig = Declare(Def[*Reboot]{
		Name: "reboot-config", Doc: "the kernel's reboot method (/sys/kernel/reboot, reboot= on /proc/cmdline)",
		Capture: []string{"sys/kernel/reboot", "proc/cmdline", "sys/firmware/efi/fw_platform_size"},
		Load:    loadReboot,
	})
)

// Reboot is the kernel's reset configuration.
type Reboot struct {
	// Type is /sys/kernel/reboot/type (acpi, kbd, bios, efi, pci, triple,
	// cf9...), empty when the kernel predates 5.11's interface.
	Type string
	// Mode is /sys/kernel/reboot/mode (cold, warm, ...), when present.
	Mode string
	// Param is the reboot= kernel parameter, when given.
	Param string
	// Selectable says the method can be changed at run time (Linux ≥ 5.11).
	Selectable bool
	// EFI says the kernel was booted by UEFI firmware
	// (/sys/firmware/efi), so EFI ResetSystem is a method it can use.
	EFI bool
}

func loadBootTime(src Source) (time.Time, error) {
	b, err := fs.ReadFile(src, "proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "btime "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n <= 0 {
				return time.Time{}, fmt.Errorf("/proc/stat: bad btime %q", v)
			}
			return time.Unix(n, 0), nil
		}
	}
	return time.Time{}, errors.New("/proc/stat has no btime line")
}

func loadReboot(src Source) (*Reboot, error) {
	r := &Reboot{}
	read := func(p string) (string, error) {
		b, err := fs.ReadFile(src, p)
		return strings.TrimSpace(string(b)), err
	}
	var err error
	if r.Type, err = read("sys/kernel/reboot/type"); err == nil {
		r.Selectable = true
	}
	r.Mode, _ = read("sys/kernel/reboot/mode")
	if _, err := fs.Stat(src, "sys/firmware/efi/fw_platform_size"); err == nil {
		r.EFI = true
	}
	cmdline, cerr := read("proc/cmdline")
	for _, w := range strings.Fields(cmdline) {
		if v, ok := strings.CutPrefix(w, "reboot="); ok {
			r.Param = v
		}
	}
	if !r.Selectable && cerr != nil {
		return nil, errors.Join(err, cerr)
	}
	return r, nil
}
