package tests

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/efi"
	"github.com/fwcheck/fwcheck/input"
)

// writer is a Control that can also hand out a variable store.
type writer struct {
	fakeControl
	vs *input.MemVariables
}

func (w *writer) Variables() (input.VariableStore, error) { return w.vs, nil }

func TestWritesVariablesFlag(t *testing.T) {
	g := efi.MustGUID("f3c1a2d4-6b7e-4c59-8e0a-1d2f3b4c5e6f")
	write := func(p *Pass) error {
		vs, err := input.Variables(p.Control())
		if err != nil {
			return err
		}
		if err := vs.Set("A", g, efi.NonVolatile|efi.BootserviceAccess|efi.RuntimeAccess, []byte{1}); err != nil {
			return err
		}
		p.Passed("written")
		return nil
	}
	vars := &Check{ID: "vars", Title: "v", Category: UEFI, Flags: WritesVariables, Run: write}
	assert.Equal(t, []string{"writes-variables"}, WritesVariables.Strings())
	assert.True(t, WritesVariables.RunsOnlyWhenNamed())
	sel, err := Select([]*Check{vars}, Selection{})
	assert.NoError(t, err)
	assert.Empty(t, sel, "not selected unless named")

	w := &writer{vs: &input.MemVariables{Size: 1000, MaxVar: 500}}
	r := RunOne(&Env{Machine: input.New(input.Empty(), input.Options{}), Control: w}, vars)
	assert.Equal(t, StatusPassed, r.Status, r.Reason)
	ns, _ := w.vs.Names()
	assert.Len(t, ns, 1)

	// A Control without a store refuses; a check without the flag may not ask.
	r = RunOne(&Env{Machine: input.New(input.Empty(), input.Options{}), Control: &fakeControl{}}, vars)
	assert.Equal(t, StatusAborted, r.Status)
	assert.Contains(t, r.Reason, input.ErrNoControl.Error())
	unsafe := &Check{ID: "unsafe", Title: "u", Category: Power, Flags: Unsafe, Run: write}
	r = RunOne(&Env{Machine: input.New(input.Empty(), input.Options{}), Control: w}, unsafe)
	assert.Equal(t, StatusAborted, r.Status)
	assert.Contains(t, r.Reason, "asks to write UEFI variables without the writes-variables flag")
	// And the flag grants no reset.
	reboots := &Check{ID: "reboots", Title: "r", Category: UEFI, Flags: WritesVariables, Run: func(p *Pass) error { return p.Control().Reboot("") }}
	r = RunOne(&Env{Machine: input.New(input.Empty(), input.Options{}), Control: w}, reboots)
	assert.Contains(t, r.Reason, "without the unsafe flag")
}
