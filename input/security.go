package input

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// DMAProtection is what the kernel shows of DMA protection: the IOMMUs it
// drives (/sys/class/iommu), each Thunderbolt domain's security level and
// pre-boot DMA protection flag (/sys/bus/thunderbolt/devices/domainN), and
// the kernel command line, recorded as fwcheck/dma-protection.txt (the
// class entries are links, which a snapshot of plain files cannot hold).
var DMAProtection = Declare(Def[*DMAState]{
	Name: "dma-protection", Doc: "IOMMUs the kernel drives (/sys/class/iommu), Thunderbolt security and DMA protection, the kernel command line",
	Capture: []string{RecordedDir + "/" + DMAProtectionFile},
	Load: func(src Source) (*DMAState, error) {
		b, err := fs.ReadFile(src, path.Join(RecordedDir, DMAProtectionFile))
		if err != nil {
			return nil, err
		}
		return ParseDMAState(b)
	},
})

// DMAProtectionFile is the recorded DMA protection state below RecordedDir.
const DMAProtectionFile = "dma-protection.txt"

// DMAState is the kernel's view of DMA protection.
type DMAState struct {
	IOMMUs      []string // "dmar0", "ivhd0"
	Thunderbolt []ThunderboltDomain
	Cmdline     string
}

// ThunderboltDomain is one Thunderbolt/USB4 domain's security settings.
type ThunderboltDomain struct {
	Name     string // "domain0"
	Security string // "none", "user", "secure", "dponly", "usbonly", "nopcie"
	// DMAProtection is iommu_dma_protection: "1" when the firmware
	// enabled pre-boot DMA protection and the kernel kept the IOMMU on.
	DMAProtection string
}

// ParseDMAState reads the recorded DMA protection lines; at most 4096
// lines are read.
func ParseDMAState(b []byte) (*DMAState, error) {
	s := &DMAState{}
	for i, line := range strings.Split(string(b), "\n") {
		if i > 4096 {
			return nil, errors.New("dma protection: too many lines")
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "iommu":
			s.IOMMUs = append(s.IOMMUs, rest)
		case "thunderbolt":
			f := strings.Fields(rest)
			if len(f) == 0 {
				return nil, fmt.Errorf("dma protection line %d: thunderbolt without a domain", i+1)
			}
			d := ThunderboltDomain{Name: f[0]}
			for _, kv := range f[1:] {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "security":
					d.Security = v
				case "iommu_dma_protection":
					d.DMAProtection = v
				}
			}
			s.Thunderbolt = append(s.Thunderbolt, d)
		case "cmdline":
			s.Cmdline = rest
		default:
			return nil, fmt.Errorf("dma protection line %d: %.40q", i+1, line)
		}
	}
	return s, nil
}

func recordDMAState(root string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# fwcheck dma protection 1\n")
	if ents, err := os.ReadDir(filepath.Join(root, "sys/class/iommu")); err == nil {
		for _, e := range ents {
			fmt.Fprintf(&b, "iommu %s\n", printable(e.Name()))
		}
	}
	tb := filepath.Join(root, "sys/bus/thunderbolt/devices")
	if ents, err := os.ReadDir(tb); err == nil {
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), "domain") {
				continue
			}
			read := func(f string) string {
				v, err := os.ReadFile(filepath.Join(tb, e.Name(), f))
				if err != nil {
					return "unreadable"
				}
				return printable(strings.TrimSpace(string(v)))
			}
			fmt.Fprintf(&b, "thunderbolt %s security=%s iommu_dma_protection=%s\n", printable(e.Name()), read("security"), read("iommu_dma_protection"))
		}
	}
	if c, err := os.ReadFile(filepath.Join(root, "proc/cmdline")); err == nil {
		fmt.Fprintf(&b, "cmdline %s\n", printable(strings.TrimSpace(string(c))))
	}
	return b.Bytes(), nil
}

// printable keeps recorded text to printable ASCII, so that no value can
// end its line early or carry control characters into a report.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}

// MEI is what the kernel's mei driver shows of the Intel ME (CSME): the
// firmware status registers and the firmware version
// (/sys/class/mei/mei0/fw_status and fw_ver), recorded as fwcheck/mei.txt.
// A machine without the driver records nothing, and the me check reads the
// same registers from the HECI function's configuration space instead.
var MEI = Declare(Def[*MEIState]{
	Name: "mei", Doc: "the Intel ME's status registers and version (/sys/class/mei/mei0)",
	Capture: []string{RecordedDir + "/" + MEIFile},
	Load: func(src Source) (*MEIState, error) {
		b, err := fs.ReadFile(src, path.Join(RecordedDir, MEIFile))
		if err != nil {
			return nil, err
		}
		return ParseMEI(b)
	},
})

// MEIFile is the recorded ME state below RecordedDir.
const MEIFile = "mei.txt"

// MEIState is the ME's firmware status registers (HFSTS1 first) and
// version lines ("0:16.1.25.2124").
type MEIState struct {
	Status   []uint32
	Versions []string
}

// ParseMEI reads the recorded ME lines: "fw_status HEX" (one per
// register, at most 6) and "fw_ver TEXT".
func ParseMEI(b []byte) (*MEIState, error) {
	s := &MEIState{}
	for i, line := range strings.Split(string(b), "\n") {
		if i > 64 {
			return nil, errors.New("mei: too many lines")
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "fw_status":
			x, err := strconv.ParseUint(v, 16, 32)
			if err != nil || len(v) != 8 {
				return nil, fmt.Errorf("mei line %d: %.20q is not a status register", i+1, v)
			}
			if len(s.Status) < 6 {
				s.Status = append(s.Status, uint32(x))
			}
		case "fw_ver":
			if len(s.Versions) < 8 {
				s.Versions = append(s.Versions, printable(v))
			}
		default:
			return nil, fmt.Errorf("mei line %d: %.40q", i+1, line)
		}
	}
	return s, nil
}

func recordMEI(root string) ([]byte, error) {
	dir := filepath.Join(root, "sys/class/mei/mei0")
	st, err := os.ReadFile(filepath.Join(dir, "fw_status"))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("# fwcheck mei 1\n")
	for _, l := range strings.Fields(string(st)) {
		fmt.Fprintf(&b, "fw_status %s\n", printable(l))
	}
	if v, err := os.ReadFile(filepath.Join(dir, "fw_ver")); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(v)), "\n") {
			fmt.Fprintf(&b, "fw_ver %s\n", printable(strings.TrimSpace(l)))
		}
	}
	return b.Bytes(), nil
}
