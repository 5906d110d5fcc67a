package ecdt

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/tablecheck"
)

// ecdt builds an ECDT with the EC at ports 0x66/0x62, GPE gpe, and id.
func ecdt(rev byte, ctl, data byte, gpe byte, id string) []byte {
	body := []byte{1, 8, 0, 1, ctl, 0, 0, 0, 0, 0, 0, 0, 1, 8, 0, 1, data, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, gpe}
	return checktest.SDT("ECDT", rev, append(append(body, id...), 0))
}

// regs edits a built ECDT's bytes and mends its checksum.
func regs(b []byte, edit func([]byte)) []byte {
	edit(b)
	checktest.FixSum(b)
	return b
}

func TestECDT(t *testing.T) {
	fadt := checktest.FADT(nil)
	f, err := acpi.ParseFADT(&acpi.Table{Signature: "FACP", Raw: fadt, Header: must(acpi.ParseHeader(fadt))})
	require.NoError(t, err)
	gpes := int(f.GPE0BlkLen) / 2 * 8
	require.Positive(t, gpes, "the synthetic FADT has a GPE0 block")
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		{"clean", ecdt(1, 0x66, 0x62, 0x17, `\_SB.PCI0.LPCB.EC0`), nil},
		{"revision 2", ecdt(2, 0x66, 0x62, 0x17, `\_SB.PCI0.LPCB.EC0`), []string{"ECDTRevision"}},
		{"register 0", ecdt(1, 0, 0x62, 0x17, `\_SB.PCI0.LPCB.EC0`), []string{"ECDTRegister"}},
		{"same registers", ecdt(1, 0x66, 0x66, 0x17, `\_SB.PCI0.LPCB.EC0`), []string{"ECDTRegistersEqual"}},
		{"word access", regs(ecdt(1, 0x66, 0x62, 0x17, `\_SB.PCI0.LPCB.EC0`), func(b []byte) { b[36+3] = 2 }), []string{"ECDTRegisterSize"}},
		{"16-bit data register", regs(ecdt(1, 0x66, 0x62, 0x17, `\_SB.PCI0.LPCB.EC0`), func(b []byte) { b[48+1] = 16 }), []string{"ECDTRegisterSize"}},
		{"width and access not given", regs(ecdt(1, 0x66, 0x62, 0x17, `\_SB.PCI0.LPCB.EC0`), func(b []byte) { b[36+1], b[36+3], b[48+1], b[48+3] = 0, 0, 0, 0 }), nil},
		{"empty EC_ID", ecdt(1, 0x66, 0x62, 0x17, ""), []string{"ECDTECID"}},
		{"relative EC_ID", ecdt(1, 0x66, 0x62, 0x17, `_SB.PC00.LPCB.EC0`), []string{"ECDTECID"}},
		{"GPE beyond the blocks", ecdt(1, 0x66, 0x62, byte(gpes), `\_SB.PCI0.LPCB.EC0`), []string{"ECDTGPEBit"}},
		{"short", checktest.SDT("ECDT", 1, make([]byte, 20)), []string{"ECDTMalformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, tablecheck.Labels(checktest.RunTables(t, Check, fadt, c.raw)))
		})
	}
	r := checktest.RunTables(t, Check, fadt, ecdt(1, 0x66, 0x62, 0x17, `\_SB.PCI0.LPCB.EC0`))
	assert.Equal(t, tests.StatusIncomplete, r.Status, "without a DSDT the EC_ID is not looked up, and the verdict says so")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// On a real machine's tables (DSDT included), the ECDT's EC_ID is found;
// pointed at a path the DSDT lacks, or at a device that is no EC, it is not.
func TestECDTNamespace(t *testing.T) {
	ts, err := acpi.LoadDumpFile(filepath.Join(corpus.Dir(t, "acpi", "linuxhw", "full"), "521204017BE2.acpidump.txt.gz"))
	require.NoError(t, err)
	e, err := acpi.ParseECDT(ts.First("ECDT"))
	require.NoError(t, err)
	run := func(id string) tests.Result {
		var tabs []checktest.Table
		for _, tb := range ts.List {
			raw := tb.Raw
			if tb.Signature == "ECDT" {
				raw = ecdt(1, 0x66, 0x62, e.GPEBit, id)
			}
			tabs = append(tabs, checktest.Table{Raw: raw})
		}
		return checktest.Run(t, Check, checktest.Machine(t, nil, tabs...))
	}
	r := run(e.ID)
	assert.Nil(t, tablecheck.Labels(r), "%s", e.ID)
	assert.Equal(t, tests.StatusPassed, r.Status)
	assert.Equal(t, []string{"ECDTIDNotInNamespace"}, tablecheck.Labels(run(`\_SB.PCI0.LPCB.NOEC`)))
	assert.Equal(t, []string{"ECDTIDNotInNamespace"}, tablecheck.Labels(run(`\_SB.PCI0`)), "a PCI root bridge is no EC")
}
