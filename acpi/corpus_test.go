package acpi

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
)

// sharedDir locates the shared directory holding the corpus (see
// internal/corpus: absent, tests skip, or fail when FWCHECK_SHARED is set).
func sharedDir(tb testing.TB) string {
	tb.Helper()
	return filepath.Dir(filepath.Dir(corpus.Dir(tb, "acpi")))
}

// corpusDumps lists every acpidump file in the linuxhw corpus.
func corpusDumps(tb testing.TB) []string {
	tb.Helper()
	root := filepath.Join(sharedDir(tb), "corpus", "acpi", "linuxhw")
	core, _ := filepath.Glob(filepath.Join(root, "core", "*.txt"))
	full, _ := filepath.Glob(filepath.Join(root, "full", "*.txt.gz"))
	files := append(core, full...)
	sort.Strings(files)
	if len(files) == 0 {
		corpus.Missing(tb, "no dumps in %s", root)
	}
	return files
}

func qemuDir(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(sharedDir(tb), "corpus", "acpi", "qemu")
}

// headerLines counts "SIG @ 0x" lines in a dump, the tables it should give.
func headerLines(tb testing.TB, path string) int {
	tb.Helper()
	f, err := os.Open(path)
	require.NoError(tb, err)
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		require.NoError(tb, err)
		r = zr
	}
	n := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if _, _, ok := dumpHeaderLine(strings.TrimSpace(sc.Text())); ok {
			n++
		}
	}
	return n
}

// parseAll runs the typed parser for every table that has one and returns
// the errors by table name.
func parseAll(ts *Tables) map[string]error {
	errs := map[string]error{}
	for _, t := range ts.List {
		var err error
		switch t.Signature {
		case SigRSDP:
			_, err = ParseRSDP(t.Raw)
		case SigXSDT:
			_, err = ParseXSDT(t)
		case SigRSDT:
			_, err = ParseRSDT(t)
		case SigFADT:
			_, err = ParseFADT(t)
		case SigFACS:
			_, err = ParseFACS(t.Raw)
		case SigMADT:
			_, err = ParseMADT(t)
		case SigHPET:
			_, err = ParseHPET(t)
		case SigMCFG:
			_, err = ParseMCFG(t)
		default:
			if t.HasHeader() {
				_, err = ParseHeader(t.Raw)
			}
		}
		if err != nil {
			errs[t.Name()] = err
		}
	}
	return errs
}

func TestCorpusDumpsLoadAndParse(t *testing.T) {
	for _, path := range corpusDumps(t) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			ts, err := LoadDumpFile(path)
			require.NoError(t, err)
			assert.Len(t, ts.List, headerLines(t, path), "every table in the dump is loaded")
			assert.Empty(t, parseAll(ts), "typed parsers")
			for _, tb := range ts.List {
				assert.NotEmpty(t, tb.Raw, tb.Name())
				if tb.HasHeader() {
					assert.Equal(t, tb.Signature, tb.Header.Signature, tb.Name())
				}
			}
			// Repeated signatures are numbered 1..n in order.
			for _, sig := range []string{SigSSDT} {
				for i, tb := range ts.Get(sig) {
					if len(ts.Get(sig)) > 1 {
						assert.Equal(t, i+1, tb.Instance)
					}
				}
			}
		})
	}
}

func TestCorpusWarningsOnlyForKnownNoise(t *testing.T) {
	for _, path := range corpusDumps(t) {
		ts, err := LoadDumpFile(path)
		require.NoError(t, err)
		for _, w := range ts.Warnings {
			assert.Contains(t, w, "Firmware Warning", "%s: unexpected skipped line", path)
		}
	}
}

func TestQEMUConfigurations(t *testing.T) {
	root := qemuDir(t)
	for _, machine := range []string{"pc", "q35", "microvm", "virt"} {
		fsys := os.DirFS(filepath.Join(root, machine))
		variants, err := QEMUVariants(fsys, ".")
		require.NoError(t, err)
		for _, v := range append([]string{""}, variants...) {
			t.Run(machine+"/"+v, func(t *testing.T) {
				ts, err := LoadQEMU(fsys, ".", v)
				require.NoError(t, err)
				assert.Empty(t, parseAll(ts))
				f, err := ts.FADT()
				require.NoError(t, err)
				assert.NotZero(t, f.DSDTAddress()+uint64(f.Header.Revision))
				// Each signature appears once per configuration.
				seen := map[string]bool{}
				for _, tb := range ts.List {
					assert.False(t, seen[tb.Signature], tb.Signature)
					seen[tb.Signature] = true
					if v != "" && strings.Contains(tb.Origin, ".") {
						assert.True(t, strings.HasSuffix(tb.Origin, "."+v))
					}
				}
			})
		}
	}
}

