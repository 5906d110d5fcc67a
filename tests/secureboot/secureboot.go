// Package secureboot reports the Secure Boot state (SecureBoot, SetupMode,
// AuditMode, DeployedMode) and the key databases (PK, KEK, db, dbx: their
// certificates' subjects, issuers and validity, and hash counts), and
// checks for what makes Secure Boot worthless on a shipping machine: setup
// mode, a test platform key, an empty revocation list, expired keys. With a
// TPM event log it also says which key database entries authorised this
// boot (the EV_EFI_VARIABLE_AUTHORITY events in PCR 7: the firmware's db
// entry for the first boot loader, a shim's own entries for what it loaded).
package secureboot

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"strings"

	"github.com/fwcheck/fwcheck/efi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/vm"
	"github.com/fwcheck/fwcheck/tpm"
)

const (
	sbSpec  = "UEFI 2.10 §32.3 (Firmware/OS Key Exchange), §32.4 (Image Verification)"
	varSpec = "UEFI 2.10 §3.3 Table 3.1; §32.4.1 (Signature Database)"
)

var (
	labelSetupMode = tests.NewLabel("SecureBootSetupMode", tests.High, sbSpec,
		"The platform is in Setup Mode: no platform key is enrolled, so Secure Boot cannot be "+
			"enabled and anyone who can run code before the OS can enrol their own keys. Ship with "+
			"the OEM platform key enrolled (User Mode or Deployed Mode).")
	labelTestKey = tests.NewLabel("SecureBootTestPlatformKey", tests.High, sbSpec,
		"The platform key is a test key: its certificate says it must not be trusted or shipped. "+
			"Test keys of firmware reference code have leaked, and whoever holds the private key can "+
			"sign anything this machine will boot or replace its keys. Generate a platform key of "+
			"your own, keep it in an HSM, and enrol it in production images.")
	labelPKCount = tests.NewLabel("SecureBootPKCount", tests.Medium, varSpec,
		"PK must hold exactly one X.509 certificate or RSA-2048 key. Enrol a single platform key.")
	labelDBMalformed = tests.NewLabel("SecureBootDatabaseMalformed", tests.High, varSpec,
		"A key database (PK, KEK, db, dbx) is not a valid sequence of EFI_SIGNATURE_LISTs, or "+
			"holds a certificate that does not parse. Firmware and OS tools that read it may "+
			"ignore the whole database. Rebuild it from well-formed signature lists.")
	labelDbxEmpty = tests.NewLabel("SecureBootDbxEmpty", tests.Medium, sbSpec,
		"Secure Boot is enabled but the forbidden-signature database (dbx) is missing or nearly "+
			"empty, so boot loaders with known vulnerabilities (BootHole, BlackLotus and others) "+
			"that the current UEFI revocation list blocks still boot. Ship the current dbx.")
	labelExpired = tests.NewLabel("SecureBootCertificateExpired", tests.Low, sbSpec,
		"A certificate in PK, KEK or db is past its validity period. UEFI image verification "+
			"does not check time, so boots keep working, but nothing new can be signed with it: "+
			"updates to db/dbx and new boot loaders need its successor (for the Microsoft 2011 "+
			"certificates, the 2023 ones). Enrol the successor certificate.")
	labelExpiring = tests.NewLabel("SecureBootCertificateExpiring", tests.Low, sbSpec,
		"A certificate in PK, KEK or db expires within a year. Plan the enrolment of its "+
			"successor in a firmware update before it does.")
	labelVarMalformed = tests.NewLabel("SecureBootVariableMalformed", tests.Medium, varSpec,
		"A Secure Boot state variable (SecureBoot, SetupMode, AuditMode, DeployedMode) is not "+
			"the single byte 0 or 1 the specification defines.")
)

// Check is the secure-boot check.
var Check = &tests.Check{
	ID:       "secure-boot",
	Aliases:  []string{"secureboot"},
	Title:    "Secure Boot state and key databases (PK, KEK, db, dbx)",
	Category: tests.UEFI,
	Inputs:   []input.Decl{input.EFIVars},
	Optional: []input.Decl{input.DMI, input.KernelLog, input.CPUInfo, input.TPMEventLog},
	Spec:     "UEFI 2.10 §32",
	Labels: []*tests.Label{labelSetupMode, labelTestKey, labelPKCount, labelDBMalformed, labelDbxEmpty,
		labelExpired, labelExpiring, labelVarMalformed},
	Run: run,
}

// minDbx is the number of dbx entries below which a revocation list is
// "nearly empty": the UEFI forum's list has held hundreds since 2020.
const minDbx = 10

// testKeyMarks are phrases reference-code test keys carry in their subject.
var testKeyMarks = []string{"DO NOT TRUST", "DO NOT SHIP", "TEST PK", "TEST KEY", "SNAKEOIL"}

