package acpi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ProbeSize is how many bytes ProbeEntries reads at each entry's address:
// a table's signature and length.
const ProbeSize = 8

// EntryProbe is what lay at the address a root table (XSDT or RSDT) entry
// gives: the first ProbeSize bytes there, or nil when they could not be
// read (a kernel that restricts /dev/mem, an address beyond memory).
type EntryProbe struct {
	Root    string // SigXSDT or SigRSDT
	Index   int    // the entry's index in its root table
	Address uint64
	Head    []byte
}

// Bad says why the bytes at the entry are not a description table the
// entry may list ("" when they are one, or were not read): no valid
// signature, a length shorter than a table header or beyond any table,
// or a structure that is not a description table (the FACS, which the
// FADT points to, and the RSDP).
func (p EntryProbe) Bad() string {
	if len(p.Head) < ProbeSize {
		return ""
	}
	sig := p.Head[:4]
	n := binary.LittleEndian.Uint32(p.Head[4:8])
	switch {
	case string(p.Head[:8]) == "RSD PTR ":
		return "the RSDP, which is no description table"
	case !isSig(sig) || sig[0] == ' ':
		return fmt.Sprintf("no table signature (bytes % x)", p.Head)
	case string(sig) == SigFACS:
		return "the FACS, which the FADT points to and no root table may list"
	case n < HeaderSize || n > maxTableLen:
		return fmt.Sprintf("%q with an impossible length %d", sig, n)
	}
	return ""
}

// ProbeEntries reads the first bytes at every entry of the XSDT and RSDT
// in ts (at most MaxTables entries each; zero entries are skipped, the
// acpi-tables check reports them on their own).
func ProbeEntries(mem io.ReaderAt, ts *Tables) []EntryProbe {
	var out []EntryProbe
	for _, sig := range []string{SigXSDT, SigRSDT} {
		t := ts.First(sig)
		if t == nil {
			continue
		}
		var rt *RootTable
		var err error
		if sig == SigXSDT {
			rt, err = ParseXSDT(t)
		} else {
			rt, err = ParseRSDT(t)
		}
		if err != nil {
			continue
		}
		for i, a := range rt.Entries {
			if i >= MaxTables {
				break
			}
			if a == 0 {
				continue
			}
			p := EntryProbe{Root: sig, Index: i, Address: a}
			if b, err := readAt(mem, a, ProbeSize); err == nil {
				p.Head = b
			}
			out = append(out, p)
		}
	}
	return out
}

// FormatProbes writes probes as text, one line each: root table, entry
// index, address and the bytes read there in hex ("-" when unread), the
// form a snapshot records (fwcheck/acpi/ENTRIES).
func FormatProbes(ps []EntryProbe) []byte {
	var b bytes.Buffer
	for _, p := range ps {
		h := "-"
		if p.Head != nil {
			h = hex.EncodeToString(p.Head)
		}
		fmt.Fprintf(&b, "%s %d 0x%x %s\n", p.Root, p.Index, p.Address, h)
	}
	return b.Bytes()
}

// ParseProbes reads what FormatProbes wrote. A malformed line is an
// error: a recorded file is fwcheck's own, so a bad one is a damaged
// snapshot.
func ParseProbes(b []byte) ([]EntryProbe, error) {
	var out []EntryProbe
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		if len(out) >= 2*MaxTables {
			return nil, fmt.Errorf("line %d: more than %d entries", n, 2*MaxTables)
		}
		f := strings.Fields(l)
		if len(f) != 4 || (f[0] != SigXSDT && f[0] != SigRSDT) {
			return nil, fmt.Errorf("line %d: want ROOT INDEX ADDRESS BYTES, got %q", n, l)
		}
		i, err := strconv.Atoi(f[1])
		if err != nil || i < 0 || i >= MaxTables {
			return nil, fmt.Errorf("line %d: bad index %q", n, f[1])
		}
		a, err := strconv.ParseUint(strings.TrimPrefix(f[2], "0x"), 16, 64)
		if err != nil || !strings.HasPrefix(f[2], "0x") {
			return nil, fmt.Errorf("line %d: bad address %q", n, f[2])
		}
		p := EntryProbe{Root: f[0], Index: i, Address: a}
		if f[3] != "-" {
			if p.Head, err = hex.DecodeString(f[3]); err != nil || len(p.Head) != ProbeSize {
				return nil, fmt.Errorf("line %d: bad bytes %q", n, f[3])
			}
		}
		out = append(out, p)
	}
	return out, sc.Err()
}