func TestQEMUVariantOverridesBase(t *testing.T) {
	fsys := os.DirFS(filepath.Join(qemuDir(t), "q35"))
	base, err := LoadQEMU(fsys, ".", "")
	require.NoError(t, err)
	tpm, err := LoadQEMU(fsys, ".", "tis.tpm2")
	require.NoError(t, err)
	assert.Nil(t, base.First("TPM2"))
	require.NotNil(t, tpm.First("TPM2"))
	assert.Equal(t, "DSDT.tis.tpm2", tpm.First(SigDSDT).Origin)
	assert.Equal(t, "DSDT", base.First(SigDSDT).Origin)
	assert.Equal(t, "FACP", tpm.First(SigFADT).Origin)
}

// manifestRow is a line of the linuxhw MANIFEST.tsv, by column name.
type manifestRow map[string]string

func readManifest(t *testing.T) []manifestRow {
	b, err := os.ReadFile(filepath.Join(sharedDir(t), "corpus", "acpi", "linuxhw", "MANIFEST.tsv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	cols := strings.Split(lines[0], "\t")
	var rows []manifestRow
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		r := manifestRow{}
		for i, c := range cols {
			if i < len(f) {
				r[c] = f[i]
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// TestManifestFADTReset cross-checks the FADT revision, reset register and
// HPET presence against the corpus manifest, which was produced by a
// different tool.
func TestManifestFADTReset(t *testing.T) {
	rows := readManifest(t)
	require.Len(t, rows, 120)
	root := filepath.Join(sharedDir(t), "corpus", "acpi", "linuxhw", "core")
	resetCF9 := 0
	for _, r := range rows {
		ts, err := LoadDumpFile(filepath.Join(root, r["hwid"]+".acpidump.txt"))
		require.NoError(t, err, r["hwid"])
		f, err := ts.FADT()
		require.NoError(t, err, r["hwid"])
		assert.Equal(t, r["fadt_rev"], strconv.Itoa(int(f.Header.Revision)), "%s fadt_rev", r["hwid"])
		assert.Equal(t, r["hpet"] == "True", ts.First(SigHPET) != nil, "%s hpet", r["hwid"])
		if r["reset_sup"] == "" {
			assert.False(t, f.HasResetReg(), "%s: manifest has no reset columns, FADT len %d", r["hwid"], f.Length)
			continue
		}
		require.True(t, f.HasResetReg(), r["hwid"])
		sup := "0"
		if f.ResetSupported() {
			sup = "1"
		}
		assert.Equal(t, r["reset_sup"], sup, "%s reset_sup", r["hwid"])
		assert.Equal(t, r["reset_space"], strconv.Itoa(int(f.ResetReg.Space)), "%s reset_space", r["hwid"])
		assert.Equal(t, r["reset_addr"], "0x"+strconv.FormatUint(f.ResetReg.Address, 16), "%s reset_addr", r["hwid"])
		assert.Equal(t, r["reset_val"], "0x"+strconv.FormatUint(uint64(f.ResetValue), 16), "%s reset_val", r["hwid"])
		if f.ResetReg.Address == 0xcf9 && f.ResetValue == 6 && f.ResetSupported() {
			resetCF9++
		}
	}
	assert.Equal(t, 48, resetCF9, "machines with a supported 0xCF9/0x06 reset")
}

func TestDumpRoundTrip(t *testing.T) {
	for _, path := range corpusDumps(t)[:10] {
		ts, err := LoadDumpFile(path)
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, WriteDump(&buf, ts))
		back, err := ParseDump(&buf)
		require.NoError(t, err)
		require.Len(t, back.List, len(ts.List))
		for i := range ts.List {
			assert.Equal(t, ts.List[i].Raw, back.List[i].Raw)
			assert.Equal(t, ts.List[i].Signature, back.List[i].Signature)
			assert.Equal(t, ts.List[i].Address, back.List[i].Address)
		}
	}
}

// BenchmarkLoadParseCorpus loads and parses every corpus dump (held in
// memory, so the disk is not measured) and runs every typed parser.
func BenchmarkLoadParseCorpus(b *testing.B) {
	var data [][]byte
	for _, p := range corpusDumps(b) {
		d, err := os.ReadFile(p)
		require.NoError(b, err)
		data = append(data, d)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, d := range data {
			ts, err := ParseDump(bytes.NewReader(d))
			if err != nil {
				b.Fatal(err)
			}
			parseAll(ts)
		}
	}
	b.ReportMetric(float64(b.N*len(data))/b.Elapsed().Seconds(), "dumps/s")
}
