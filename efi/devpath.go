package efi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// Device path node types (UEFI 2.10 §10.3.1).
const (
	HardwareDevicePath  = 0x01
	ACPIDevicePath      = 0x02
	MessagingDevicePath = 0x03
	MediaDevicePath     = 0x04
	BBSDevicePath       = 0x05
	EndDevicePath       = 0x7f

	EndEntire   = 0xff
	EndInstance = 0x01
)

// Node is one device path node.
type Node struct {
	Type, SubType uint8
	// Data is the node's bytes after its 4-byte header.
	Data []byte
}

// DevicePath is a device path: its nodes, the end nodes included (an
// end-of-instance node separates instances; an end-of-entire node ends it).
type DevicePath []Node

// ErrNoEnd says the device path ran out of bytes before its end node.
var ErrNoEnd = errors.New("no end-of-device-path node")

// maxNodes bounds the nodes of one path (every node is at least 4 bytes, so
// a 64 KiB FilePathListLength allows 16384; real paths have under 20).
const maxNodes = 1 << 14

// ParseDevicePath decodes one device path from b, up to and including its
// end-of-entire node; what follows it is returned as rest. A node shorter
// than its header, a node running past b, and a path without an end node
// are errors; the nodes read before the problem are returned with it.
func ParseDevicePath(b []byte) (dp DevicePath, rest []byte, err error) {
	for len(dp) < maxNodes {
		if len(b) == 0 {
			return dp, nil, ErrNoEnd
		}
		if len(b) < 4 {
			return dp, nil, fmt.Errorf("node %d: %d bytes left, shorter than a node header: %w", len(dp), len(b), ErrNoEnd)
		}
		n := Node{Type: b[0], SubType: b[1]}
		l := int(binary.LittleEndian.Uint16(b[2:]))
		if l < 4 {
			return dp, nil, fmt.Errorf("node %d (type 0x%02x/0x%02x): length %d is less than the 4-byte header", len(dp), n.Type, n.SubType, l)
		}
		if l > len(b) {
			return dp, nil, fmt.Errorf("node %d (type 0x%02x/0x%02x): length %d runs past the %d bytes left", len(dp), n.Type, n.SubType, l, len(b))
		}
		n.Data = b[4:l]
		dp = append(dp, n)
		b = b[l:]
		if n.Type == EndDevicePath && n.SubType == EndEntire {
			return dp, b, nil
		}
	}
	return dp, nil, fmt.Errorf("more than %d nodes", maxNodes)
}

// String writes the path in the UEFI specification's text form (§10.6.1.6):
// nodes separated by "/", instances by ",", the end node omitted.
func (dp DevicePath) String() string {
	var sb strings.Builder
	sep := ""
	for _, n := range dp {
		if n.Type == EndDevicePath {
			if n.SubType == EndInstance {
				sb.WriteString(",")
				sep = ""
			}
			continue
		}
		sb.WriteString(sep)
		sb.WriteString(n.String())
		sep = "/"
	}
	return sb.String()
}

// Ended reports whether the path ends with an end-of-entire node.
func (dp DevicePath) Ended() bool {
	return len(dp) > 0 && dp[len(dp)-1].Type == EndDevicePath && dp[len(dp)-1].SubType == EndEntire
}

func le16(b []byte, off int) (uint16, bool) {
	if off+2 > len(b) {
		return 0, false
	}
	return binary.LittleEndian.Uint16(b[off:]), true
}

func le32(b []byte, off int) (uint32, bool) {
	if off+4 > len(b) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b[off:]), true
}

func le64(b []byte, off int) (uint64, bool) {
	if off+8 > len(b) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b[off:]), true
}

func guidAt(b []byte, off int) (GUID, bool) {
	var g GUID
	if off+16 > len(b) {
		return g, false
	}
	copy(g[:], b[off:])
	return g, true
}

