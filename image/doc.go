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
//
// Mounts and modules, and why not u-root's libinit and kmodule. fwcheck
// runs as the uinit of u-root's init, whose libinit.CreateRootfs has
// already mounted devtmpfs, proc, sysfs, securityfs and debugfs and tried
// efivarfs. Setup mounts only what /proc/self/mounts does not list yet, so
// under u-root's init nothing is mounted twice; the proc/sysfs/devtmpfs
// entries stand for a start by another init. efivarfs has to be mounted
// again after the modules are loaded: Debian's kernel builds it as a module
// (CONFIG_EFIVAR_FS=m), so libinit's attempt, made before any module is in,
// fails; pstore (where a hung suspend leaves its log) is not in libinit's
// list at all. Calling CreateRootfs a second time would also create its
// /tmp, /etc and cgroup tree, which fwcheck does not need. Modules are
// loaded with finit_module(2), falling back to init_module(2) only where
// the kernel lacks finit_module. u-root's kmodule.FileInit (v0.16) was
// weighed: for an uncompressed .ko, which is what the image ships, it reads
// the whole file and calls init_module(2), so the kernel's checks on a
// module's file (LoadPin, IMA appraisal) would not apply. Its dependency
// resolution (Probe, modules.dep) is not needed either: the image builder
// resolves the order once (ModuleOrderFile).
package image

// Version is fwcheck's version as the image builder recorded it (with
// -ldflags -X); empty outside the live image.
var Version string
