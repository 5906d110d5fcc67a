package gtdt

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// gtdt builds a revision-2 GTDT with the given non-secure EL1 timer GSIV
// and, when wd, one SBSA watchdog with the given interrupt.
func gtdt(nsEL1 uint32, wd bool, wdIRQ uint32) []byte {
	body := make([]byte, 96-36)
	binary.LittleEndian.PutUint32(body[48-36:], 29)
	binary.LittleEndian.PutUint32(body[56-36:], nsEL1)
	binary.LittleEndian.PutUint32(body[64-36:], 27)
	binary.LittleEndian.PutUint32(body[72-36:], 26)
	binary.LittleEndian.PutUint32(body[92-36:], 96)
	if wd {
		binary.LittleEndian.PutUint32(body[88-36:], 1)
		w := make([]byte, 28)
		w[0], w[1] = 1, 28
		binary.LittleEndian.PutUint64(w[4:], 0x2a450000)
		binary.LittleEndian.PutUint64(w[12:], 0x2a440000)
		binary.LittleEndian.PutUint32(w[20:], wdIRQ)
		body = append(body, w...)
	}
	return checktest.SDT("GTDT", 2, body)
}

func TestGTDT(t *testing.T) {
	for _, c := range []struct {
		name   string
		raw    []byte
		status tests.Status
		label  string
	}{
		{"sbsa", gtdt(30, true, 92), tests.StatusPassed, ""},
		{"no watchdog", gtdt(30, false, 0), tests.StatusWarning, "GTDTNoWatchdog"},
		{"timer not a PPI", gtdt(45, true, 92), tests.StatusWarning, "GTDTTimerNotPPI"},
		{"watchdog on a PPI", gtdt(30, true, 20), tests.StatusWarning, "GTDTWatchdog"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := checktest.Run(t, Check, checktest.Machine(t, nil, checktest.Table{Raw: c.raw}))
			assert.Equal(t, c.status, r.Status, tests.Render([]tests.Result{r}))
			if c.label != "" {
				assert.True(t, hasLabel(r, c.label), tests.Render([]tests.Result{r}))
			}
		})
	}
}

func hasLabel(r tests.Result, l string) bool {
	for _, f := range r.Findings {
		if f.Label == l {
			return true
		}
	}
	return false
}
