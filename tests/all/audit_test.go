package all

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/acpistruct"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// auditDoc is the audit of issue 25: a row per table.
const auditDoc = "../../docs/acpi-tables.md"

// issue25Tables are the tables issue 25 lists (its table list and its
// parity map): each must have a row in the audit.
var issue25Tables = []string{
	"FPDT", "BGRT", "WSMT", "DMAR", "IVRS", "LPIT", "DBG2", "DBGP", "SPCR", "ECDT",
	"HEST", "ERST", "EINJ", "BERT", "SRAT", "SLIT", "HMAT", "MSCT", "CRAT", "CDIT",
	"PHAT", "WDAT", "SPMI", "SBST", "CSRT", "SDEV", "PCCT", "PMTT", "MPST", "NFIT", "PPTT", "NHLT",
	"MCHI", "UEFI", "WPBT", "DRTM", "WAET", "SLIC", "MSDM", "ASF!", "CEDT", "CCEL", "SVKL", "VIOT",
	"STAO", "XENV", "IBFT",
	"FACS", "RSDP", "XSDT", "RSDT", "FACP",
}

// notStandalone are rows whose table a check reaches through another
// table (the FACS through the FADT, the root tables through the RSDP),
// so a lone copy of it is no test of the check.
var notStandalone = map[string]bool{"FACS": true, "RSDP": true, "XSDT": true, "RSDT": true}

type auditRow struct {
	sig, check, parser, fwts string
}

func readAudit(t *testing.T) (string, []auditRow) {
	t.Helper()
	raw, err := os.ReadFile(auditDoc)
	require.NoError(t, err)
	var rows []auditRow
	for _, l := range strings.Split(string(raw), "\n") {
		cells := strings.Split(l, "|")
		if len(cells) != 9 || len(strings.TrimSpace(cells[1])) != 4 {
			continue
		}
		c := func(i int) string { return strings.TrimSpace(cells[i]) }
		rows = append(rows, auditRow{sig: c(1), check: c(2), parser: c(3), fwts: c(5)})
	}
	return string(raw), rows
}

// acpiFuncs are the exported functions package acpi declares.
func acpiFuncs(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("../../acpi/*.go")
	require.NoError(t, err)
	re := regexp.MustCompile(`(?m)^func ([A-Z]\w*)\(`)
	out := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			out[m[1]] = true
		}
	}
	return out
}

// TestACPIAuditTable holds docs/acpi-tables.md to the code, so that the
// audit cannot rot: every table of issue 25 has a row; each row's check
// is registered, its parser is a function of package acpi, its fwts
// names are the check's mapping, and the check, given the table alone,
// does not call it absent (a table the check does not read would leave
// it not applicable); the labels section lists each check's labels.
// -update rewrites the labels section.
func TestACPIAuditTable(t *testing.T) {
	doc, rows := readAudit(t)
	funcs := acpiFuncs(t)
	bySig := map[string]auditRow{}
	for _, r := range rows {
		assert.NotContains(t, bySig, r.sig, "two rows for %s", r.sig)
		bySig[r.sig] = r
	}
	for _, sig := range issue25Tables {
		assert.Contains(t, bySig, sig, "issue 25's %s has no row in %s", sig, auditDoc)
	}
	for _, sig := range acpistruct.Signatures() {
		if assert.Contains(t, bySig, sig, "acpi-structure reads %s; the audit has no row", sig) {
			assert.Equal(t, "acpi-structure", bySig[sig].check, sig)
		}
	}
	cs := Checks()
	var ids []string
	for _, r := range rows {
		c := tests.Lookup(cs, r.check)
		if !assert.NotNil(t, c, "%s: check %q is not registered", r.sig, r.check) {
			continue
		}
		if !slices.Contains(ids, c.ID) {
			ids = append(ids, c.ID)
		}
		assert.True(t, funcs[r.parser], "%s: acpi.%s does not exist", r.sig, r.parser)
		var want []string
		if r.fwts != "—" {
			want = strings.Split(r.fwts, ", ")
		}
		for _, n := range want {
			assert.Contains(t, FWTS(c.ID), n, "%s: fwts test %s is not in check %s's mapping", r.sig, n, c.ID)
		}
		if r.fwts == "—" {
			assert.Empty(t, FWTS(c.ID), "%s: the check maps to fwts tests the row does not name", r.sig)
		}
		if notStandalone[r.sig] {
			continue
		}
		body := make([]byte, 64)
		m := checktest.Machine(t, nil, checktest.Table{Raw: checktest.SDT(r.sig, 1, body)})
		res := tests.RunOne(&tests.Env{Machine: m}, c)
		assert.NotContains(t, []tests.Status{tests.StatusNotApplicable, tests.StatusSkipped, tests.StatusAborted}, res.Status,
			"%s: check %s given the table says %s: %s", r.sig, c.ID, res.Status, res.Reason)
	}

	// The labels section.
	const head = "## Labels by check\n"
	i := strings.Index(doc, head)
	require.GreaterOrEqual(t, i, 0, "no %q section", head)
	j := strings.Index(doc[i:], "\n### ")
	require.GreaterOrEqual(t, j, 0, "the labels section lists no check")
	var b strings.Builder
	slices.Sort(ids)
	for _, id := range ids {
		c := tests.Lookup(cs, id)
		names := make([]string, 0, len(c.Labels))
		for _, l := range c.Labels {
			names = append(names, "`"+l.Name+"`")
		}
		fmt.Fprintf(&b, "\n### %s\n\n%d labels: %s.\n", id, len(names), strings.Join(names, ", "))
	}
	want := strings.TrimRight(doc[:i+j], "\n") + "\n" + b.String()
	if *checktest.Update {
		require.NoError(t, os.WriteFile(auditDoc, []byte(want), 0o644))
		return
	}
	assert.Equal(t, want[i:], doc[i:], "%s: the labels section is stale (go test ./tests/all -run TestACPIAuditTable -update)", auditDoc)
}

