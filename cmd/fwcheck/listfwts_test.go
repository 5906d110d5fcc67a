package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// list --json names the fwts tests each check corresponds to.
func TestListJSONNamesFWTSTests(t *testing.T) {
	code, out, _ := fwcheck(t, "", "list", "--json")
	require.Equal(t, exitOK, code)
	var list []struct {
		ID   string   `json:"id"`
		FWTS []string `json:"fwts"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	got := map[string][]string{}
	for _, c := range list {
		got[c.ID] = c.FWTS
	}
	assert.Equal(t, []string{"dmar"}, got["dmar"])
	assert.Equal(t, []string{"fadt", "facs"}, got["fadt"])
	assert.Nil(t, got["reset"], "a check without an fwts counterpart has no fwts key")
}

// The text listing ends each line with the check's fwts tests, when it has any.
func TestListTextNamesFWTSTests(t *testing.T) {
	code, out, _ := fwcheck(t, "", "list")
	require.Equal(t, exitOK, code)
	assert.Regexp(t, `(?m)^acpitables .*  fwts: acpitables,rsdp,rsdt,xsdt$`, out)
	assert.Regexp(t, `(?m)^hest .*  fwts: hest$`, out)
	assert.NotRegexp(t, `(?m)^reset .*fwts:`, out, "a check without an fwts counterpart has no fwts column")
}
