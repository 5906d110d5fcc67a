// Package image owns fwcheck's live image at boot time: the kernel command
// line options (fwcheck.run, fwcheck.s3, fwcheck.after), the setup fwcheck
// does as the u-root uinit (mounting sysfs, proc, devtmpfs, efivarfs,
// debugfs and securityfs, loading the kernel modules shipped in the image),
// publishing the results (console report, the JSON document between
// BEGIN/END markers on the serial console, the FWCHECK results partition)
// and the after-action. On the USB stick (built by mkimage.BuildUSB) it
// also reads the stick's fwcheck.cfg (LoadConfig) and writes each run's
// folder only to the FWCHECK partition of the disk the machine booted from
// (PickResults), which the stick's GRUB names with fwcheck.esp.
//
// It also holds the host-side half of the marker protocol (ExtractResults),
// used by the QEMU harness in image/qemu. Building the initramfs lives in
// image/mkimage so that the builder's dependencies stay out of the image.
// The checks themselves and the results document belong to other packages.
package image

// Version is fwcheck's version as the image builder recorded it (with
// -ldflags -X); empty outside the live image.
var Version string
