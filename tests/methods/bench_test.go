package methods

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/internal/corpus"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/checktest"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
)

// BenchmarkCorpus evaluates every predefined object of every full dump
// and QEMU DSDT of the corpus in one process: namespace load, _REG, the
// evaluations and the checks (the tables are read before the timer).
func BenchmarkCorpus(b *testing.B) {
	var ms []*input.Machine
	for _, m := range append(fullDumps(b), qemuDumps(b)...) {
		ms = append(ms, checktest.DumpMachine(m.path))
	}
	for _, m := range ms {
		checktest.Run(b, Check, m) // the tables parsed and cached
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	var objects, emulated float64
	for i := 0; i < b.N; i++ {
		objects, emulated = 0, 0
		for _, m := range ms {
			r := checktest.Run(b, Check, m)
			if r.Status == tests.StatusAborted {
				b.Fatal(r.Reason)
			}
			objects += float64(r.Data["objects"].(int))
			emulated += float64(r.Data["emulated"].(int))
		}
	}
	// CPU time of the process (all its threads, the garbage collector's
	// included), which a loaded machine does not inflate as it does the
	// wall time
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(objects, "objects")
	b.ReportMetric(emulated, "emulated")
	b.ReportMetric(float64(len(ms)), "machines")
}

// FuzzMethods runs the check over mutated DSDTs: the fixture, QEMU's pc
// and q35 DSDTs and the smallest real DSDT of the corpus. It must end
// (the evaluator's step limit bounds every object) without aborting and
// without an evaluator bug.
func FuzzMethods(f *testing.F) {
	b, err := os.ReadFile("testdata/dsdt.aml")
	require.NoError(f, err)
	f.Add(b)
	root := corpus.Root()
	for _, p := range []string{"acpi/qemu/pc/DSDT", "acpi/qemu/q35/DSDT"} {
		if raw, err := os.ReadFile(filepath.Join(root, p)); err == nil {
			f.Add(raw)
		}
	}
	if os.Getenv("FWCHECK_FUZZ_NOREAL") == "" {
		if real := smallestDSDT(); real != nil {
			f.Add(real)
		}
	}
	f.Fuzz(func(t *testing.T, dsdt []byte) {
		if len(dsdt) < 36 {
			return
		}
		raw := append([]byte(nil), dsdt...)
		copy(raw[0:4], "DSDT")
		// the header's length is the input's: the dump reader's caps on
		// a huge length are not what this fuzzes
		n := uint32(len(raw))
		raw[4], raw[5], raw[6], raw[7] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
		w := time.AfterFunc(10*time.Second, func() { panic("the methods check runs longer than 10 s") })
		defer w.Stop()
		fuzzOne(t, raw)
	})
}

// fuzzOne evaluates every predefined object of a DSDT: it must end, and
// with no evaluator bug.
func fuzzOne(t testing.TB, raw []byte) {
	ns, _ := aml.Load(aml.Table{Name: "DSDT", Signature: "DSDT", Revision: raw[8], AML: raw[36:]})
	c := evaluate(nil, &amlcheck.Loaded{NS: ns})
	c.classes()
	c.devClasses()
	for reason, objs := range c.unchecked {
		if strings.Contains(reason, "internal error") {
			t.Fatalf("evaluator bug: %v: %s", objs, reason)
		}
	}
}

// TestMutatedDSDTs is FuzzMethods without the fuzzing engine: 200 seeded
// random mutations (1-8 bytes each) of QEMU's q35 DSDT and of the
// smallest real DSDT of the corpus, each evaluated object by object.
func TestMutatedDSDTs(t *testing.T) {
	var seeds [][]byte
	if raw, err := os.ReadFile(filepath.Join(corpus.Root(), "acpi/qemu/q35/DSDT")); err == nil {
		seeds = append(seeds, raw)
	}
	if real := smallestDSDT(); real != nil {
		seeds = append(seeds, real)
	}
	if len(seeds) == 0 {
		corpus.Missing(t, "no corpus DSDT (acpi/qemu/q35/DSDT or a linuxhw full dump)")
	}
	rnd := rand.New(rand.NewSource(26))
	worst := time.Duration(0)
	for k := 0; k < 200; k++ {
		seed := seeds[k%len(seeds)]
		b := append([]byte(nil), seed...)
		for j := 0; j < 1+rnd.Intn(8); j++ {
			b[36+rnd.Intn(len(b)-36)] = byte(rnd.Intn(256))
		}
		st := time.Now()
		fuzzOne(t, b)
		worst = max(worst, time.Since(st))
	}
	t.Logf("slowest mutated DSDT: %v", worst)
}

func smallestDSDT() []byte {
	dumps, _ := filepath.Glob(filepath.Join(corpus.Root(), "acpi/linuxhw/full/*.acpidump.txt.gz"))
	var best []byte
	for _, d := range dumps {
		ts, err := acpi.LoadDumpFile(d)
		if err != nil {
			continue
		}
		if ds := ts.Get(acpi.SigDSDT); len(ds) > 0 && (best == nil || len(ds[0].Raw) < len(best)) {
			best = ds[0].Raw
		}
	}
	return best
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
