package acpi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Physical memory areas searched for the RSDP on legacy BIOS systems
// (ACPI 6.5 §5.2.5.1).
const (
	ebdaPointer   = 0x40E // 16-bit real-mode segment of the EBDA
	ebdaScanBytes = 1024
	biosAreaStart = 0xE0000
	biosAreaEnd   = 0x100000
	// maxTableLen bounds a table read from memory; a larger header length
	// is treated as corrupt rather than allocated.
	maxTableLen = 16 << 20
)

// SystabRSDP returns the RSDP address in the text of
// /sys/firmware/efi/systab: the "ACPI20=" line, else the "ACPI=" line.
func SystabRSDP(systab []byte) (uint64, bool) {
	var acpi10 uint64
	var have10 bool
	sc := bufio.NewScanner(bytes.NewReader(systab))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok {
			continue
		}
		a, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(v), "0x"), 16, 64)
		if err != nil || a == 0 {
			continue
		}
		switch k {
		case "ACPI20":
			return a, true
		case "ACPI":
			acpi10, have10 = a, true
		}
	}
	return acpi10, have10
}

// FindRSDP locates the RSDP: through the EFI system table text when systab
// names it, else by the legacy scan of the first KiB of the EBDA and of
// 0xE0000-0xFFFFF for a 16-byte aligned "RSD PTR " whose 20-byte checksum
// holds.
func FindRSDP(mem io.ReaderAt, systab []byte) (uint64, error) {
	if a, ok := SystabRSDP(systab); ok {
		return a, nil
	}
	var areas [][2]uint64
	var seg [2]byte
	if _, err := mem.ReadAt(seg[:], ebdaPointer); err == nil {
		if ebda := uint64(binary.LittleEndian.Uint16(seg[:])) << 4; ebda >= 0x400 && ebda < biosAreaStart {
			areas = append(areas, [2]uint64{ebda, ebda + ebdaScanBytes})
		}
	}
	areas = append(areas, [2]uint64{biosAreaStart, biosAreaEnd})
	for _, a := range areas {
		buf := make([]byte, a[1]-a[0])
		n, _ := mem.ReadAt(buf, int64(a[0]))
		buf = buf[:n]
		for off := 0; off+RSDPv1Size <= len(buf); off += 16 {
			if string(buf[off:off+8]) == "RSD PTR " && Sum(buf[off:off+RSDPv1Size]) == 0 {
				return a[0] + uint64(off), nil
			}
		}
	}
	return 0, errors.New("rsdp: not named by the EFI system table and not found in the BIOS areas")
}

// ReadRoots reads the RSDP and the XSDT and RSDT it points to from physical
// memory (mem is /dev/mem or an image of it). These are the tables sysfs
// does not expose; WriteFiles records them for a snapshot. A root table
// that cannot be read is left out and noted in the warnings.
func ReadRoots(mem io.ReaderAt, systab []byte) (*Tables, error) {
	addr, err := FindRSDP(mem, systab)
	if err != nil {
		return nil, err
	}
	ts := &Tables{Source: "mem"}
	raw, err := readAt(mem, addr, RSDPv2Size)
	if err != nil || len(raw) < RSDPv1Size || string(raw[:8]) != "RSD PTR " {
		// A v1 RSDP at the very end of a mapping may allow only 20 bytes.
		if raw, err = readAt(mem, addr, RSDPv1Size); err != nil {
			return nil, fmt.Errorf("rsdp at 0x%x: %w", addr, err)
		}
	}
	r, err := ParseRSDP(raw)
	if err != nil {
		return nil, fmt.Errorf("rsdp at 0x%x: %w", addr, err)
	}
	if r.Revision < 2 {
		raw = raw[:RSDPv1Size]
	} else if r.Length > RSDPv2Size && r.Length < 4096 {
		if full, err := readAt(mem, addr, int(r.Length)); err == nil {
			raw = full
		}
	}
	ts.Add(&Table{Signature: SigRSDP, Address: addr, Raw: raw, Origin: "mem"})
	if r.Revision >= 2 && r.XSDTAddress != 0 {
		if t, err := readTable(mem, r.XSDTAddress); err != nil {
			ts.warnf("XSDT at 0x%x: %v", r.XSDTAddress, err)
		} else {
			ts.Add(t)
		}
	}
	if r.RSDTAddress != 0 {
		if t, err := readTable(mem, uint64(r.RSDTAddress)); err != nil {
			ts.warnf("RSDT at 0x%x: %v", r.RSDTAddress, err)
		} else {
			ts.Add(t)
		}
	}
	ts.Probes = ProbeEntries(mem, ts)
	return ts, nil
}

