package acpi

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/internal/corpus"
)

// qemuVirt loads a table of QEMU's arm64 virt machine from the corpus
// (variant "" is the base configuration).
func qemuVirt(t testing.TB, sig, variant string) *Table {
	t.Helper()
	ts, err := LoadQEMU(os.DirFS(filepath.Join(corpus.Dir(t, "acpi", "qemu"), "virt")), ".", variant)
	require.NoError(t, err)
	tb := ts.First(sig)
	require.NotNil(t, tb, sig)
	return tb
}

// TestParseGTDTQEMU: QEMU's virt GTDT (hw/arm/virt-acpi-build.c
// build_gtdt) gives the four timer PPIs 29, 30, 27 and 26 (secure EL1,
// non-secure EL1, virtual, EL2), level-triggered, and no platform timers.
func TestParseGTDTQEMU(t *testing.T) {
	g, err := ParseGTDT(qemuVirt(t, SigGTDT, ""))
	require.NoError(t, err)
	assert.Equal(t, []uint32{29, 30, 27, 26}, []uint32{g.SecureEL1.GSIV, g.NonSecureEL1.GSIV, g.VirtualEL1.GSIV, g.EL2.GSIV})
	assert.Zero(t, g.NonSecureEL1.Flags&TimerEdge)
	assert.Equal(t, GTDTNoBase, g.CntReadBase)
	assert.Zero(t, g.TimerCount)
	assert.Empty(t, g.Blocks)
}

// gtdtWithTimers builds a revision-2 GTDT with one GT block of frames and
// one watchdog.
func gtdtWithTimers(frames int) []byte {
	body := make([]byte, GTDTSizeRev2-HeaderSize)
	binary.LittleEndian.PutUint32(body[88-36:], 2)
	binary.LittleEndian.PutUint32(body[92-36:], GTDTSizeRev2)
	blk := make([]byte, 20+40*frames)
	blk[0] = GTDTGTBlock
	binary.LittleEndian.PutUint16(blk[1:], uint16(len(blk)))
	binary.LittleEndian.PutUint64(blk[4:], 0x2a810000)
	binary.LittleEndian.PutUint32(blk[12:], uint32(frames))
	binary.LittleEndian.PutUint32(blk[16:], 20)
	for i := 0; i < frames; i++ {
		f := blk[20+40*i:]
		f[0] = byte(i)
		binary.LittleEndian.PutUint32(f[20:], uint32(40+i))
	}
	wd := make([]byte, 28)
	wd[0] = GTDTWatchdog
	binary.LittleEndian.PutUint16(wd[1:], 28)
	binary.LittleEndian.PutUint64(wd[4:], 0x2a450000)
	binary.LittleEndian.PutUint64(wd[12:], 0x2a440000)
	binary.LittleEndian.PutUint32(wd[20:], 93)
	return sdt(SigGTDT, 2, append(append(body, blk...), wd...))
}

func TestParseGTDTTimers(t *testing.T) {
	g, err := ParseGTDT(table(gtdtWithTimers(2)))
	require.NoError(t, err)
	require.Len(t, g.Blocks, 1)
	require.Len(t, g.Blocks[0].Frames, 2)
	assert.Equal(t, uint32(41), g.Blocks[0].Frames[1].Physical.GSIV)
	require.Len(t, g.Watchdogs, 1)
	assert.Equal(t, uint32(93), g.Watchdogs[0].Timer.GSIV)
	assert.Equal(t, uint64(0x2a440000), g.Watchdogs[0].Control)

	// A block claiming more frames than its length holds.
	b := gtdtWithTimers(2)
	binary.LittleEndian.PutUint32(b[GTDTSizeRev2+12:], 3)
	g, err = ParseGTDT(table(b))
	require.NoError(t, err)
	assert.True(t, g.Blocks[0].FramesShort)

	// A timer offset past the end.
	b = gtdtWithTimers(0)
	binary.LittleEndian.PutUint32(b[92:], 4000)
	_, err = ParseGTDT(table(b))
	assert.ErrorContains(t, err, "outside the table")
}

// TestParseIORTQEMU: QEMU's virt IORT (build_iort) has an ITS group with
// one ITS (ID 0) and a root complex mapping every requester ID to it; the
// numamem variant adds nothing, the pxb one splits the root complex.
func TestParseIORTQEMU(t *testing.T) {
	io, err := ParseIORT(qemuVirt(t, SigIORT, ""))
	require.NoError(t, err)
	require.Len(t, io.Nodes, int(io.NodeCount))
	var its, rc *IORTNode
	for i := range io.Nodes {
		switch io.Nodes[i].Type {
		case IORTITSGroup:
			its = &io.Nodes[i]
		case IORTRootComplex:
			rc = &io.Nodes[i]
		}
	}
	require.NotNil(t, its)
	require.NotNil(t, rc)
	assert.Equal(t, []uint32{0}, its.ITSIDs)
	require.NotEmpty(t, rc.Mappings)
	for _, m := range rc.Mappings {
		assert.NotNil(t, io.Node(m.OutputRef), "mapping %+v points at a node", m)
	}
}

// TestParsePPTTQEMU: QEMU's virt PPTT (build_pptt) for one CPU: a
// package, a cluster and a leaf with ACPI processor ID 0.
func TestParsePPTTQEMU(t *testing.T) {
	p, err := ParsePPTT(qemuVirt(t, SigPPTT, ""))
	require.NoError(t, err)
	leaves := p.Leaves()
	require.Len(t, leaves, 1)
	assert.NotZero(t, leaves[0].Flags&PPTTIDValid)
	assert.Equal(t, uint32(0), leaves[0].ProcessorID)
	assert.NotNil(t, p.Processor(leaves[0].Parent))
}

// FuzzParseArm: the GTDT, IORT and PPTT parsers never panic and keep
// what they read inside the table.
func FuzzParseArm(f *testing.F) {
	f.Add(gtdtWithTimers(2))
	if r := corpus.Root(); r != "" {
		for _, n := range []string{"GTDT", "IORT", "PPTT", "IORT.pxb", "PPTT.acpihmatvirt", "APIC"} {
			if raw, err := os.ReadFile(filepath.Join(r, "acpi", "qemu", "virt", n)); err == nil {
				f.Add(raw)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tb := table(b)
		for _, sig := range []string{SigGTDT, SigIORT, SigPPTT} {
			if len(b) >= 4 {
				copy(b, sig)
			}
			tb = table(b)
			switch sig {
			case SigGTDT:
				if g, _ := ParseGTDT(tb); g != nil {
					for _, blk := range g.Blocks {
						require.LessOrEqual(t, len(blk.Frames), 8)
					}
				}
			case SigIORT:
				if io, _ := ParseIORT(tb); io != nil {
					require.LessOrEqual(t, uint32(len(io.Nodes)), io.NodeCount)
					for _, n := range io.Nodes {
						require.LessOrEqual(t, n.Offset+n.Length, len(b))
						require.LessOrEqual(t, len(n.Mappings)*IORTMappingSize, n.Length)
					}
				}
			case SigPPTT:
				if p, _ := ParsePPTT(tb); p != nil {
					for _, n := range p.Processors {
						require.LessOrEqual(t, len(n.Private)*4, len(b))
					}
					_ = p.Leaves()
				}
			}
		}
	})
}
