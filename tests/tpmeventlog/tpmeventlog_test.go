package tpmeventlog

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tpm"
)

type ev struct {
	pcr, typ uint32
	data     string
	algs     []tpm.Alg
}

// buildLog writes a crypto-agile log declaring algs, with events whose
// digests are of their data.
func buildLog(algs []tpm.Alg, evs ...ev) []byte {
	var spec, b bytes.Buffer
	spec.WriteString("Spec ID Event03\x00")
	binary.Write(&spec, binary.LittleEndian, uint32(0))
	spec.Write([]byte{0, 2, 0, 2})
	binary.Write(&spec, binary.LittleEndian, uint32(len(algs)))
	for _, a := range algs {
		binary.Write(&spec, binary.LittleEndian, []uint16{uint16(a), uint16(a.Size())})
	}
	spec.WriteByte(0)
	binary.Write(&b, binary.LittleEndian, []uint32{0, tpm.EvNoAction})
	b.Write(make([]byte, 20))
	binary.Write(&b, binary.LittleEndian, uint32(spec.Len()))
	b.Write(spec.Bytes())
	for _, e := range evs {
		ea := e.algs
		if ea == nil {
			ea = algs
		}
		binary.Write(&b, binary.LittleEndian, []uint32{e.pcr, e.typ, uint32(len(ea))})
		for _, a := range ea {
			binary.Write(&b, binary.LittleEndian, uint16(a))
			b.Write(digest(a, []byte(e.data)))
		}
		binary.Write(&b, binary.LittleEndian, uint32(len(e.data)))
		b.WriteString(e.data)
	}
	return b.Bytes()
}

func digest(a tpm.Alg, d []byte) []byte {
	if a == tpm.SHA1 {
		s := sha1.Sum(d)
		return s[:]
	}
	s := sha256.Sum256(d)
	return s[:]
}

// firmwareEvents measures something and a separator into each of PCRs 0-7.
func firmwareEvents() []ev {
	var out []ev
	for i := uint32(0); i < 8; i++ {
		out = append(out, ev{pcr: i, typ: 0x80000008, data: "blob"}, ev{pcr: i, typ: tpm.EvSeparator, data: "\x00\x00\x00\x00"})
	}
	return out
}

// pcrsOf replays raw into PCR values for banks, as a TPM would hold them.
func pcrsOf(t *testing.T, raw []byte, banks ...tpm.Alg) *tpm.PCRs {
	l, err := tpm.Parse(raw)
	require.NoError(t, err)
	p := &tpm.PCRs{Device: "/dev/tpmrm0"}
	for _, a := range banks {
		vals, _, err := l.Replay(a)
		require.NoError(t, err)
		for i := uint32(0); i < tpm.NumPCRs; i++ {
			v, ok := vals[i]
			if !ok {
				v = make([]byte, a.Size())
			}
			p.Set(a, i, v)
		}
	}
	return p
}

func machine(t *testing.T, raw []byte, p *tpm.PCRs) tests.Result {
	files := map[string][]byte{"sys/class/tpm/tpm0/tpm_version_major": []byte("2\n")}
	if raw != nil {
		files["sys/kernel/security/tpm0/binary_bios_measurements"] = raw
	}
	if p != nil {
		files["fwcheck/tpm/pcrs.json"] = p.JSON()
	}
	return checktest.Run(t, Check, checktest.FilesMachine(t, files))
}

var both = []tpm.Alg{tpm.SHA1, tpm.SHA256}

func TestReplay(t *testing.T) {
	raw := buildLog(both, firmwareEvents()...)
	r := machine(t, raw, pcrsOf(t, raw, both...))
	assert.Equal(t, tests.StatusPassed, r.Status, "%+v", r.Findings)

	// The TPM's PCR 4 holds one more extend than the log records.
	p := pcrsOf(t, buildLog(both, append(firmwareEvents(), ev{pcr: 4, typ: 0x80000003, data: "unlogged app"})...), both...)
	r = machine(t, raw, p)
	assert.Equal(t, []string{"TPMPCRReplayMismatch", "TPMPCRReplayMismatch"}, checktest.FailLabels(r))
	assert.Contains(t, r.Findings[len(r.Findings)-1].Message+r.Findings[len(r.Findings)-2].Message, "PCR 4, sha256 bank")

	// OS PCRs that differ are reported, not judged.
	p = pcrsOf(t, raw, both...)
	p.Set(tpm.SHA256, 10, bytes.Repeat([]byte{1}, 32))
	r = machine(t, raw, p)
	assert.Empty(t, checktest.FailLabels(r))

	// A TPM with a SHA-384 bank the log does not cover.
	p = pcrsOf(t, raw, both...)
	p.Set(tpm.SHA384, 0, make([]byte, 48))
	r = machine(t, raw, p)
	assert.Equal(t, []string{"TPMEventLogBankMismatch"}, checktest.FailLabels(r))
}

func TestLogProblems(t *testing.T) {
	noSep := buildLog(both, firmwareEvents()[:15]...) // PCR 7's separator left out
	r := machine(t, noSep, pcrsOf(t, noSep, both...))
	assert.Equal(t, []string{"TPMEventLogNoSeparator"}, checktest.FailLabels(r))
	assert.Contains(t, checktest.FindingWith(r, "TPMEventLogNoSeparator").Message, "PCR 7")

	sha1only := buildLog([]tpm.Alg{tpm.SHA1}, firmwareEvents()...)
	r = machine(t, sha1only, pcrsOf(t, sha1only, tpm.SHA1))
	assert.Equal(t, []string{"TPMEventLogNoSHA256"}, checktest.FailLabels(r))

	unknown := buildLog(both, append(firmwareEvents(), ev{pcr: 1, typ: 0x4242, data: "?"})...)
	r = machine(t, unknown, pcrsOf(t, unknown, both...))
	assert.Equal(t, []string{"TPMEventLogUnknownEvent"}, checktest.FailLabels(r))

	full := buildLog(both, firmwareEvents()...)
	cut := full[:len(full)-2]
	r = machine(t, cut, pcrsOf(t, full, both...))
	assert.Equal(t, "TPMEventLogTruncated", checktest.FailLabels(r)[0])

	missing := buildLog(both, append(firmwareEvents(), ev{pcr: 2, typ: 0x80000004, data: "drv", algs: []tpm.Alg{tpm.SHA1}})...)
	r = machine(t, missing, pcrsOf(t, missing, tpm.SHA1, tpm.SHA256))
	assert.Contains(t, checktest.FailLabels(r), "TPMEventLogMissingDigest")

	r = machine(t, []byte("not a log at all, just text"), nil)
	assert.Equal(t, []string{"TPMEventLogMalformed"}, checktest.FailLabels(r))
}

func TestNoTPM(t *testing.T) {
	r := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"proc/version": []byte("Linux")}))
	assert.Equal(t, tests.StatusNotApplicable, r.Status)

	// A log without readable PCRs: parsed and checked, the replay not.
	raw := buildLog(both, firmwareEvents()...)
	r = machine(t, raw, &tpm.PCRs{Error: "no /dev/tpmrm0", NoTPM: true})
	assert.Equal(t, tests.StatusIncomplete, r.Status, "%+v", r)
	require.Len(t, r.Unchecked, 1)
	assert.Contains(t, r.Unchecked[0].What, "replay")
}
