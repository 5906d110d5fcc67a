package all_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/all"
)

// The check list is validated here, not when a process first takes it:
// IDs valid and unique, every check complete, label names unique.
func TestChecksAreValid(t *testing.T) {
	require.NoError(t, tests.Validate(all.Checks()))
}