// String writes the node in the specification's text form; a node it does
// not know, or one too short for its kind, is written in the generic form
// Path(Type,SubType,Data) or its per-type variant (HardwarePath, AcpiPath,
// Msg, MediaPath, BbsPath).
func (n Node) String() string {
	if s, ok := n.text(); ok {
		return s
	}
	hexd := fmt.Sprintf("%X", n.Data)
	switch n.Type {
	case HardwareDevicePath:
		return fmt.Sprintf("HardwarePath(%d,%s)", n.SubType, hexd)
	case ACPIDevicePath:
		return fmt.Sprintf("AcpiPath(%d,%s)", n.SubType, hexd)
	case MessagingDevicePath:
		return fmt.Sprintf("Msg(%d,%s)", n.SubType, hexd)
	case MediaDevicePath:
		return fmt.Sprintf("MediaPath(%d,%s)", n.SubType, hexd)
	case BBSDevicePath:
		return fmt.Sprintf("BbsPath(%d,%s)", n.SubType, hexd)
	}
	return fmt.Sprintf("Path(%d,%d,%s)", n.Type, n.SubType, hexd)
}

// Known reports whether the node is of a kind the decoder writes in its
// own text form (and is long enough for it).
func (n Node) Known() bool { _, ok := n.text(); return ok }

// eisaID decodes a compressed EISA ID (the _HID of ACPI nodes) into its
// seven-character form ("PNP0A03"), or ok=false when it is not one.
func eisaID(v uint32) (string, bool) {
	if v&0xffff != 0x41d0 { // "PNP" compressed; other vendors are printed raw
		c1, c2, c3 := byte((v>>10)&0x1f)+'@', byte((v>>5)&0x1f)+'@', byte(v&0x1f)+'@'
		if c1 < 'A' || c1 > 'Z' || c2 < 'A' || c2 > 'Z' || c3 < 'A' || c3 > 'Z' {
			return "", false
		}
		return fmt.Sprintf("%c%c%c%04X", c1, c2, c3, v>>16), true
	}
	return fmt.Sprintf("PNP%04X", v>>16), true
}

func vendor(prefix string, d []byte) (string, bool) {
	g, ok := guidAt(d, 0)
	if !ok {
		return "", false
	}
	if len(d) > 16 {
		return fmt.Sprintf("%s(%s,%X)", prefix, g, d[16:]), true
	}
	return fmt.Sprintf("%s(%s)", prefix, g), true
}

func ucs2All(d []byte) string { s, _, _ := ucs2(d); return s }

