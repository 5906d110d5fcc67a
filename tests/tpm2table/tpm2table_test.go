package tpm2table

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

func tpm2(rev uint8, ctrl uint64, start uint32, logArea bool, laml uint32, lasa uint64) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b[4:], ctrl)
	binary.LittleEndian.PutUint32(b[12:], start)
	if logArea {
		b = append(b, make([]byte, 12)...)
		b = binary.LittleEndian.AppendUint32(b, laml)
		b = binary.LittleEndian.AppendUint64(b, lasa)
	}
	return checktest.SDT("TPM2", rev, b)
}

func tcpa(class uint16, laml uint32, lasa uint64) []byte {
	b := binary.LittleEndian.AppendUint16(nil, class)
	b = binary.LittleEndian.AppendUint32(b, laml)
	b = binary.LittleEndian.AppendUint64(b, lasa)
	return checktest.SDT("TCPA", 2, b)
}

func TestTables(t *testing.T) {
	for name, c := range map[string]struct {
		table []byte
		want  []string
	}{
		"CRB with log area":     {tpm2(4, 0xfed40040, 7, true, 0x10000, 0x7163c000), nil},
		"FIFO, no control area": {tpm2(4, 0, 6, true, 0x10000, 0xb3d06000), nil},
		"revision 3, 52 bytes":  {tpm2(3, 0x7ff00000, 2, false, 0, 0), nil},
		"no log area, zero":     {tpm2(4, 0xfed40040, 7, true, 0, 0), nil},
		"start method 0":        {tpm2(4, 0xfed40040, 0, false, 0, 0), []string{"TPM2StartMethod"}},
		"reserved start method": {tpm2(4, 0xfed40040, 9, false, 0, 0), []string{"TPM2StartMethod"}},
		"CRB without control":   {tpm2(4, 0, 7, false, 0, 0), []string{"TPM2ControlArea"}},
		"log area at 0":         {tpm2(4, 0xfed40040, 7, true, 0x10000, 0), []string{"TPMLogArea"}},
		"short":                 {checktest.SDT("TPM2", 4, make([]byte, 8)), []string{"TPM2TableLength"}},
		"TCPA":                  {tcpa(0, 0x10000, 0x7a36d000), nil},
		"TCPA log at 0":         {tcpa(0, 0x10000, 0), []string{"TPMLogArea"}},
		"TCPA no log, all ones": {tcpa(0, 0, ^uint64(0)), nil},
		"TCPA short":            {checktest.SDT("TCPA", 2, make([]byte, 4)), []string{"TPM2TableLength"}},
	} {
		r := checktest.RunTables(t, Check, checktest.FADT(nil), c.table)
		assert.Equal(t, c.want, checktest.FailLabels(r), "%s: %+v", name, r.Findings)
		if c.want == nil {
			assert.Equal(t, tests.StatusPassed, r.Status, name)
		}
	}
	r := checktest.RunTables(t, Check, checktest.FADT(nil))
	assert.Equal(t, tests.StatusNotApplicable, r.Status)
}

// TestCorpus runs the check on every real machine's dump (some appear both
// in core/ and full/): the findings are two Dell machines whose TCPA gives
// a 64 KiB log area at address 0, which Linux would map and parse.
func TestCorpus(t *testing.T) {
	files := corpus.Glob(t, "acpi/linuxhw/*/*.txt*")
	seen := 0
	var fails []string
	for _, f := range files {
		r := checktest.Run(t, Check, checktest.DumpMachine(f))
		if r.Status == tests.StatusNotApplicable {
			continue
		}
		seen++
		for _, fd := range r.Findings {
			if fd.Kind == tests.KindFail {
				id, _, _ := strings.Cut(filepath.Base(f), ".")
				fails = append(fails, fmt.Sprintf("%s %s: %s", id, fd.Label, fd.Message))
			}
		}
	}
	sort.Strings(fails)
	fails = slices.Compact(fails)
	t.Logf("%d of %d dumps have a TPM2 or TCPA table", seen, len(files))
	assert.Greater(t, seen, 40)
	for _, f := range fails {
		t.Log(f)
	}
	assert.Equal(t, []string{
		"2148E87727EE TPMLogArea: TCPA: log area of 65536 bytes at address 0x0",
		"524B6B1AD490 TPMLogArea: TCPA: log area of 65536 bytes at address 0x0",
	}, fails)
}
