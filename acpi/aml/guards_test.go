package aml

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGuards loads testdata/guards.asl: a CondRefOf guard spelled
// differently from its use (absolute against ^, ^ against absolute) and a
// Scope inside If (CondRefOf) give no problem; an unguarded reference
// does; a Scope of an object only External declares is ExternalScope.
func TestGuards(t *testing.T) {
	_, probs := Load(fixture(t, "guards.aml"))
	var got []string
	for _, p := range probs {
		got = append(got, p.Kind.String()+": "+p.Msg)
	}
	assert.ElementsMatch(t, []string{
		`external-scope: Scope (_SB.XDEV): \_SB.XDEV is only declared External when the table loads; ACPICA fails the lookup (AE_NOT_FOUND) and drops the scope's body`,
		`unresolved: \_SB.PCI0.QUX0 not found (in scope \_SB.PCI0.DEV0.MTH0)`,
	}, got)
}

func TestLexical(t *testing.T) {
	ns := newNamespace()
	sb := ns.Root.Child("_SB_")
	assert.Equal(t, []string{`\_SB_.PCI0`}, lexical(sb, `\_SB.PCI0`))
	assert.Equal(t, []string{`\_SB_.PCI0`, `\PCI0`}, lexical(sb, `PCI0`))
	assert.Equal(t, []string{`\X___`}, lexical(sb, `^X`))
	assert.Equal(t, []string{`\_SB_`}, lexical(sb, ``+`\_SB`))
}
