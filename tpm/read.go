package tpm

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/google/go-tpm/tpm2"
	"github.com/google/go-tpm/tpm2/transport"
)

// NumPCRs is the number of PCRs a PC Client TPM has.
const NumPCRs = 24

// ReadPCRs reads PCRs 0-23 of every allocated bank through t: the banks
// from TPM2_GetCapability(TPM_CAP_PCRS), the values with TPM2_PCR_Read.
//
// Each TPM2_PCR_Read asks for every PCR of a bank not read yet. A TPM
// answers with as many as fit in its response (8 on the TPMs we have
// seen) and says which in pcrSelectionOut (TPM 2.0 Library, Part 3,
// §22.4), so a bank takes three commands instead of 24. That matters where
// a command is slow: a discrete TPM on an LPC or SPI bus, or QEMU's TIS
// under TCG, where the one-PCR-per-command reading this replaced took 0.6 s
// of a boot (2026-12-07). Each answer must return at least one of the PCRs
// asked for, and only those, with one digest each; otherwise the read
// fails with the TPM's answer in the error, so a faulty TPM cannot keep the
// loop going or have its values recorded under the wrong PCR.
func ReadPCRs(t transport.TPM) (*PCRs, error) {
	capRsp, err := tpm2.GetCapability{Capability: tpm2.TPMCapPCRs, PropertyCount: 1}.Execute(t)
	if err != nil {
		return nil, fmt.Errorf("TPM2_GetCapability(PCRS): %w", err)
	}
	sel, err := capRsp.CapabilityData.Data.AssignedPCR()
	if err != nil {
		return nil, fmt.Errorf("TPM2_GetCapability(PCRS): %w", err)
	}
	p := &PCRs{}
	for _, bank := range sel.PCRSelections {
		if err := readBank(t, p, bank); err != nil {
			return nil, err
		}
	}
	if len(p.Banks) == 0 {
		return nil, errors.New("the TPM reports no allocated PCR bank")
	}
	return p, nil
}

// readBank reads the allocated PCRs below NumPCRs of one bank into p.
func readBank(t transport.TPM, p *PCRs, bank tpm2.TPMSPCRSelection) error {
	a := Alg(bank.Hash)
	all, _ := bitmap(bank.PCRSelect)
	left := all & (1<<NumPCRs - 1) // the PCRs still to read
	// Every answer clears at least one bit, so this ends within NumPCRs
	// commands whatever the TPM returns.
	for left != 0 {
		rsp, err := tpm2.PCRRead{PCRSelectionIn: tpm2.TPMLPCRSelection{
			PCRSelections: []tpm2.TPMSPCRSelection{{Hash: bank.Hash, PCRSelect: selectBytes(left)}},
		}}.Execute(t)
		if err != nil {
			return fmt.Errorf("TPM2_PCR_Read(%s, PCRs %s): %w", a, pcrList(left), err)
		}
		var got uint32
		for _, s := range rsp.PCRSelectionOut.PCRSelections {
			set, ok := bitmap(s.PCRSelect)
			switch {
			case !ok:
				return fmt.Errorf("TPM2_PCR_Read(%s, PCRs %s): the TPM answered for PCRs above 31", a, pcrList(left))
			case s.Hash == bank.Hash:
				got |= set
			case set != 0:
				return fmt.Errorf("TPM2_PCR_Read(%s, PCRs %s): the TPM answered for bank %s", a, pcrList(left), Alg(s.Hash))
			}
		}
		switch {
		case got == 0:
			return fmt.Errorf("TPM2_PCR_Read(%s, PCRs %s): the TPM returned none of them", a, pcrList(left))
		case got&^left != 0:
			return fmt.Errorf("TPM2_PCR_Read(%s, PCRs %s): the TPM returned PCRs %s, not asked for", a, pcrList(left), pcrList(got&^left))
		case bits.OnesCount32(got) != len(rsp.PCRValues.Digests):
			return fmt.Errorf("TPM2_PCR_Read(%s, PCRs %s): the TPM selected PCRs %s but returned %d values", a, pcrList(left), pcrList(got), len(rsp.PCRValues.Digests))
		}
		// The digests come in the selection's order: ascending PCRs.
		d := rsp.PCRValues.Digests
		for i := uint32(0); i < NumPCRs; i++ {
			if got&(1<<i) != 0 {
				p.Set(a, i, d[0].Buffer)
				d = d[1:]
			}
		}
		left &^= got
	}
	return nil
}

// selectBytes is a 3-byte pcrSelect bitmap for PCRs 0-23.
func selectBytes(set uint32) []byte {
	return []byte{byte(set), byte(set >> 8), byte(set >> 16)}
}

// bitmap reads a pcrSelect bitmap (bit i of byte i/8 for PCR i) as a set
// of PCRs 0-31; ok is false when it selects a PCR above 31.
func bitmap(b []byte) (set uint32, ok bool) {
	for i, c := range b {
		if i >= 4 {
			if c != 0 {
				return set, false
			}
			continue
		}
		set |= uint32(c) << (8 * i)
	}
	return set, true
}

// pcrList names the PCRs of a bitmap: "0-7,10,16-23".
func pcrList(set uint32) string {
	var s string
	for i := 0; i < 32; {
		if set&(1<<i) == 0 {
			i++
			continue
		}
		j := i
		for j+1 < 32 && set&(1<<(j+1)) != 0 {
			j++
		}
		if s != "" {
			s += ","
		}
		if j > i {
			s += fmt.Sprintf("%d-%d", i, j)
		} else {
			s += fmt.Sprint(i)
		}
		i = j + 1
	}
	return s
}