func (n Node) text() (string, bool) {
	d := n.Data
	switch n.Type {
	case HardwareDevicePath:
		switch n.SubType {
		case 1:
			if len(d) < 2 {
				return "", false
			}
			return fmt.Sprintf("Pci(0x%X,0x%X)", d[1], d[0]), true
		case 2:
			if len(d) < 1 {
				return "", false
			}
			return fmt.Sprintf("PcCard(0x%X)", d[0]), true
		case 3:
			t, ok1 := le32(d, 0)
			s, ok2 := le64(d, 4)
			e, ok3 := le64(d, 12)
			if !ok1 || !ok2 || !ok3 {
				return "", false
			}
			return fmt.Sprintf("MemoryMapped(0x%X,0x%X,0x%X)", t, s, e), true
		case 4:
			return vendor("VenHw", d)
		case 5:
			c, ok := le32(d, 0)
			if !ok {
				return "", false
			}
			return fmt.Sprintf("Ctrl(0x%X)", c), true
		}
	case ACPIDevicePath:
		switch n.SubType {
		case 1:
			hid, ok1 := le32(d, 0)
			uid, ok2 := le32(d, 4)
			if !ok1 || !ok2 {
				return "", false
			}
			id, ok := eisaID(hid)
			if !ok {
				return fmt.Sprintf("Acpi(0x%X,0x%X)", hid, uid), true
			}
			switch id {
			case "PNP0A03":
				return fmt.Sprintf("PciRoot(0x%X)", uid), true
			case "PNP0A08":
				return fmt.Sprintf("PcieRoot(0x%X)", uid), true
			case "PNP0604":
				return fmt.Sprintf("Floppy(0x%X)", uid), true
			case "PNP0301":
				return fmt.Sprintf("Keyboard(0x%X)", uid), true
			case "PNP0501":
				return fmt.Sprintf("Serial(0x%X)", uid), true
			case "PNP0401":
				return fmt.Sprintf("ParallelPort(0x%X)", uid), true
			}
			return fmt.Sprintf("Acpi(%s,0x%X)", id, uid), true
		case 2:
			hid, ok1 := le32(d, 0)
			uid, ok2 := le32(d, 4)
			cid, ok3 := le32(d, 8)
			if !ok1 || !ok2 || !ok3 {
				return "", false
			}
			strs := d[12:]
			hs, n1, _ := ucs8(strs)
			us, n2, _ := ucs8(strs[n1:])
			cs, _, _ := ucs8(strs[n1+n2:])
			hidS, _ := eisaID(hid)
			cidS, _ := eisaID(cid)
			if hidS == "" {
				hidS = fmt.Sprintf("0x%X", hid)
			}
			if cidS == "" || cid == 0 {
				cidS = fmt.Sprintf("0x%X", cid)
			}
			return fmt.Sprintf("AcpiEx(%s,%s,0x%X,%s,%s,%s)", hidS, cidS, uid, hs, cs, us), true
		case 3:
			a, ok := le32(d, 0)
			if !ok {
				return "", false
			}
			s := fmt.Sprintf("AcpiAdr(0x%X", a)
			for off := 4; off+4 <= len(d); off += 4 {
				v, _ := le32(d, off)
				s += fmt.Sprintf(",0x%X", v)
			}
			return s + ")", true
		}
	case MessagingDevicePath:
		return n.msgText()
	case MediaDevicePath:
		return n.mediaText()
	case BBSDevicePath:
		if n.SubType == 1 {
			t, ok1 := le16(d, 0)
			f, ok2 := le16(d, 2)
			if !ok1 || !ok2 {
				return "", false
			}
			names := map[uint16]string{1: "Floppy", 2: "HD", 3: "CDROM", 4: "PCMCIA", 5: "USB", 6: "Network"}
			ts, ok := names[t]
			if !ok {
				ts = fmt.Sprintf("0x%X", t)
			}
			desc := d[4:]
			if i := indexByte(desc, 0); i >= 0 {
				desc = desc[:i]
			}
			return fmt.Sprintf("BBS(%s,%s,0x%X)", ts, printable(desc), f), true
		}
	}
	return "", false
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// printable keeps ASCII letters, digits and punctuation, replacing the rest
// with '?', so firmware strings cannot inject control characters.
func printable(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			c = '?'
		}
		out[i] = c
	}
	return string(out)
}

// ucs8 reads a NUL-terminated 8-bit string (AcpiEx's strings).
func ucs8(b []byte) (string, int, bool) {
	if i := indexByte(b, 0); i >= 0 {
		return printable(b[:i]), i + 1, true
	}
	return printable(b), len(b), false
}

