// Package checktest is what a check's tests need, as analysistest is for
// go/analysis passes: machines built from synthetic tables, corpus dumps or
// kernel logs; running one check on them; the labels it reported; and
// golden files. It also builds the synthetic ACPI tables the checks' tests
// share (a clean FADT, MADT, HPET, MCFG, RSDP …), each with a valid header
// and checksum, so a test changes only the bytes it is about.
package checktest

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/memmap"
	"github.com/fwcheck/fwcheck/tests"
)

// Update makes Golden rewrite golden files instead of comparing:
//
//	go test ./tests/... -run Golden -update
//
// then review the diff under testdata/*/golden before committing.
var Update = flag.Bool("update", false, "rewrite the golden files under testdata/ with the current results")

// Golden compares got with dir/name.txt, or writes it there under -update.
func Golden(t *testing.T, dir, name, got string) {
	t.Helper()
	path := filepath.Join(dir, name+".txt")
	if *Update {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run: go test -run Golden -update")
	assert.Equal(t, string(want), got)
}

// NoStaleGolden fails when dir holds a golden file for none of names.
func NoStaleGolden(t *testing.T, dir string, names []string) {
	t.Helper()
	want := map[string]bool{}
	for _, n := range names {
		want[n+".txt"] = true
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, f := range files {
		assert.True(t, want[filepath.Base(f)], "stale golden file %s", f)
	}
	assert.Len(t, files, len(want))
}

// Run runs check c on m with no settings and no machine control, and fails
// the test if it aborted.
func Run(t testing.TB, c *tests.Check, m *input.Machine) tests.Result {
	t.Helper()
	r := tests.RunOne(&tests.Env{Machine: m}, c)
	require.NotEqual(t, tests.StatusAborted, r.Status, r.Reason)
	return r
}

// RunAt is Run with the run's clock at now (tests.Pass.Now).
func RunAt(t testing.TB, c *tests.Check, m *input.Machine, now time.Time) tests.Result {
	t.Helper()
	r := tests.RunOne(&tests.Env{Machine: m, Clock: &Clock{T: now}}, c)
	require.NotEqual(t, tests.StatusAborted, r.Status, r.Reason)
	return r
}

// Clock is a tests.Clock that does not wait: Now is T, and Sleep records
// the wait in Slept and moves T on by it.
type Clock struct {
	T     time.Time
	Slept []time.Duration
}

// Now implements tests.Clock.
func (c *Clock) Now() time.Time { return c.T }

// Sleep implements tests.Clock.
func (c *Clock) Sleep(d time.Duration) { c.Slept = append(c.Slept, d); c.T = c.T.Add(d) }

// RunTables runs c over a machine holding only the given raw tables.
func RunTables(t *testing.T, c *tests.Check, raws ...[]byte) tests.Result {
	t.Helper()
	var st []Table
	for _, r := range raws {
		st = append(st, Table{Raw: r})
	}
	return Run(t, c, Machine(t, nil, st...))
}

// FailLabels lists the labels of r's failures, in order.
func FailLabels(r tests.Result) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Kind == tests.KindFail {
			out = append(out, f.Label)
		}
	}
	return out
}

// WarnLabels lists the labels of r's warnings, in order.
func WarnLabels(r tests.Result) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Kind == tests.KindWarning {
			out = append(out, f.Label)
		}
	}
	return out
}

// Case is one machine a check is run on in a table test: its files, the
// warning labels and status it must end with, and a text the rendered
// result must contain.
type Case struct {
	Name   string
	Files  map[string][]byte
	Warns  []string
	Status tests.Status
	Says   string
}

// RunCases runs c on each case's machine (FilesMachine) and asserts its
// warnings, status and text.
func RunCases(t *testing.T, c *tests.Check, cases []Case) {
	t.Helper()
	for _, k := range cases {
		t.Run(k.Name, func(t *testing.T) {
			r := Run(t, c, FilesMachine(t, k.Files))
			text := tests.Render([]tests.Result{r})
			assert.Equal(t, k.Warns, WarnLabels(r), text)
			assert.Equal(t, k.Status, r.Status, text)
			assert.Contains(t, text, k.Says)
		})
	}
}

// Labelled returns r's labelled findings as "Label: message", in order.
func Labelled(r tests.Result) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Label != "" {
			out = append(out, f.Label+": "+f.Message)
		}
	}
	return out
}

// FindingWith returns r's first finding with label l, or nil.
func FindingWith(r tests.Result, l string) *tests.Finding {
	for i := range r.Findings {
		if r.Findings[i].Label == l {
			return &r.Findings[i]
		}
	}
	return nil
}

// FindingsWith returns r's findings labelled l.
func FindingsWith(r tests.Result, l string) []tests.Finding {
	var out []tests.Finding
	for _, f := range r.Findings {
		if f.Label == l {
			out = append(out, f)
		}
	}
	return out
}

