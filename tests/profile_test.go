package tests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/input"
)

// profileFixture is a check reporting one failure and one warning, and a
// profile that demotes the failure to a warning and raises the warning's
// severity, with a check of its own.
func profileFixture() (*Check, *Profile) {
	fl := NewLabel("FixtureFail", High, "spec", "advice")
	wl := NewLabel("FixtureWarn", Low, "spec", "advice")
	c := &Check{ID: "fixture", Title: "t", Category: ACPI, Labels: []*Label{fl, wl}, Run: func(p *Pass) error {
		p.Fail(fl, "a failure")
		p.Warn(wl, "a warning")
		return nil
	}}
	own := &Check{ID: "fixture-own", Title: "t", Category: BIOS, Run: func(p *Pass) error {
		p.Passed("profile %s", p.Profile().Name)
		return nil
	}}
	pr := &Profile{Name: "fixture-profile", Title: "t", Checks: []*Check{own}, Overrides: []Override{
		{Label: "FixtureFail", Warn: true, Why: "only recommended here"},
		{Label: "FixtureWarn", Severity: Critical, Why: "required here"},
	}}
	return c, pr
}

func TestProfileOverrides(t *testing.T) {
	c, pr := profileFixture()
	m := input.New(input.Empty(), input.Options{})
	plain := RunOne(&Env{Machine: m}, c)
	assert.Equal(t, StatusFailed, plain.Status)
	assert.Equal(t, []Kind{KindFail, KindWarning}, []Kind{plain.Findings[0].Kind, plain.Findings[1].Kind})
	assert.Equal(t, Low, plain.Findings[1].Severity)

	under := RunOne(&Env{Machine: m, Profile: pr}, c)
	assert.Equal(t, StatusWarning, under.Status, "the profile makes the failure a warning")
	assert.Equal(t, KindWarning, under.Findings[0].Kind)
	assert.Equal(t, High, under.Findings[0].Severity, "a demoted failure keeps its severity")
	assert.Equal(t, KindWarning, under.Findings[1].Kind, "a warning never becomes a failure")
	assert.Equal(t, Critical, under.Findings[1].Severity)
}

func TestProfileSelect(t *testing.T) {
	c, pr := profileFixture()
	cs := []*Check{c}
	got, err := pr.Select(cs, Selection{})
	require.NoError(t, err)
	assert.Equal(t, []string{"fixture", "fixture-own"}, ids(got))
	got, err = pr.Select(cs, Selection{Skip: []string{"fixture-own"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"fixture"}, ids(got))
	got, err = pr.Select(cs, Selection{Categories: []Category{ACPI}})
	require.NoError(t, err)
	assert.Equal(t, []string{"fixture"}, ids(got))
	got, err = (*Profile)(nil).Select(cs, Selection{})
	require.NoError(t, err)
	assert.Equal(t, []string{"fixture"}, ids(got), "no profile, no profile checks")
	got, errs := pr.SelectLenient(cs, Selection{IDs: []string{"fixture", "nope"}})
	assert.Len(t, errs, 1)
	assert.Equal(t, []string{"fixture", "fixture-own"}, ids(got))

	r := RunOne(&Env{Machine: input.New(input.Empty(), input.Options{}), Profile: pr}, pr.Checks[0])
	assert.Equal(t, "profile fixture-profile", r.Findings[0].Message)
}

func TestProfileValidate(t *testing.T) {
	c, pr := profileFixture()
	require.NoError(t, pr.Validate([]*Check{c}))
	bad := *pr
	bad.Overrides = append(bad.Overrides, Override{Label: "NoSuchLabel", Warn: true, Why: "x"})
	assert.ErrorContains(t, bad.Validate([]*Check{c}), "no check declares")
	bad = *pr
	bad.Overrides = []Override{{Label: "FixtureFail", Why: "x"}}
	assert.ErrorContains(t, bad.Validate([]*Check{c}), "changes nothing")
	bad = *pr
	bad.Overrides = []Override{{Label: "FixtureFail", Warn: true}}
	assert.ErrorContains(t, bad.Validate([]*Check{c}), "not why")
	bad = *pr
	bad.Checks = []*Check{c}
	assert.ErrorContains(t, bad.Validate([]*Check{c}), "duplicate")
	bad = *pr
	bad.Name = "Bad Name"
	assert.Error(t, bad.Validate([]*Check{c}))

	p, err := FindProfile([]*Profile{pr}, "fixture-profile")
	require.NoError(t, err)
	assert.Same(t, pr, p)
	p, err = FindProfile([]*Profile{pr}, "")
	assert.NoError(t, err)
	assert.Nil(t, p)
	_, err = FindProfile([]*Profile{pr}, "sbbr")
	assert.ErrorContains(t, err, "known: fixture-profile")
}
