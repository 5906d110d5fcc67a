package image

import (
	"fmt"
	"strings"
	"time"

	"github.com/fwcheck/fwcheck/report/lines"
)

// LAVAJob describes a LAVA job that boots the live image and reads its
// console lines (report/lines) with a monitors test action: every check and
// every suspend/resume or reboot cycle becomes a LAVA test case, with its
// measurement where there is one. `fwcheck-image lava` writes it.
type LAVAJob struct {
	// DeviceType is LAVA's device type: "qemu" (the kernel and initramfs
	// booted by QEMU directly) or "x86" (a lab machine netbooted through
	// TFTP by its iPXE or GRUB).
	DeviceType string
	// Boot is the x86 boot method, "ipxe" (the default) or "grub".
	Boot string
	// Kernel and Initramfs are the URLs the dispatcher downloads
	// (http://, https:// or file://).
	Kernel, Initramfs string
	// Options are the live image's fwcheck.* options ("fwcheck.s3=3").
	Options string
	// Name is the job's name; empty means one made from the options.
	Name string
	// Timeout is the job-level timeout; zero means one reckoned from the
	// run (LAVATimeout).
	Timeout time.Duration
}

// LAVATimeout is the job-level timeout of a run with these options: 20
// minutes for the checks, booting and downloading under an emulator, plus
// two per S3 cycle and five per reboot cycle. A hung machine ends the job
// there (LAVA marks it incomplete), not at the lab's default hours later.
func LAVATimeout(cfg Config) time.Duration {
	return 20*time.Minute + time.Duration(cfg.S3)*2*time.Minute + time.Duration(cfg.Reboot)*5*time.Minute
}

// cmdline returns the kernel command line options the job passes, and
// the live image configuration they make.
func (j LAVAJob) cmdline() (string, Config, error) {
	opts := strings.Fields(j.Options)
	cfg, err := ParseCmdline(j.Options)
	if err != nil {
		return "", cfg, fmt.Errorf("options: %w", err)
	}
	has := func(prefix string) bool {
		for _, o := range opts {
			if strings.HasPrefix(o, prefix) {
				return true
			}
		}
		return false
	}
	if !has("fwcheck.after=") {
		// The job ends with the run; a shell would wait for nobody.
		opts = append(opts, "fwcheck.after=poweroff")
	}
	if j.DeviceType == "qemu" && cfg.S3 > 0 && !has("fwcheck.s3.journal=") {
		// LAVA's qemu device has no FWCHECK disk for the journal: the
		// console lines are the record.
		opts = append(opts, "fwcheck.s3.journal=none")
	}
	for _, o := range opts {
		if strings.ContainsAny(o, `"'\`) {
			return "", cfg, fmt.Errorf("option %q: quotes and backslashes cannot go through LAVA's command lines", o)
		}
	}
	// quiet: the kernel prints only warnings and worse on the console,
	// so its messages seldom cut a result line (which is recognised when
	// one does: docs/console-lines.md).
	return strings.Join(append([]string{"quiet", KernelArgs}, opts...), " "), cfg, nil
}

// yq quotes s as a YAML single-quoted scalar.
func yq(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func minutes(d time.Duration) int { return int((d + time.Minute - 1) / time.Minute) }

// YAML returns the job definition.
func (j LAVAJob) YAML() ([]byte, error) {
	switch {
	case j.Kernel == "" || j.Initramfs == "":
		return nil, fmt.Errorf("the kernel and initramfs URLs are required")
	case strings.ContainsAny(j.Kernel+j.Initramfs, " \"'\n"):
		return nil, fmt.Errorf("URLs with spaces or quotes cannot go into a QEMU or iPXE command")
	}
	args, cfg, err := j.cmdline()
	if err != nil {
		return nil, err
	}
	timeout := j.Timeout
	if timeout <= 0 {
		timeout = LAVATimeout(cfg)
	}
	name := j.Name
	if name == "" {
		name = "fwcheck " + describe(cfg)
	}
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w("# A LAVA job written by fwcheck-image lava: it boots fwcheck's live image and")
	w("# reads its console lines (docs/console-lines.md) as test cases.")
	w("device_type: %s", j.DeviceType)
	w("job_name: %s", yq(name))
	w("priority: medium")
	w("visibility: public")
	w("timeouts:")
	w("  job:")
	w("    minutes: %d", minutes(timeout))
	w("  connection:")
	w("    minutes: 2")
	switch j.DeviceType {
	case "qemu":
		w("context:")
		w("  arch: amd64")
		w("  extra_options:")
		// QEMU's pc machine offers S3 only when asked.
		w("  - '-global PIIX4_PM.disable_s3=0'")
		w("actions:")
		w("- deploy:")
		w("    timeout:")
		w("      minutes: 5")
		w("    to: tmpfs")
		w("    images:")
		w("      kernel:")
		w("        image_arg: %s", yq(`-kernel {kernel} -append "console=ttyS0,115200 `+args+`"`))
		w("        url: %s", yq(j.Kernel))
		w("      initrd:")
		w("        image_arg: '-initrd {initrd}'")
		w("        url: %s", yq(j.Initramfs))
		w("- boot:")
		w("    timeout:")
		w("      minutes: 5")
		w("    method: qemu")
		w("    media: tmpfs")
	case "x86":
		boot := j.Boot
		if boot == "" {
			boot = "ipxe"
		}
		if boot != "ipxe" && boot != "grub" {
			return nil, fmt.Errorf("boot method %q: want ipxe or grub", boot)
		}
		w("context:")
		w("  extra_kernel_args: %s", yq(args))
		w("actions:")
		w("- deploy:")
		w("    timeout:")
		w("      minutes: 10")
		w("    to: tftp")
		w("    kernel:")
		w("      url: %s", yq(j.Kernel)) // no type: iPXE and GRUB load a bzImage as it is
		w("    ramdisk:")
		w("      url: %s", yq(j.Initramfs))
		w("- boot:")
		w("    timeout:")
		w("      minutes: 10")
		w("    method: %s", boot)
		w("    commands: ramdisk")
	default:
		return nil, fmt.Errorf("device type %q: want qemu or x86", j.DeviceType)
	}
	w("- test:")
	w("    timeout:")
	w("      minutes: %d", max(minutes(timeout)-10, 5)) // the job's, less the deploy and boot
	w("    monitors:")
	w("    - name: fwcheck")
	w("      start: %s", yq(lines.MonitorStart))
	w("      end: %s", yq(lines.MonitorEnd))
	w("      pattern: %s", yq(lines.MonitorPattern))
	return []byte(b.String()), nil
}

// describe names a run for a job name: "all safe checks, 3 S3 cycles".
func describe(cfg Config) string {
	s := "all safe checks"
	if cfg.Run != nil {
		s = "checks " + strings.Join(cfg.Run, ",")
	}
	if cfg.S3 > 0 {
		s += fmt.Sprintf(", %d S3 cycles", cfg.S3)
	}
	if cfg.Reboot > 0 {
		s += fmt.Sprintf(", %d reboots", cfg.Reboot)
	}
	return s
}
