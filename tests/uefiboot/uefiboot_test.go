package uefiboot

import (
	"encoding/binary"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/efi"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func varFile(attrs efi.Attributes, data ...byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(attrs)), data...)
}

func u16s(vs ...uint16) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return b
}

// loadOption is Boot#### data: active, described, a PciRoot/Pci path.
func loadOption(desc string, withEnd bool) []byte {
	path := []byte{2, 1, 12, 0, 0xd0, 0x41, 0x03, 0x0a, 0, 0, 0, 0, 1, 1, 6, 0, 2, 0x1f}
	if withEnd {
		path = append(path, 0x7f, 0xff, 4, 0)
	}
	b := binary.LittleEndian.AppendUint32(nil, 1)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(path)))
	for _, c := range utf16.Encode([]rune(desc)) {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	b = append(b, 0, 0)
	return append(b, path...)
}

func global(name string) string { return efi.VarsDir + "/" + name + "-" + efi.GlobalVariable.String() }

func machine(t *testing.T, vars map[string][]byte) tests.Result {
	files := map[string][]byte{"sys/firmware/efi/fw_platform_size": []byte("64\n")}
	for n, b := range vars {
		files[global(n)] = b
	}
	return checktest.Run(t, Check, checktest.FilesMachine(t, files))
}

func TestUEFIBoot(t *testing.T) {
	good := func() map[string][]byte {
		return map[string][]byte{
			"BootOrder":   varFile(7, u16s(1, 0)...),
			"Boot0000":    varFile(7, loadOption("UiApp", true)...),
			"Boot0001":    varFile(7, loadOption("UEFI QEMU DVD-ROM", true)...),
			"BootCurrent": varFile(6, u16s(1)...),
			"SecureBoot":  varFile(6, 0),
		}
	}
	r := machine(t, good())
	assert.Equal(t, tests.StatusPassed, r.Status, "%+v", r.Findings)
	assert.NotNil(t, checktest.FindingWith(r, ""), "infos")

	cases := []struct {
		name string
		mod  func(v map[string][]byte)
		want []string
	}{
		{"missing option", func(v map[string][]byte) { delete(v, "Boot0000") }, []string{"UEFIBootOrderMissingOption"}},
		{"lower-case option name", func(v map[string][]byte) { v["Boot000a"] = v["Boot0000"]; v["BootOrder"] = varFile(7, u16s(1, 10)...) }, []string{"UEFIBootOrderMissingOption"}},
		{"duplicate", func(v map[string][]byte) { v["BootOrder"] = varFile(7, u16s(1, 0, 1)...) }, []string{"UEFIBootOrderDuplicate"}},
		{"odd BootOrder", func(v map[string][]byte) { v["BootOrder"] = varFile(7, 1, 0, 0) }, []string{"UEFIBootOrderMalformed"}},
		{"no end node", func(v map[string][]byte) { v["Boot0000"] = varFile(7, loadOption("UiApp", false)...) }, []string{"UEFILoadOptionMalformed"}},
		{"current not in order", func(v map[string][]byte) { v["BootCurrent"] = varFile(6, u16s(2)...); v["Boot0002"] = v["Boot0000"] }, []string{"UEFIBootCurrentNotInOrder"}},
		{"current without option", func(v map[string][]byte) { v["BootCurrent"] = varFile(6, u16s(3)...) }, []string{"UEFIBootCurrentMissingOption"}},
		{"SecureBoot non-volatile", func(v map[string][]byte) { v["SecureBoot"] = varFile(7, 0) }, []string{"UEFIVariableAttributes"}},
		{"BootOrder volatile", func(v map[string][]byte) { v["BootOrder"] = varFile(6, u16s(1, 0)...) }, []string{"UEFIVariableAttributes"}},
		{"truncated variable file", func(v map[string][]byte) { v["Timeout"] = []byte{7} }, []string{"UEFIVariableMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := good()
			c.mod(v)
			r := machine(t, v)
			assert.Equal(t, c.want, checktest.FailLabels(r), "%+v", r.Findings)
		})
	}

	legacy := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"proc/version": []byte("Linux")}))
	assert.Equal(t, tests.StatusNotApplicable, legacy.Status, "a legacy BIOS boot")
	unmounted := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"sys/firmware/efi/fw_platform_size": []byte("64\n")}))
	assert.Equal(t, tests.StatusSkipped, unmounted.Status, "efivarfs not mounted: %s", unmounted.Reason)
	assert.Contains(t, unmounted.Reason, "mount -t efivarfs")
}

// TestGuests runs the check on the efivarfs recorded from QEMU guests: OVMF
// passes with its UiApp option decoded; SeaBIOS did not boot through UEFI.
func TestGuests(t *testing.T) {
	r := checktest.Run(t, Check, checktest.SnapshotMachine(t, "../all/testdata/efitpm/ovmf-q35-tpm-crb.tar.gz"))
	assert.Equal(t, tests.StatusPassed, r.Status, "%+v", r.Findings)
	var infos []string
	for _, f := range r.Findings {
		infos = append(infos, f.Message)
	}
	assert.Contains(t, infos, `Boot0000 "UiApp" (active, hidden): Fv(7cb8bdc9-f8eb-4f34-aaea-3ee4af6516a1)/FvFile(462caa21-7614-4503-836e-8ab6f4662331)`)
	assert.Contains(t, infos, "BootOrder [0000]: 1 options, each with its Boot#### variable, none listed twice")
	r = checktest.Run(t, Check, checktest.SnapshotMachine(t, "../all/testdata/efitpm/seabios-pc-tpm-tis.tar.gz"))
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
}