// DumpMachine is a machine whose ACPI tables come from an acpidump file (or
// a directory of raw tables) and that has no other input.
func DumpMachine(path string) *input.Machine {
	return input.New(input.Empty(), input.Options{Files: map[input.Decl]string{input.ACPITables: path}})
}

// LogMachine is a machine whose kernel log comes from a file and that has
// no other input.
func LogMachine(path string) *input.Machine {
	return input.New(input.Empty(), input.Options{Files: map[input.Decl]string{input.KernelLog: path}})
}

// Table is a table for a synthetic machine, with an optional address.
type Table struct {
	Raw  []byte
	Addr uint64
}

// Machine writes the tables as acpidump text and builds a machine over it;
// memmap, when not nil, becomes the firmware memory map.
func Machine(t testing.TB, memmap []memmap.Range, tables ...Table) *input.Machine {
	t.Helper()
	ts := &acpi.Tables{}
	for _, st := range tables {
		sig := string(st.Raw[:4])
		if len(st.Raw) >= 8 && string(st.Raw[:8]) == "RSD PTR " {
			sig = acpi.SigRSDP
		}
		ts.Add(&acpi.Table{Signature: sig, Raw: st.Raw, Address: st.Addr})
	}
	// acpidump writes whole tables, and the loader takes a last table that
	// is shorter than its Length for a cut-off file. Close the dump with a
	// well-formed OEM table so that a deliberately malformed table under
	// test is judged as the firmware's.
	ts.Add(&acpi.Table{Signature: "OEMT", Raw: SDT("OEMT", 1, nil)})
	dir := t.TempDir()
	dump := filepath.Join(dir, "dump.txt")
	f, err := os.Create(dump)
	require.NoError(t, err)
	require.NoError(t, acpi.WriteDump(f, ts))
	require.NoError(t, f.Close())
	src := input.Empty()
	if memmap != nil {
		root := filepath.Join(dir, "root")
		for i, r := range memmap {
			d := filepath.Join(root, "sys", "firmware", "memmap", fmt.Sprint(i))
			require.NoError(t, os.MkdirAll(d, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(d, "start"), []byte(fmt.Sprintf("0x%x\n", r.Start)), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(d, "end"), []byte(fmt.Sprintf("0x%x\n", r.End)), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(d, "type"), []byte(r.Type+"\n"), 0o644))
		}
		src, err = input.Open(root)
		require.NoError(t, err)
	}
	return input.New(src, input.Options{Files: map[input.Decl]string{input.ACPITables: dump}})
}

// Snapshot is a source over an in-memory file tree laid out like a
// snapshot (sysfs tables, recorded roots, …): for fuzzing checks.
type Snapshot struct{ fs.FS }

// Live implements input.Source.
func (Snapshot) Live() bool { return false }

// Privileged implements input.Source.
func (Snapshot) Privileged() bool { return true }

func (Snapshot) String() string { return "memory" }

// SDT builds a table with a valid header and checksum around body.
func SDT(sig string, rev uint8, body []byte) []byte {
	b := make([]byte, acpi.HeaderSize+len(body))
	copy(b, sig)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)))
	b[8] = rev
	copy(b[10:], "FWCHK ")
	copy(b[16:], "SYNTHTAB")
	copy(b[28:], "FWCK")
	copy(b[acpi.HeaderSize:], body)
	FixSum(b)
	return b
}

// FixSum recomputes an SDT's checksum.
func FixSum(b []byte) {
	b[9] = 0
	b[9] = -acpi.Sum(b)
}

