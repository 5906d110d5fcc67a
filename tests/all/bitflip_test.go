package all

import (
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
)

// TestCoreTableBitFlips loads every corpus dump with bits flipped in each
// of its tables in turn (16 variants a table, 1 to 4 bits each, the
// checksum left wrong as a corrupted table's would be) and runs every
// check of the ACPI static-table suite over the set: none may panic or
// abort. Where TestTableBitFlips flips the description tables of issue
// 25 under their own checks, this flips every table (the FADT, FACS,
// MADT, HPET, MCFG, TPM2 and vendor tables included; the root tables go
// where a snapshot records them, with a record of what lies at their
// entries) under all of them. The DSDT and SSDTs are left out (each set
// would build its namespace again); TestACPIGolden runs the AML checks
// over the whole dumps.
func TestCoreTableBitFlips(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every ACPI check over some 31,000 table sets")
	}
	checks := acpiChecks(t)
	rng := rand.New(rand.NewPCG(25, 6))
	start := time.Now()
	runs := 0
	statuses := map[tests.Status]int{}
	roots := map[string]string{acpi.SigRSDP: "RSDP", acpi.SigXSDT: "XSDT", acpi.SigRSDT: "RSDT"}
	for _, c := range goldenCases(t) {
		if strings.HasPrefix(c.name, "qemu-") {
			continue
		}
		ts := loadCase(t, c.name)
		for _, tab := range ts.List {
			if tab.Signature == acpi.SigSSDT || tab.Signature == acpi.SigDSDT || len(tab.Raw) == 0 {
				continue
			}
			for range 16 {
				raw := append([]byte(nil), tab.Raw...)
				for range 1 + rng.IntN(4) {
					i := rng.IntN(len(raw))
					raw[i] ^= 1 << rng.IntN(8)
				}
				fsys := fstest.MapFS{}
				var probes []acpi.EntryProbe
				for _, o := range ts.List {
					if o.Signature == acpi.SigSSDT || o.Signature == acpi.SigDSDT {
						continue
					}
					b := o.Raw
					if o == tab {
						b = raw
					}
					if f, ok := roots[o.Signature]; ok {
						fsys[input.RecordedDir+"/acpi/"+f] = &fstest.MapFile{Data: b}
						continue
					}
					fsys[acpi.SysfsDir+"/"+o.Name()] = &fstest.MapFile{Data: b}
					if o.Address != 0 && len(b) >= acpi.ProbeSize {
						probes = append(probes, acpi.EntryProbe{Root: acpi.SigXSDT, Index: len(probes), Address: o.Address, Head: b[:acpi.ProbeSize]})
					}
				}
				if len(probes) > 0 {
					fsys[input.RecordedDir+"/acpi/"+input.EntriesFile] = &fstest.MapFile{Data: acpi.FormatProbes(probes)}
				}
				m := input.New(checktest.Snapshot{FS: fsys}, input.Options{})
				for _, r := range runAll(m, checks) {
					require.NotEqual(t, tests.StatusAborted, r.Status, "%s %s %s: %s", c.name, tab.Name(), r.ID, r.Reason)
					statuses[r.Status]++
				}
				runs++
			}
		}
	}
	t.Logf("%d bit-flipped table sets, every ACPI static check run on each, none aborted (%.1f s): %v", runs, time.Since(start).Seconds(), statuses)
	require.Greater(t, statuses[tests.StatusFailed]+statuses[tests.StatusWarning], runs, "the checks judged the sets")
}
