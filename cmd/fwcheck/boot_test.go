package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwcheck/fwcheck/image"
)

func TestBootRunPowerRuns(t *testing.T) {
	parse := func(s string) image.Config {
		c, err := image.ParseCmdline(s)
		assert.NoError(t, err)
		return c
	}
	// S3 with a results partition journals there.
	p := bootRun(parse("fwcheck.s3=3"), "/mnt/r")
	assert.Equal(t, []string{"all", "s3"}, p.ids)
	assert.True(t, p.rest)
	assert.False(t, p.reboot)
	assert.Equal(t, map[string]string{"s3.cycles": "3", "s3.journal": "/mnt/r/fwcheck-s3.jsonl"}, p.settings.Raw())
	assert.Empty(t, p.errs)

	// Without one, neither cycles: the s3 check is told to refuse (its
	// result says why, with the remedy), and a reboot run, which would
	// begin afresh on every boot, is not planned.
	p = bootRun(parse("fwcheck.s3=3 fwcheck.reboot=5"), "")
	assert.False(t, p.reboot)
	assert.Equal(t, []string{"all", "s3"}, p.ids)
	assert.Equal(t, map[string]string{"s3.cycles": "3", "s3.require-journal": "true"}, p.settings.Raw())
	assert.Len(t, p.errs, 2)
	assert.Contains(t, p.errs[0], "fwcheck.s3=3: no FWCHECK disk for the journal")
	assert.Contains(t, p.errs[0], "fwcheck.s3.journal=none", "the remedy")
	assert.Contains(t, p.errs[1], "fwcheck.reboot=5: no FWCHECK partition")
	// Asked for, S3 cycles without a journal.
	p = bootRun(parse("fwcheck.s3=3 fwcheck.s3.journal=none"), "")
	assert.Equal(t, map[string]string{"s3.cycles": "3", "s3.journal": "none"}, p.settings.Raw())
	assert.Empty(t, p.errs)
	assert.Equal(t, "", journalsNeeded(parse("fwcheck.s3=3 fwcheck.s3.journal=none")))
	assert.Equal(t, "the s3 journal", journalsNeeded(parse("fwcheck.s3=3")))
	assert.Equal(t, "the s3 and reboot journals", journalsNeeded(parse("fwcheck.s3=3 fwcheck.reboot=2")))
	assert.Equal(t, "", journalsNeeded(parse("fwcheck.run=fadt")))

	// A reboot run goes first and alone; then every safe check, or what
	// fwcheck.run names.
	p = bootRun(parse("fwcheck.reboot=5 fwcheck.reboot.method=acpi"), "/mnt/r")
	assert.True(t, p.reboot)
	assert.True(t, p.rest)
	assert.Nil(t, p.ids)
	assert.Equal(t, map[string]string{"reboot.cycles": "5", "reboot.journal": "/mnt/r/fwcheck-reboot.jsonl", "reboot.method": "acpi"}, p.settings.Raw())
	p = bootRun(parse("fwcheck.run=reboot fwcheck.reboot=2 fwcheck.reboot.journal=/mnt/x/j"), "/mnt/r")
	assert.True(t, p.reboot)
	assert.False(t, p.rest, "nothing besides the reboot run")
	assert.Equal(t, "/mnt/x/j", p.settings.Raw()["reboot.journal"])
	p = bootRun(parse("fwcheck.run=fadt fwcheck.reboot=2"), "/mnt/r")
	assert.Equal(t, []string{"fadt"}, p.ids)

	// A setting for a check that does not exist is reported once.
	p = bootRun(parse("fwcheck.nosuch.x=1"), "")
	assert.Len(t, p.errs, 1)
}
