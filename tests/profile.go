package tests

import (
	"fmt"
	"slices"
	"strings"
)

// Profile is a certification programme's view of a run (Arm's SBBR, for
// one): checks of its own, which run only under it, and the severities it
// gives other checks' labels. It is a declarative value like Check: a
// driver takes the profile the user names (--profile, fwcheck.profile=),
// adds its checks to the selection (Profile.Select) and puts it in the
// run's Env; the pass applies the overrides to every finding it reports,
// so a check never tests which profile it runs under to pick a severity.
//
// The default run has no profile: labels keep the severities their checks
// declare.
type Profile struct {
	// Name is what the user types; the same rule as a check ID.
	Name string
	// Title is one line saying what the profile certifies.
	Title string
	// Spec is the specification the profile applies.
	Spec string
	// Checks run only under the profile (a required-tables list that
	// means nothing outside it).
	Checks []*Check
	// Overrides give labels of any check (the profile's own or others')
	// another severity, or make them warnings, under this profile.
	Overrides []Override
}

// Override is one label's treatment under a profile.
type Override struct {
	// Label is the label's name.
	Label string
	// Severity replaces the label's severity (None: keep it).
	Severity Severity
	// Warn reports the label's failures as warnings: the profile does not
	// require what the label asks for, but recommends it.
	Warn bool
	// Why says in a few words why the profile treats the label so; it is
	// shown in `fwcheck list --profile`.
	Why string
}

// override returns the profile's override of label name, or nil.
func (pr *Profile) override(name string) *Override {
	if pr == nil {
		return nil
	}
	for i := range pr.Overrides {
		if pr.Overrides[i].Label == name {
			return &pr.Overrides[i]
		}
	}
	return nil
}

// apply gives f the treatment the profile's overrides give its label.
func (pr *Profile) apply(f *Finding) {
	o := pr.override(f.Label)
	if o == nil || f.Kind == KindPass || f.Kind == KindInfo {
		return
	}
	// A warning never becomes a failure: a label is reported as a
	// warning while no real machine has confirmed it (the project's rule),
	// and a profile does not overrule that.
	if o.Warn && f.Kind == KindFail {
		f.Kind = KindWarning
	}
	if o.Severity != None {
		f.Severity = o.Severity
	}
}

// Validate reports what makes the profile unusable with checks cs (the
// checks it may run with): a bad name, a check of its own that is not
// valid among cs, an override of a label no check declares, an override
// that gives a label no severity to fail with.
func (pr *Profile) Validate(cs []*Check) error {
	if !checkID(pr.Name) || pr.Title == "" {
		return fmt.Errorf("profile %q needs a name (lowercase words joined by hyphens) and a title", pr.Name)
	}
	all := append(slices.Clone(cs), pr.Checks...)
	if err := Validate(all); err != nil {
		return fmt.Errorf("profile %s: %w", pr.Name, err)
	}
	labels := map[string]*Label{}
	for _, c := range all {
		for _, l := range c.Labels {
			labels[l.Name] = l
		}
	}
	seen := map[string]bool{}
	for _, o := range pr.Overrides {
		l := labels[o.Label]
		switch {
		case l == nil:
			return fmt.Errorf("profile %s overrides label %q, which no check declares", pr.Name, o.Label)
		case seen[o.Label]:
			return fmt.Errorf("profile %s overrides label %s twice", pr.Name, o.Label)
		case !o.Warn && o.Severity == None:
			return fmt.Errorf("profile %s: override of %s changes nothing", pr.Name, o.Label)
		case o.Severity != None && (o.Severity < Low || o.Severity > Critical):
			return fmt.Errorf("profile %s: label %s has no valid severity", pr.Name, o.Label)
		case strings.TrimSpace(o.Why) == "":
			return fmt.Errorf("profile %s: override of %s says not why", pr.Name, o.Label)
		}
		seen[o.Label] = true
	}
	return nil
}

// Select returns sel's checks from cs, with the profile's own checks
// added (they run whenever the profile does, unless skipped by ID or
// category), in run order. A nil profile selects from cs alone.
func (pr *Profile) Select(cs []*Check, sel Selection) ([]*Check, error) {
	if pr == nil {
		return Select(cs, sel)
	}
	all := append(slices.Clone(cs), pr.Checks...)
	out, err := Select(all, sel)
	if err != nil {
		return nil, err
	}
	return pr.withOwn(out, all, sel), nil
}

// SelectLenient is Select for the live image (see tests.SelectLenient).
func (pr *Profile) SelectLenient(cs []*Check, sel Selection) ([]*Check, []error) {
	if pr == nil {
		return SelectLenient(cs, sel)
	}
	all := append(slices.Clone(cs), pr.Checks...)
	out, errs := SelectLenient(all, sel)
	return pr.withOwn(out, all, sel), errs
}

// withOwn adds the profile's checks that sel does not exclude to out.
func (pr *Profile) withOwn(out, all []*Check, sel Selection) []*Check {
	skip := canonicalIDs(all, sel.Skip)
	for _, c := range pr.Checks {
		if slices.Contains(out, c) || slices.Contains(skip, c.ID) ||
			len(sel.Categories) > 0 && !slices.Contains(sel.Categories, c.Category) {
			continue
		}
		out = append(out, c)
	}
	sortChecks(out)
	return out
}

// FindProfile returns the profile in ps named name; "" is no profile (nil,
// nil). An unknown name is an error listing the known ones.
func FindProfile(ps []*Profile, name string) (*Profile, error) {
	if name == "" {
		return nil, nil
	}
	var names []string
	for _, p := range ps {
		if p.Name == strings.ToLower(name) {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(names, ", "))
}
