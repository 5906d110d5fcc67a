package esrt

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

type entry struct {
	class                       string
	version, lowest, lastStatus int
}

func esrtRun(t *testing.T, count, max int, es ...entry) tests.Result {
	d := "sys/firmware/efi/esrt/"
	files := map[string][]byte{
		d + "fw_resource_count":     []byte(fmt.Sprintln(count)),
		d + "fw_resource_count_max": []byte(fmt.Sprintln(max)),
		d + "fw_resource_version":   []byte("1\n"),
	}
	for i, e := range es {
		p := fmt.Sprintf("%sentries/entry%d/", d, i)
		for f, v := range map[string]string{"fw_class": e.class, "fw_type": "1", "fw_version": fmt.Sprint(e.version),
			"lowest_supported_fw_version": fmt.Sprint(e.lowest), "capsule_flags": "0x0", "last_attempt_version": fmt.Sprint(e.version),
			"last_attempt_status": fmt.Sprint(e.lastStatus)} {
			files[p+f] = []byte(v + "\n")
		}
	}
	return checktest.Run(t, Check, checktest.FilesMachine(t, files))
}

const (
	sys = "2ab8f5cc-1d8a-4e63-a1c7-2f0a9c06e1b3"
	ec  = "8d6a6a33-4a49-4b3f-9e55-0e2f7b2a5c11"
)

func TestESRT(t *testing.T) {
	r := esrtRun(t, 2, 2, entry{sys, 5, 3, 0}, entry{ec, 2, 1, 0})
	assert.Equal(t, tests.StatusPassed, r.Status, "%+v", r.Findings)
	for name, c := range map[string]struct {
		r    tests.Result
		want []string
	}{
		"duplicate class":  {esrtRun(t, 2, 2, entry{sys, 5, 3, 0}, entry{sys, 2, 1, 0}), []string{"ESRTDuplicateClass"}},
		"failed update":    {esrtRun(t, 1, 1, entry{sys, 5, 3, 5}), []string{"ESRTLastAttemptFailed"}},
		"lowest above":     {esrtRun(t, 1, 1, entry{sys, 5, 7, 0}), []string{"ESRTLowestAboveCurrent"}},
		"count off":        {esrtRun(t, 3, 4, entry{sys, 5, 3, 0}), []string{"ESRTCountMismatch"}},
		"count over max":   {esrtRun(t, 1, 0, entry{sys, 5, 3, 0}), []string{"ESRTCountMismatch"}},
		"class not a GUID": {esrtRun(t, 1, 1, entry{"nonsense", 5, 3, 0}), []string{"ESRTMalformed"}},
	} {
		assert.Equal(t, c.want, checktest.FailLabels(c.r), "%s: %+v", name, c.r.Findings)
	}
	f := checktest.FindingWith(esrtRun(t, 1, 1, entry{sys, 5, 3, 5}), "ESRTLastAttemptFailed")
	assert.Contains(t, f.Message, "authentication error")

	none := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"sys/firmware/efi/fw_platform_size": []byte("64\n")}))
	assert.Equal(t, tests.StatusNotApplicable, none.Status, "no ESRT is legal")
	legacy := checktest.Run(t, Check, checktest.FilesMachine(t, map[string][]byte{"proc/version": []byte("Linux")}))
	assert.Equal(t, tests.StatusNotApplicable, legacy.Status)
}