func boolVar(p *tests.Pass, vars *efi.Vars, name string) (val, present bool) {
	v := vars.Global(name)
	if v == nil {
		return false, false
	}
	b, err := efi.Bool(v.Data)
	if err != nil {
		p.Fail(labelVarMalformed, "%s: %v", name, err)
	}
	return b, true
}

func onOff(b bool) string { return map[bool]string{true: "1", false: "0"}[b] }

func run(p *tests.Pass) error {
	st := tests.Input(p, input.EFIVars)
	if !st.UEFI {
		p.NotApplicable("the machine did not boot through UEFI (no /sys/firmware/efi)")
		return nil
	}
	vars := st.Vars
	sb, hasSB := boolVar(p, vars, "SecureBoot")
	setup, hasSetup := boolVar(p, vars, "SetupMode")
	if !hasSB && !hasSetup && vars.Global("PK") == nil {
		p.NotApplicable("the firmware implements no Secure Boot (no SecureBoot, SetupMode or PK variable)")
		return nil
	}
	audit, hasAudit := boolVar(p, vars, "AuditMode")
	deployed, hasDeployed := boolVar(p, vars, "DeployedMode")
	state := fmt.Sprintf("Secure Boot %s", map[bool]string{true: "enabled", false: "disabled"}[sb])
	if !hasSB {
		state = "no SecureBoot variable"
	}
	state += ", SetupMode=" + onOff(setup)
	if hasAudit {
		state += ", AuditMode=" + onOff(audit)
	}
	if hasDeployed {
		state += ", DeployedMode=" + onOff(deployed)
	}
	p.Info(nil, "%s", state)

	vm := virtualMachine(p)
	if hasSetup && setup {
		msg := "SetupMode is 1: no platform key is enrolled"
		if vm != "" {
			p.Explained(labelSetupMode, vm+": a virtual machine's variable store starts without keys", "%s", msg)
		} else {
			p.Fail(labelSetupMode, "%s", msg)
		}
	} else if hasSetup {
		p.Passed("SetupMode is 0: a platform key is enrolled")
	}

	dbs := []struct {
		name string
		guid efi.GUID
	}{{"PK", efi.GlobalVariable}, {"KEK", efi.GlobalVariable}, {"db", efi.ImageSecurityDatabase}, {"dbx", efi.ImageSecurityDatabase}}
	parsed := map[string][]efi.SignatureList{}
	for _, d := range dbs {
		v := vars.Get(d.name, d.guid)
		if v == nil {
			p.Info(nil, "%s: not present", d.name)
			continue
		}
		ls, err := efi.ParseSignatureLists(v.Data)
		if err != nil {
			p.Fail(labelDBMalformed, "%s: %v", d.name, err)
		}
		parsed[d.name] = ls
		p.Info(nil, "%s: %s", d.name, summary(ls))
		for _, l := range ls {
			for i, s := range l.Signatures {
				if s.CertErr != nil {
					p.Fail(labelDBMalformed, "%s: X.509 entry %d (owner %s) does not parse: %v", d.name, i, s.Owner, s.CertErr)
				}
				if s.Cert != nil && d.name != "dbx" {
					p.Info(nil, "%s: %s", d.name, certText(s.Cert))
					checkValidity(p, d.name, s.Cert)
				}
			}
		}
	}

	if pk, ok := parsed["PK"]; ok {
		n := 0
		for _, l := range pk {
			n += len(l.Signatures)
		}
		if n != 1 {
			p.Fail(labelPKCount, "PK holds %s", entries(n))
		}
		before := p.Failures()
		for _, c := range efi.Certificates(pk) {
			if mark := testMark(c); mark != "" {
				p.Fail(labelTestKey, "PK %s (subject says %q)", certText(c), mark)
			}
		}
		if p.Failures() == before && n == 1 {
			p.Passed("PK holds one key, not marked as a test key")
		}
	}

	if sb {
		dbx := parsed["dbx"]
		n := 0
		for _, l := range dbx {
			n += len(l.Signatures)
		}
		if n < minDbx {
			msg := fmt.Sprintf("Secure Boot is enabled and dbx holds %s", entries(n))
			if vars.Get("dbx", efi.ImageSecurityDatabase) == nil {
				msg = "Secure Boot is enabled and there is no dbx"
			}
			p.Fail(labelDbxEmpty, "%s", msg)
		} else {
			p.Passed("dbx holds %s", entries(n))
		}
	}
	if sb {
		authorities(p, parsed["db"])
	}
	return nil
}