func (n Node) msgText() (string, bool) {
	d := n.Data
	switch n.SubType {
	case 1: // ATAPI
		if len(d) < 4 {
			return "", false
		}
		ps := map[byte]string{0: "Primary", 1: "Secondary"}[d[0]]
		ms := map[byte]string{0: "Master", 1: "Slave"}[d[1]]
		if ps == "" {
			ps = fmt.Sprintf("0x%X", d[0])
		}
		if ms == "" {
			ms = fmt.Sprintf("0x%X", d[1])
		}
		lun, _ := le16(d, 2)
		return fmt.Sprintf("Ata(%s,%s,0x%X)", ps, ms, lun), true
	case 2: // SCSI
		pun, ok1 := le16(d, 0)
		lun, ok2 := le16(d, 2)
		if !ok1 || !ok2 {
			return "", false
		}
		return fmt.Sprintf("Scsi(0x%X,0x%X)", pun, lun), true
	case 3: // Fibre Channel
		w, ok1 := le64(d, 4)
		l, ok2 := le64(d, 12)
		if !ok1 || !ok2 {
			return "", false
		}
		return fmt.Sprintf("Fibre(0x%X,0x%X)", w, l), true
	case 5: // USB
		if len(d) < 2 {
			return "", false
		}
		return fmt.Sprintf("USB(0x%X,0x%X)", d[0], d[1]), true
	case 8: // I2O
		t, ok := le32(d, 0)
		if !ok {
			return "", false
		}
		return fmt.Sprintf("I2O(0x%X)", t), true
	case 10: // Vendor: the terminal types have texts of their own
		if g, ok := guidAt(d, 0); ok && len(d) == 16 {
			if name, ok := vendorMsgNames[g]; ok {
				return name + "()", true
			}
		}
		return vendor("VenMsg", d)
	case 14: // UART
		baud, ok := le64(d, 4)
		if !ok || len(d) < 15 {
			return "", false
		}
		parity := map[byte]string{0: "D", 1: "N", 2: "E", 3: "O", 4: "M", 5: "S"}[d[13]]
		if parity == "" {
			parity = fmt.Sprintf("0x%X", d[13])
		}
		stop := map[byte]string{0: "D", 1: "1", 2: "1.5", 3: "2"}[d[14]]
		if stop == "" {
			stop = fmt.Sprintf("0x%X", d[14])
		}
		if baud == 0 {
			return fmt.Sprintf("Uart(DEFAULT,%d,%s,%s)", d[12], parity, stop), true
		}
		return fmt.Sprintf("Uart(%d,%d,%s,%s)", baud, d[12], parity, stop), true
	case 11: // MAC
		if len(d) < 33 {
			return "", false
		}
		l := 6
		if d[32] == 0 || d[32] == 1 {
			l = 6
		} else {
			l = 32
		}
		return fmt.Sprintf("MAC(%x,0x%X)", d[:l], d[32]), true
	case 12: // IPv4
		if len(d) < 15 {
			return "", false
		}
		proto, _ := le16(d, 12)
		typ := "DHCP"
		if d[14] == 1 {
			typ = "Static"
		}
		s := fmt.Sprintf("IPv4(%s,%s,%s,%s", ip4(d[4:8]), protoName(proto), typ, ip4(d[0:4]))
		if len(d) >= 23 {
			s += fmt.Sprintf(",%s,%s", ip4(d[15:19]), ip4(d[19:23]))
		}
		return s + ")", true
	case 13: // IPv6
		if len(d) < 39 {
			return "", false
		}
		proto, _ := le16(d, 32)
		typ := map[byte]string{0: "Static", 1: "StatelessAutoConfigure", 2: "StatefulAutoConfigure"}[d[34]]
		if typ == "" {
			typ = fmt.Sprintf("0x%X", d[34])
		}
		s := fmt.Sprintf("IPv6(%s,%s,%s,%s", ip6(d[16:32]), protoName(proto), typ, ip6(d[0:16]))
		if len(d) >= 56 {
			s += fmt.Sprintf(",0x%X,%s", d[35], ip6(d[36:52]))
		}
		return s + ")", true
	case 15: // USB class
		if len(d) < 7 {
			return "", false
		}
		vid, _ := le16(d, 0)
		pid, _ := le16(d, 2)
		return fmt.Sprintf("UsbClass(0x%X,0x%X,0x%X,0x%X,0x%X)", vid, pid, d[4], d[5], d[6]), true
	case 17: // Device logical unit
		if len(d) < 1 {
			return "", false
		}
		return fmt.Sprintf("Unit(0x%X)", d[0]), true
	case 18: // SATA
		hba, ok1 := le16(d, 0)
		pm, ok2 := le16(d, 2)
		lun, ok3 := le16(d, 4)
		if !ok1 || !ok2 || !ok3 {
			return "", false
		}
		return fmt.Sprintf("Sata(0x%X,0x%X,0x%X)", hba, pm, lun), true
	case 23: // NVMe namespace
		ns, ok := le32(d, 0)
		if !ok || len(d) < 12 {
			return "", false
		}
		eui := make([]string, 8)
		for i := range 8 {
			eui[i] = fmt.Sprintf("%02X", d[11-i])
		}
		return fmt.Sprintf("NVMe(0x%X,%s)", ns, strings.Join(eui, "-")), true
	case 24: // URI
		return fmt.Sprintf("Uri(%s)", printable(d)), true
	case 26: // SD
		if len(d) < 1 {
			return "", false
		}
		return fmt.Sprintf("SD(0x%X)", d[0]), true
	case 29: // eMMC
		if len(d) < 1 {
			return "", false
		}
		return fmt.Sprintf("eMMC(0x%X)", d[0]), true
	}
	return "", false
}

