package tpm

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
)

// PCRs are PCR values read from a TPM, per bank. The JSON form is what a
// snapshot records (fwcheck/tpm/pcrs.json):
//
//	{"device": "/dev/tpmrm0", "banks": {"sha256": {"0": "hex…", …}, …}}
//
// or, when no TPM could be read, {"error": "why"}.
type PCRs struct {
	Device string                       `json:"device,omitempty"`
	Banks  map[string]map[string]string `json:"banks,omitempty"`
	// Error says why the PCRs could not be read (no TPM device, a TPM 1.2,
	// a command that failed).
	Error string `json:"error,omitempty"`
	// NoTPM is set when the machine has no TPM device at all.
	NoTPM bool `json:"no_tpm,omitempty"`
}

// Set records the value of PCR i in bank a.
func (p *PCRs) Set(a Alg, i uint32, v []byte) {
	if p.Banks == nil {
		p.Banks = map[string]map[string]string{}
	}
	if p.Banks[a.String()] == nil {
		p.Banks[a.String()] = map[string]string{}
	}
	p.Banks[a.String()][fmt.Sprint(i)] = hex.EncodeToString(v)
}

// Bank returns bank a's values by PCR index, or nil when the TPM has no
// such bank. Malformed entries are errors.
func (p *PCRs) Bank(a Alg) (map[uint32][]byte, error) {
	b, ok := p.Banks[a.String()]
	if !ok {
		return nil, nil
	}
	out := map[uint32][]byte{}
	for k, v := range b {
		var i uint32
		if _, err := fmt.Sscan(k, &i); err != nil || i > 255 {
			return nil, fmt.Errorf("%s bank: PCR index %q", a, k)
		}
		d, err := hex.DecodeString(v)
		if err != nil || (a.Size() != 0 && len(d) != a.Size()) {
			return nil, fmt.Errorf("%s bank: PCR %d value %q is not a %d-byte hex digest", a, i, v, a.Size())
		}
		out[i] = d
	}
	return out, nil
}

// Algs returns the banks present, in algorithm-ID order; banks of unknown
// algorithms are left out.
func (p *PCRs) Algs() []Alg {
	var out []Alg
	for n := range p.Banks {
		if a, ok := ParseAlg(n); ok {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// ParsePCRs reads the JSON form.
func ParsePCRs(b []byte) (*PCRs, error) {
	var p PCRs
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("PCR values: %w", err)
	}
	return &p, nil
}

// JSON writes the JSON form.
func (p *PCRs) JSON() []byte {
	b, _ := json.MarshalIndent(p, "", "  ")
	return append(b, '\n')
}