// authorities reports, from the TPM event log, which entries authorised
// the images this boot loaded: for the firmware's own "db" events, which
// db entry it is. Without a log there is nothing to say.
func authorities(p *tests.Pass, db []efi.SignatureList) {
	tl, err := tests.Load(p, input.TPMEventLog)
	if err != nil || tl == nil || tl.Log == nil {
		return
	}
	as := tl.Log.Authorities()
	if len(as) == 0 {
		p.Info(nil, "the TPM event log holds no EV_EFI_VARIABLE_AUTHORITY event: the firmware did not say which key authorised the boot")
		return
	}
	for _, a := range as {
		if a.Problem != "" {
			p.Info(nil, "boot authority event %d (PCR %d) does not decode: %s", a.Seq, a.PCR, a.Problem)
			continue
		}
		if a.Variable == "SbatLevel" && a.Cert == nil {
			// shim measures the SBAT revocation level it enforced.
			p.Info(nil, "shim enforced SBAT level %q (SbatLevel, event %d, PCR %d)", printable(a.Data), a.Seq, a.PCR)
			continue
		}
		what := fmt.Sprintf("%d bytes", len(a.Data))
		if a.Cert != nil {
			what = certText(a.Cert)
		}
		where := ""
		if a.Variable == "db" && efi.GUID(a.GUID) == efi.ImageSecurityDatabase {
			where = dbEntry(db, a)
		}
		p.Info(nil, "boot authorised by %s%s: %s (event %d, PCR %d)", a.Variable, where, what, a.Seq, a.PCR)
	}
}

// printable gives at most 64 bytes of b, lines joined with spaces, without
// other control characters.
func printable(b []byte) string {
	s := strings.TrimSpace(string(b[:min(len(b), 64)]))
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return ' '
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}, s)
}

// dbEntry names the db entry (list and index) an authority event measured,
// or says it is not in db as the firmware shows it now.
func dbEntry(db []efi.SignatureList, a tpm.Authority) string {
	for li, l := range db {
		for si, s := range l.Signatures {
			if a.OwnerKnown && efi.GUID(a.Owner) == s.Owner && string(s.Data) == string(a.Data) {
				return fmt.Sprintf(" entry %d of list %d (%s, owner %s)", si, li, l.TypeName(), s.Owner)
			}
		}
	}
	return " (an entry that is not in db now)"
}

func summary(ls []efi.SignatureList) string {
	c := efi.Counts(ls)
	if len(c) == 0 {
		return "empty"
	}
	var parts []string
	for _, t := range []string{"X509", "SHA256", "SHA1", "SHA384", "SHA512", "RSA2048", "X509_SHA256", "X509_SHA384", "X509_SHA512", "SHA224"} {
		if c[t] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[t], t))
			delete(c, t)
		}
	}
	for t, n := range c {
		parts = append(parts, fmt.Sprintf("%d of type %s", n, t))
	}
	return fmt.Sprintf("%d signature lists: %s", len(ls), strings.Join(parts, ", "))
}

// dn writes a distinguished name's common name, organisation and country
// ("CN=…, O=…, C=…"), the parts a person recognises a key by; a name with
// none of them is written whole.
func dn(n pkix.Name) string {
	var parts []string
	if n.CommonName != "" {
		parts = append(parts, "CN="+n.CommonName)
	}
	for _, o := range n.Organization {
		parts = append(parts, "O="+o)
	}
	for _, c := range n.Country {
		parts = append(parts, "C="+c)
	}
	if len(parts) == 0 {
		return n.String()
	}
	return strings.Join(parts, ", ")
}

func certText(c *x509.Certificate) string {
	return fmt.Sprintf("%q issued by %q, valid %s to %s", dn(c.Subject), dn(c.Issuer),
		c.NotBefore.UTC().Format("2006-01-02"), c.NotAfter.UTC().Format("2006-01-02"))
}

func testMark(c *x509.Certificate) string {
	for _, s := range []string{c.Subject.String(), c.Issuer.String()} {
		u := strings.ToUpper(s)
		for _, m := range testKeyMarks {
			if strings.Contains(u, m) {
				return m
			}
		}
	}
	return ""
}

func checkValidity(p *tests.Pass, db string, c *x509.Certificate) {
	now := p.Now()
	switch {
	case now.After(c.NotAfter):
		p.Fail(labelExpired, "%s: %q expired on %s", db, dn(c.Subject), c.NotAfter.UTC().Format("2006-01-02"))
	case now.AddDate(1, 0, 0).After(c.NotAfter):
		p.Fail(labelExpiring, "%s: %q expires on %s", db, dn(c.Subject), c.NotAfter.UTC().Format("2006-01-02"))
	}
}

// virtualMachine returns the evidence that the machine is virtual
// ("virtual machine (DMI: QEMU QEMU Virtual Machine)"), or "": the
// checks' shared reading of DMI, the kernel log and the CPUID hypervisor
// bit (tests/internal/vm), so that a snapshot without sysfs DMI is still
// known for a guest by its log.
func virtualMachine(p *tests.Pass) string {
	dmi, _ := tests.Load(p, input.DMI)
	recs, _ := tests.KernelRecords(p)
	cpus, _ := tests.Load(p, input.CPUInfo)
	return vm.Evidence(dmi, recs, cpus)
}

func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}