// vendorMsgNames are the vendor messaging nodes with a text form of their
// own (the terminal types, UEFI 2.10 §10.3.4.10).
var vendorMsgNames = map[GUID]string{
	MustGUID("e0c14753-f9be-11d2-9a0c-0090273fc14d"): "VenPcAnsi",
	MustGUID("dfa66065-b419-11d3-9a2d-0090273fc14d"): "VenVt100",
	MustGUID("7baec70b-57e0-4c76-8e87-2f9e28088343"): "VenVt100Plus",
	MustGUID("ad15a0d6-8bec-4acf-a073-d01de77e2d88"): "VenUtf8",
}

func ip4(b []byte) string { return netip.AddrFrom4([4]byte(b)).String() }
func ip6(b []byte) string { return netip.AddrFrom16([16]byte(b)).String() }

func protoName(p uint16) string {
	switch p {
	case 6:
		return "TCP"
	case 17:
		return "UDP"
	}
	return fmt.Sprintf("0x%X", p)
}

func (n Node) mediaText() (string, bool) {
	d := n.Data
	switch n.SubType {
	case 1: // hard drive
		if len(d) < 38 {
			return "", false
		}
		part, _ := le32(d, 0)
		start, _ := le64(d, 4)
		size, _ := le64(d, 12)
		sig := d[20:36]
		format, sigType := d[36], d[37]
		var ft, ss string
		switch format {
		case 1:
			ft = "MBR"
		case 2:
			ft = "GPT"
		default:
			ft = fmt.Sprintf("0x%X", format)
		}
		switch sigType {
		case 1:
			ss = fmt.Sprintf("0x%08x", binary.LittleEndian.Uint32(sig))
		case 2:
			var g GUID
			copy(g[:], sig)
			ss = g.String()
		default:
			ss = "0"
		}
		return fmt.Sprintf("HD(%d,%s,%s,0x%X,0x%X)", part, ft, ss, start, size), true
	case 2: // CD-ROM
		e, ok1 := le32(d, 0)
		s, ok2 := le64(d, 4)
		z, ok3 := le64(d, 12)
		if !ok1 || !ok2 || !ok3 {
			return "", false
		}
		return fmt.Sprintf("CDROM(0x%X,0x%X,0x%X)", e, s, z), true
	case 3:
		return vendor("VenMedia", d)
	case 4: // file path: the path itself
		return ucs2All(d), true
	case 5:
		g, ok := guidAt(d, 0)
		if !ok {
			return "", false
		}
		return fmt.Sprintf("Media(%s)", g), true
	case 6:
		g, ok := guidAt(d, 0)
		if !ok {
			return "", false
		}
		return fmt.Sprintf("FvFile(%s)", g), true
	case 7:
		g, ok := guidAt(d, 0)
		if !ok {
			return "", false
		}
		return fmt.Sprintf("Fv(%s)", g), true
	case 8:
		s, ok1 := le64(d, 4)
		e, ok2 := le64(d, 12)
		if !ok1 || !ok2 {
			return "", false
		}
		return fmt.Sprintf("Offset(0x%X,0x%X)", s, e), true
	case 9:
		s, ok1 := le64(d, 0)
		e, ok2 := le64(d, 8)
		g, ok3 := guidAt(d, 16)
		inst, ok4 := le16(d, 32)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return "", false
		}
		return fmt.Sprintf("RamDisk(0x%X,0x%X,%d,%s)", s, e, inst, g), true
	}
	return "", false
}
