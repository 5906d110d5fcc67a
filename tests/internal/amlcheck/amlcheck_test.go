package amlcheck_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
)

// The AML checks of one run share one namespace, computed by the machine
// once per phase: no package keeps one.
func TestNamespaceIsOnePerPhase(t *testing.T) {
	var seen []*amlcheck.Loaded
	check := func(id string) *tests.Check {
		return &tests.Check{ID: id, Title: "t", Category: tests.ACPI, Inputs: []input.Decl{input.ACPITables}, Run: func(p *tests.Pass) error {
			l := amlcheck.Load(p)
			require.NotNil(t, l)
			seen = append(seen, l)
			p.Passed("loaded %d devices", len(amlcheck.Devices(l.NS)))
			return nil
		}}
	}
	// Device (DEV0) {}: ExtOpPrefix, DeviceOp, PkgLength 5, the name.
	dsdt := checktest.Table{Raw: checktest.SDT("DSDT", 2, []byte{0x5B, 0x82, 0x05, 'D', 'E', 'V', '0'})}
	m := checktest.Machine(t, nil, dsdt)
	rs := tests.Run(&tests.Env{Machine: m}, []*tests.Check{check("a"), check("b")})
	for _, r := range rs {
		require.Equal(t, tests.StatusPassed, r.Status, r.Reason)
	}
	require.Len(t, seen, 2)
	assert.Same(t, seen[0], seen[1])
	assert.Len(t, amlcheck.Devices(seen[0].NS), 1)

	m.NewPhase()
	tests.Run(&tests.Env{Machine: m}, []*tests.Check{check("c")})
	assert.NotSame(t, seen[0], seen[2], "a new phase loads the namespace afresh")

	// Another machine, another namespace.
	tests.Run(&tests.Env{Machine: checktest.Machine(t, nil, dsdt)}, []*tests.Check{check("d")})
	assert.NotSame(t, seen[2], seen[3])
}