// FADT builds a clean revision 6 FADT; mod may change its bytes (the
// checksum is fixed afterwards).
func FADT(mod func(b []byte)) []byte {
	b := make([]byte, acpi.FADTLenRev6)
	copy(b, "FACP")
	binary.LittleEndian.PutUint32(b[4:], acpi.FADTLenRev6)
	b[8] = 6
	copy(b[10:], "FWCHK ")
	copy(b[16:], "SYNTHTAB")
	copy(b[28:], "FWCK")
	le32 := func(off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
	le32(36, 0x7FF00000) // FIRMWARE_CTRL
	le32(40, 0x7FE00000) // DSDT
	b[45] = 2            // mobile
	binary.LittleEndian.PutUint16(b[46:], 9)
	le32(48, 0xB2)
	b[52], b[53] = 0xA0, 0xA1
	le32(56, 0x1800)
	le32(64, 0x1804)
	le32(76, 0x1808)
	le32(80, 0x1820)
	b[88], b[89], b[91], b[92] = 4, 2, 4, 16
	le32(112, acpi.FADTFlagResetRegSup|acpi.FADTFlagWBINVD)
	copy(b[116:], []byte{1, 8, 0, 1, 0xF9, 0x0C, 0, 0, 0, 0, 0, 0})
	b[128] = 0x04
	b[131] = 5 // ACPI 6.5
	binary.LittleEndian.PutUint64(b[140:], 0x7FE00000)
	copy(b[148:], []byte{1, 32, 0, 3, 0x00, 0x18})
	copy(b[172:], []byte{1, 16, 0, 2, 0x04, 0x18})
	copy(b[208:], []byte{1, 32, 0, 3, 0x08, 0x18})
	copy(b[220:], []byte{1, 128, 0, 1, 0x20, 0x18})
	if mod != nil {
		mod(b)
	}
	FixSum(b)
	return b
}

// MADT builds a MADT of the given revision around its structures.
func MADT(rev uint8, entries ...[]byte) []byte {
	body := []byte{0, 0, 0xE0, 0xFE, 1, 0, 0, 0}
	for _, e := range entries {
		body = append(body, e...)
	}
	return SDT("APIC", rev, body)
}

// LAPIC is a Processor Local APIC structure.
func LAPIC(uid, id byte, flags byte) []byte { return []byte{0, 8, uid, id, flags, 0, 0, 0} }

// IOAPIC is an I/O APIC structure.
func IOAPIC(id byte, addr uint32) []byte {
	return []byte{1, 12, id, 0, byte(addr), byte(addr >> 8), byte(addr >> 16), byte(addr >> 24), 0, 0, 0, 0}
}

// HPET builds a clean HPET table; mod may change its body.
func HPET(mod func(b []byte)) []byte {
	body := make([]byte, acpi.HPETSize-acpi.HeaderSize)
	binary.LittleEndian.PutUint32(body, 0x8086A201)
	copy(body[4:], []byte{0, 64, 0, 0, 0, 0, 0xD0, 0xFE, 0, 0, 0, 0})
	binary.LittleEndian.PutUint16(body[53-acpi.HeaderSize:], 128)
	if mod != nil {
		mod(body)
	}
	return SDT("HPET", 1, body)
}

// MCFGEntry is one MCFG configuration space allocation.
func MCFGEntry(base uint64, seg uint16, start, end byte) []byte {
	e := make([]byte, 16)
	binary.LittleEndian.PutUint64(e, base)
	binary.LittleEndian.PutUint16(e[8:], seg)
	e[10], e[11] = start, end
	return e
}

// MCFG builds an MCFG around its entries.
func MCFG(entries ...[]byte) []byte {
	body := make([]byte, 8)
	for _, e := range entries {
		body = append(body, e...)
	}
	return SDT("MCFG", 1, body)
}

// RSDP builds an RSDP of the given revision (20 bytes below 2).
func RSDP(rev uint8, rsdt uint32, xsdt uint64) []byte {
	b := make([]byte, acpi.RSDPv2Size)
	copy(b, "RSD PTR ")
	copy(b[9:], "FWCHK ")
	b[15] = rev
	binary.LittleEndian.PutUint32(b[16:], rsdt)
	binary.LittleEndian.PutUint32(b[20:], acpi.RSDPv2Size)
	binary.LittleEndian.PutUint64(b[24:], xsdt)
	b[8] = -acpi.Sum(b[:20])
	b[32] = -acpi.Sum(b)
	if rev < 2 {
		return b[:acpi.RSDPv1Size]
	}
	return b
}

// XSDTBody is the entry list of an XSDT.
func XSDTBody(addrs ...uint64) []byte {
	b := make([]byte, 8*len(addrs))
	for i, a := range addrs {
		binary.LittleEndian.PutUint64(b[8*i:], a)
	}
	return b
}

// RSDTBody is the entry list of an RSDT.
func RSDTBody(addrs ...uint32) []byte {
	b := make([]byte, 4*len(addrs))
	for i, a := range addrs {
		binary.LittleEndian.PutUint32(b[4*i:], a)
	}
	return b
}

// LogGoldens runs c on every real boot log of the shared corpus (its
// linuxhw dmesg files and the other klog captures), each log alone as the
// machine, and compares the results with the golden files under
// testdata/golden, one per log; stale golden files fail too. It skips
// without the corpus.
func LogGoldens(t *testing.T, c *tests.Check) {
	t.Helper()
	dir := corpus.Dir(t, "klog")
	paths, _ := filepath.Glob(filepath.Join(dir, "linuxhw", "*.dmesg.txt"))
	more, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	var names []string
	for _, p := range append(paths, more...) {
		name := strings.TrimSuffix(filepath.Base(p), ".txt")
		names = append(names, name)
		t.Run(name, func(t *testing.T) {
			r := Run(t, c, LogMachine(p))
			Golden(t, filepath.Join("testdata", "golden"), name, tests.Render([]tests.Result{r}))
		})
	}
	NoStaleGolden(t, filepath.Join("testdata", "golden"), names)
}