// ReadMem reads the whole table set from physical memory: the RSDP (found
// as FindRSDP says), the XSDT (or, without one, the RSDT), every table they
// list, and the FACS and DSDT the FADT points to. Tables that cannot be
// read are left out and noted in the warnings; nothing is made up.
func ReadMem(mem io.ReaderAt, systab []byte) (*Tables, error) {
	ts, err := ReadRoots(mem, systab)
	if err != nil {
		return nil, err
	}
	var entries []uint64
	if xt, err := ts.XSDT(); err == nil {
		entries = xt.Entries
	} else if rt, err := ts.RSDT(); err == nil {
		entries = rt.Entries
	} else {
		return ts, nil
	}
	seen := map[uint64]bool{}
	for _, a := range entries {
		if a == 0 || seen[a] {
			continue
		}
		seen[a] = true
		t, err := readTable(mem, a)
		if err != nil {
			ts.warnf("table at 0x%x: %v", a, err)
			continue
		}
		ts.Add(t)
		if t.Signature != SigFADT {
			continue
		}
		f, err := ParseFADT(t)
		if err != nil {
			continue
		}
		if fa := f.FACSAddress(); fa != 0 && !seen[fa] {
			seen[fa] = true
			if ft, err := readFACS(mem, fa); err != nil {
				ts.warnf("FACS at 0x%x: %v", fa, err)
			} else {
				ts.Add(ft)
			}
		}
		if da := f.DSDTAddress(); da != 0 && !seen[da] {
			seen[da] = true
			if dt, err := readTable(mem, da); err != nil {
				ts.warnf("DSDT at 0x%x: %v", da, err)
			} else {
				ts.Add(dt)
			}
		}
	}
	return ts, nil
}

func readAt(mem io.ReaderAt, addr uint64, n int) ([]byte, error) {
	if addr > 1<<62 {
		return nil, fmt.Errorf("address 0x%x out of range", addr)
	}
	b := make([]byte, n)
	if _, err := mem.ReadAt(b, int64(addr)); err != nil {
		return nil, err
	}
	return b, nil
}

// readTable reads the SDT at addr: its header, then as many bytes as the
// header's length says.
func readTable(mem io.ReaderAt, addr uint64) (*Table, error) {
	h, err := readAt(mem, addr, HeaderSize)
	if err != nil {
		return nil, err
	}
	if !isSig(h[:4]) {
		return nil, fmt.Errorf("no table signature (%q)", h[:4])
	}
	n := binary.LittleEndian.Uint32(h[4:8])
	if n < HeaderSize || n > maxTableLen {
		return nil, fmt.Errorf("%s: implausible length %d", h[:4], n)
	}
	raw, err := readAt(mem, addr, int(n))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h[:4], err)
	}
	return &Table{Signature: string(raw[:4]), Address: addr, Raw: raw, Origin: "mem"}, nil
}

func readFACS(mem io.ReaderAt, addr uint64) (*Table, error) {
	h, err := readAt(mem, addr, 8)
	if err != nil {
		return nil, err
	}
	if string(h[:4]) != SigFACS {
		return nil, fmt.Errorf("no FACS signature (%q)", h[:4])
	}
	n := binary.LittleEndian.Uint32(h[4:8])
	if n < 8 || n > 64<<10 {
		return nil, fmt.Errorf("FACS: implausible length %d", n)
	}
	raw, err := readAt(mem, addr, int(n))
	if err != nil {
		return nil, err
	}
	return &Table{Signature: SigFACS, Address: addr, Raw: raw, Origin: "mem"}, nil
}