// tableSections are the ACPI 6.5 sections that define the tables the
// checks read: a label of the check that cites ACPI 6.5 must cite the
// table's own section first. (ECDT is §5.2.15; §5.2.16 is the SRAT. 6.5
// inserted RAS2 as §5.2.21, so MPST is §5.2.22 with PMTT nested in it as
// §5.2.22.12, and BGRT onwards sit one further on than in 6.4: see
// docs/acpi-tables.md.)
var tableSections = map[string][]string{
	"ecdt": {"§5.2.15"}, "srat": {"§5.2.16"}, "slit": {"§5.2.17"}, "msct": {"§5.2.19"},
	"bgrt": {"§5.2.23"}, "fpdt": {"§5.2.24"}, "gtdt": {"§5.2.25"}, "hmat": {"§5.2.28"},
	"pptt": {"§5.2.30"}, "phat": {"§5.2.31"}, "nfit": {"§5.2.26"}, "pcct": {"§14.1"}, "sdev": {"§5.2.27"}, "mpst": {"§5.2.22"}, "madt": {"§5.2.12"}, "hest": {"§18.3.2"}, "bert": {"§18.3"},
	"erst": {"§18.5"}, "einj": {"§18.6"}, "fadt": {"§5.2.9", "§5.2.10", "§4.8", "§5.2.3.2"},
	"checksum": {"§5.2.5.3", "§5.2.6"}, "acpi-tables": {"§5.2"},
}

// structureSections: the same for the tables acpi-structure reads.
var structureSections = map[string]string{
	"SBST": "§5.2.14", "PMTT": "§5.2.22.12",
	"CCEL": "§5.2.34", "SVKL": "§5.2.35",
}

// TestACPILabelsHaveSpec: every label of every ACPI check names the
// specification it rests on, with a section when that is the ACPI
// specification, and advice that says what to change; a table check's
// ACPI citations start with its table's section.
func TestACPILabelsHaveSpec(t *testing.T) {
	n := 0
	for _, c := range Checks() {
		if c.Category != tests.ACPI {
			continue
		}
		if secs, ok := tableSections[c.ID]; ok && strings.HasPrefix(c.Spec, "ACPI 6.5 §") {
			rest := strings.TrimPrefix(c.Spec, "ACPI 6.5 ")
			assert.True(t, slices.ContainsFunc(secs, func(s string) bool { return strings.HasPrefix(rest, s) }),
				"check %s: %q does not start with the table's section %v", c.ID, c.Spec, secs)
		}
		for _, l := range c.Labels {
			n++
			spec := strings.TrimSpace(l.Spec)
			assert.NotEmpty(t, spec, "%s (%s) has no spec", l.Name, c.ID)
			if strings.HasPrefix(spec, "ACPI") {
				assert.Contains(t, spec, "§", "%s (%s): %q gives no section", l.Name, c.ID, spec)
			}
			if secs, ok := tableSections[c.ID]; ok && strings.HasPrefix(spec, "ACPI 6.5 §") {
				rest := strings.TrimPrefix(spec, "ACPI 6.5 ")
				assert.True(t, slices.ContainsFunc(secs, func(s string) bool { return strings.HasPrefix(rest, s) }),
					"%s (%s): %q does not start with the table's section %v", l.Name, c.ID, spec, secs)
			}
			adv := strings.TrimSpace(l.Advice)
			assert.GreaterOrEqual(t, len(adv), 40, "%s (%s): advice too short to say what to change", l.Name, c.ID)
			assert.True(t, strings.HasSuffix(adv, ".") || strings.HasSuffix(adv, ")"), "%s (%s): advice is not a sentence", l.Name, c.ID)
		}
	}
	t.Logf("%d labels of ACPI checks", n)
	for _, sig := range acpistruct.Signatures() {
		spec := acpistruct.Spec(sig)
		assert.NotEmpty(t, spec, sig)
		if want, ok := structureSections[sig]; ok {
			assert.Equal(t, "ACPI 6.5 "+want, spec, sig)
		} else {
			assert.False(t, strings.HasPrefix(spec, "ACPI"), "%s cites %q: add its section to structureSections", sig, spec)
		}
	}
}
