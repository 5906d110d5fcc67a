//go:build !windows

package input

import (
	"github.com/google/go-tpm/tpm2/transport/linuxtpm"

	"github.com/fwcheck/fwcheck/tpm"
)

func readPCRs(dev string) (*tpm.PCRs, error) {
	t, err := linuxtpm.Open(dev)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	p, err := tpm.ReadPCRs(t)
	if err != nil {
		return nil, err
	}
	p.Device = "/dev/tpmrm0"
	return p, nil
}
