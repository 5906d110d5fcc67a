// Package efi reads UEFI firmware state as Linux exposes it: variables
// through efivarfs (/sys/firmware/efi/efivars), load options (Boot####) and
// their device paths decoded into the UEFI specification's text forms,
// EFI_SIGNATURE_LIST databases (PK, KEK, db, dbx) with their X.509
// certificates and hashes, and the ESRT (/sys/firmware/efi/esrt).
//
// Everything reads from an fs.FS rooted at the machine's "/" (or a
// snapshot of it), never from os paths, so the same code serves the live
// machine and offline captures. Inputs are firmware data and treated as
// hostile: parsers are bounded by their input's length, return errors or
// problems as values, and never panic; the device-path and signature-list
// parsers are fuzzed.
//
// What was considered: u-root's pkg/efivarfs opens variables by os path and
// probes the file system's magic number with statfs, so it cannot read a
// snapshot directory or archive; only its attribute constants are reused
// here (Attributes mirrors efivarfs.VariableAttributes). u-root's
// pkg/uefivars/boot decodes device paths, but it knows a handful of node
// types, writes texts that differ from the specification's (PCI(func,dev)
// instead of Pci(Device,Function), ACPI(hid,uid) instead of PciRoot(UID)),
// and pulls in block-device and mount code that fwcheck does not need, so
// the decoder here is fwcheck's own. go-eventlog's signature-list parser is
// unexported and drops the list structure (owners, per-list sizes) the
// checks report on.
//
// ParseVarStore and FindVarStore read the other side of the variable
// services: EDK II's non-volatile variable store as it sits in flash
// (OVMF's VARS files, the variable region of a PC's SPI flash image),
// with its deleted records, which the runtime services never show but
// which take space until the firmware reclaims the store. What was
// considered: no well-kept Go library parses that store. u-root has none
// (its pkg/uefivars reads the kernel's old sysfs variables);
// github.com/go-filesystems/uefi, new and imported by nothing, handles
// only the non-authenticated record format (OVMF's stores are
// authenticated) and lists live variables alone, so it cannot account
// for the space deleted records hold. The tools that do (virt-firmware's
// virt-fw-vars, python-uefivars, CHIPSEC) are Python; this parser follows
// the layout of EDK II's VariableFormat.h, checked against OVMF's files.
package efi
