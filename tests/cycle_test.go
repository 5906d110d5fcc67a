package tests

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCycleRecords: the records a check keeps with RecordCycles read back
// as the same typed values, in this process and from a results document;
// a document's field of the wrong type or an element that is no object
// costs only that field or element, and "cycles" cannot be written
// through the untyped Record.
func TestCycleRecords(t *testing.T) {
	want := []CycleRecord{
		{Cycle: 1, Status: "passed", AsleepMS: 5012.5, KernelResumeMS: 812.25, SlowestDevice: "i915 0000:00:02.0", SlowestMS: 80},
		{Cycle: 2, Status: "hung", Method: "acpi", Problems: []string{"needed a power cycle"}},
	}
	c := &Check{ID: "cycler", Title: "t", Category: Power, Run: func(p *Pass) error {
		p.RecordCycles(want)
		return nil
	}}
	r := run(c)
	assert.Equal(t, want, r.Cycles())

	b, err := json.Marshal(r)
	require.NoError(t, err)
	var back Result
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, want, back.Cycles())

	var doc Result
	require.NoError(t, json.Unmarshal([]byte(`{"data":{"cycles":[{"cycle":7,"status":"passed","asleep_ms":"5 s","kernel_resume_ms":12},3,{"status":"failed"}]}}`), &doc))
	assert.Equal(t, []CycleRecord{{Cycle: 7, Status: "passed", KernelResumeMS: 12}, {Cycle: 2}, {Cycle: 3, Status: "failed"}}, doc.Cycles())
	assert.Nil(t, (&Result{}).Cycles())

	bad := run(&Check{ID: "bad", Title: "t", Category: Power, Run: func(p *Pass) error {
		p.Record("cycles", want)
		return nil
	}})
	assert.Equal(t, StatusAborted, bad.Status)
	assert.Nil(t, bad.Cycles())
}
