package tpm

import (
	"errors"
	"fmt"

	"github.com/google/go-tpm/tpm2"
	"github.com/google/go-tpm/tpm2/transport"
)

// NumPCRs is the number of PCRs a PC Client TPM has.
const NumPCRs = 24

// ReadPCRs reads every PCR of every allocated bank through t: the banks
// from TPM2_GetCapability(TPM_CAP_PCRS), the values with TPM2_PCR_Read, one
// PCR per command so that a TPM's per-response limit cannot cut the
// answer short.
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
		a := Alg(bank.Hash)
		for i := uint32(0); i < NumPCRs && int(i/8) < len(bank.PCRSelect); i++ {
			if bank.PCRSelect[i/8]&(1<<(i%8)) == 0 {
				continue // not allocated in this bank
			}
			mask := make([]byte, 3)
			mask[i/8] = 1 << (i % 8)
			rsp, err := tpm2.PCRRead{PCRSelectionIn: tpm2.TPMLPCRSelection{
				PCRSelections: []tpm2.TPMSPCRSelection{{Hash: bank.Hash, PCRSelect: mask}},
			}}.Execute(t)
			if err != nil {
				return nil, fmt.Errorf("TPM2_PCR_Read(%s, %d): %w", a, i, err)
			}
			if len(rsp.PCRValues.Digests) != 1 {
				return nil, fmt.Errorf("TPM2_PCR_Read(%s, %d): %d values returned", a, i, len(rsp.PCRValues.Digests))
			}
			p.Set(a, i, rsp.PCRValues.Digests[0].Buffer)
		}
	}
	if len(p.Banks) == 0 {
		return nil, errors.New("the TPM reports no allocated PCR bank")
	}
	return p, nil
}
