package tpm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/go-tpm/tpm2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scriptedTPM stands in for a TPM where swtpm cannot: a faulty or hostile
// one. It answers TPM2_GetCapability(TPM_CAP_PCRS) with one SHA-256 bank
// of PCRs 0-23, and each TPM2_PCR_Read with answer(the PCRs asked for):
// the response's parameters, after a success header.
type scriptedTPM struct {
	answer func(asked uint32) []byte
	reads  int
}

func (s *scriptedTPM) Send(cmd []byte) ([]byte, error) {
	if len(cmd) < 10 {
		return nil, errors.New("short command")
	}
	var params []byte
	switch tpm2.TPMCC(binary.BigEndian.Uint32(cmd[6:10])) {
	case tpm2.TPMCCGetCapability:
		// moreData NO, TPM_CAP_PCRS, one selection: SHA-256, 3 bytes, all.
		params = []byte{0, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0x0b, 3, 0xff, 0xff, 0xff}
	case tpm2.TPMCCPCRRead:
		s.reads++
		if s.reads > 1000 {
			return nil, errors.New("runaway reading")
		}
		// count, hash, sizeofSelect, pcrSelect
		if len(cmd) < 20 {
			return nil, errors.New("short TPM2_PCR_Read")
		}
		sel := cmd[17:20]
		params = s.answer(uint32(sel[0]) | uint32(sel[1])<<8 | uint32(sel[2])<<16)
	default:
		return nil, errors.New("unexpected command")
	}
	rsp := binary.BigEndian.AppendUint16(nil, 0x8001)
	rsp = binary.BigEndian.AppendUint32(rsp, uint32(10+len(params)))
	rsp = binary.BigEndian.AppendUint32(rsp, 0)
	return append(rsp, params...), nil
}

// pcrReadParams is a TPM2_PCR_Read answer: the update counter, one
// selection (bank hash, PCRs set), n digests (PCR i's digest is 32 bytes
// of i).
func pcrReadParams(hash uint16, set uint32, n int, firstPCR uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, 7)
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint16(b, hash)
	b = append(b, 3, byte(set), byte(set>>8), byte(set>>16))
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	i := firstPCR
	for ; n > 0; n-- {
		for set&(1<<i) == 0 && i < 31 {
			i++
		}
		b = binary.BigEndian.AppendUint16(b, 32)
		b = append(b, bytes.Repeat([]byte{byte(i)}, 32)...)
		i++
	}
	return b
}

// honest answers with the lowest eight PCRs asked for, as TPMs do.
func honest(asked uint32) []byte {
	var set uint32
	n := 0
	for i := uint32(0); i < NumPCRs && n < 8; i++ {
		if asked&(1<<i) != 0 {
			set |= 1 << i
			n++
		}
	}
	return pcrReadParams(0x0b, set, n, 0)
}

func TestReadPCRsBatches(t *testing.T) {
	s := &scriptedTPM{answer: honest}
	p, err := ReadPCRs(s)
	require.NoError(t, err)
	assert.Equal(t, 3, s.reads)
	bank, err := p.Bank(SHA256)
	require.NoError(t, err)
	require.Len(t, bank, NumPCRs)
	for i := uint32(0); i < NumPCRs; i++ {
		assert.Equal(t, bytes.Repeat([]byte{byte(i)}, 32), bank[i], "PCR %d", i)
	}
}

func TestReadPCRsFaultyTPM(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer func(asked uint32) []byte
		want   string
	}{
		{"no PCR returned", func(uint32) []byte { return pcrReadParams(0x0b, 0, 0, 0) }, "returned none of them"},
		{"the same PCRs again", func(uint32) []byte { return pcrReadParams(0x0b, 0xff, 8, 0) }, "PCRs 0-7, not asked for"},
		{"fewer values than selected", func(asked uint32) []byte { return pcrReadParams(0x0b, asked&0xff, 7, 0) }, "selected PCRs 0-7 but returned 7 values"},
		{"another bank", func(asked uint32) []byte { return pcrReadParams(0x04, asked&0xff, 8, 0) }, "answered for bank sha1"},
		{"a truncated answer", func(uint32) []byte { return []byte{0, 0, 0, 7, 0, 0} }, "TPM2_PCR_Read(sha256, PCRs 0-23)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &scriptedTPM{answer: c.answer}
			_, err := ReadPCRs(s)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.LessOrEqual(t, s.reads, NumPCRs)
		})
	}
}

// FuzzReadPCRs answers every TPM2_PCR_Read with the fuzzer's bytes: the
// read ends, within one command per PCR, with values or an error.
func FuzzReadPCRs(f *testing.F) {
	f.Add(honest(0xffffff))
	f.Add(pcrReadParams(0x0b, 0xff00ff, 16, 0))
	f.Add(pcrReadParams(0x0b, 1, 1, 0))
	f.Fuzz(func(t *testing.T, params []byte) {
		s := &scriptedTPM{answer: func(uint32) []byte { return params }}
		p, err := ReadPCRs(s)
		if s.reads > NumPCRs {
			t.Fatalf("%d TPM2_PCR_Read commands", s.reads)
		}
		if err == nil {
			bank, _ := p.Bank(SHA256)
			if len(bank) != NumPCRs {
				t.Fatalf("no error, but %d PCRs read", len(bank))
			}
		}
	})
}
