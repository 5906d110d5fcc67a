package acpi

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// perfRec builds a performance record of the given type, revision and
// total length, with data copied after the 4-byte header.
func perfRec(typ uint16, rev uint8, n int, data ...uint64) []byte {
	b := make([]byte, n)
	binary.LittleEndian.PutUint16(b, typ)
	b[2] = uint8(n)
	b[3] = rev
	off := 4
	if typ == FPDTFBPTPointer || typ == FPDTS3PTPointer || typ == RecFBPTData {
		off = 8 // a reserved dword first
	}
	for _, v := range data {
		if off+8 > n {
			break
		}
		binary.LittleEndian.PutUint64(b[off:], v)
		off += 8
	}
	return b
}

// resumeRec builds a Basic S3 Resume Performance Record.
func resumeRec(count uint32, full, avg uint64) []byte {
	b := make([]byte, S3ResumeRecordSize)
	binary.LittleEndian.PutUint16(b, RecS3Resume)
	b[2], b[3] = S3ResumeRecordSize, 1
	binary.LittleEndian.PutUint32(b[4:], count)
	binary.LittleEndian.PutUint64(b[8:], full)
	binary.LittleEndian.PutUint64(b[16:], avg)
	return b
}

// perfTable builds an FBPT or S3PT around records.
func perfTable(sig string, recs ...[]byte) []byte {
	b := make([]byte, PerfTableHeaderSize)
	copy(b, sig)
	for _, r := range recs {
		b = append(b, r...)
	}
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)))
	return b
}

func fpdtTable(recs ...[]byte) *Table {
	var body []byte
	for _, r := range recs {
		body = append(body, r...)
	}
	return table(sdt(SigFPDT, 1, body))
}

func TestParseFPDT(t *testing.T) {
	vendor := perfRec(0x3000, 1, 12)
	f, err := ParseFPDT(fpdtTable(
		perfRec(FPDTFBPTPointer, 1, 16, 0xAF232000),
		vendor,
		perfRec(FPDTS3PTPointer, 1, 16, 0xAFF1E000),
		perfRec(FPDTS3PTPointer, 1, 16, 0x1234),
	))
	require.NoError(t, err)
	assert.Equal(t, uint64(0xAF232000), f.FBPTAddress)
	assert.Equal(t, uint64(0xAFF1E000), f.S3PTAddress, "the first pointer of a kind wins")
	assert.Equal(t, 1, f.Duplicates)
	require.Len(t, f.Records, 4)
	assert.Equal(t, HeaderSize+16, f.Records[1].Offset)
	assert.Equal(t, uint16(0x3000), f.Records[1].Type)
	assert.Equal(t, vendor, f.Records[1].Raw)
	assert.False(t, f.Records[1].Short, "vendor records have no minimum")

	ts := &Tables{Source: "test"}
	_, err = ts.FPDT()
	require.ErrorContains(t, err, "not in test")
}

func TestParseFPDTMalformed(t *testing.T) {
	good := perfRec(FPDTFBPTPointer, 1, 16, 0x1000)
	for name, tc := range map[string]struct {
		recs  [][]byte
		nrecs int
		err   string
	}{
		"empty":           {nil, 0, ""},
		"zero length":     {[][]byte{good, {1, 0, 0, 1, 0, 0, 0, 0}}, 1, "has length 0"},
		"runs past end":   {[][]byte{good, {1, 0, 16, 1, 0, 0, 0, 0}}, 1, "runs past the table end"},
		"stray bytes":     {[][]byte{good, {1, 0}}, 1, "2 stray bytes"},
		"short pointer":   {[][]byte{perfRec(FPDTS3PTPointer, 1, 12)}, 1, ""},
		"length below 4":  {[][]byte{{0, 0, 3, 1}}, 0, "has length 3"},
		"pointer of zero": {[][]byte{perfRec(FPDTS3PTPointer, 1, 16, 0)}, 1, ""},
	} {
		t.Run(name, func(t *testing.T) {
			f, err := ParseFPDT(fpdtTable(tc.recs...))
			require.NotNil(t, f)
			if tc.err == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tc.err)
			}
			assert.Len(t, f.Records, tc.nrecs)
		})
	}
	f, _ := ParseFPDT(fpdtTable(perfRec(FPDTS3PTPointer, 1, 12, 0x1000)))
	assert.True(t, f.Records[0].Short)
	assert.Zero(t, f.S3PTAddress, "a short pointer record is not decoded")

	_, err := ParseFPDT(table([]byte("FPDT")))
	require.ErrorIs(t, err, ErrTruncated)
	_, err = ParseFPDT(table(sdt("FACP", 1, nil)))
	require.Error(t, err)
}

// TestParseFPDTCorpus parses every FPDT of the corpus dumps: all are
// well-formed and point at an FBPT; most point at an S3PT too.
func TestParseFPDTCorpus(t *testing.T) {
	n, fbpt, s3pt := 0, 0, 0
	for _, p := range corpusDumps(t) {
		ts, err := LoadDumpFile(p)
		require.NoError(t, err, p)
		for _, tb := range ts.Get(SigFPDT) {
			n++
			f, err := ParseFPDT(tb)
			require.NoError(t, err, p)
			if f.FBPTAddress != 0 {
				fbpt++
			}
			if f.S3PTAddress != 0 {
				s3pt++
			}
			for _, r := range f.Records {
				assert.False(t, r.Short, "%s: %+v", p, r)
			}
		}
	}
	t.Logf("%d FPDTs: %d point at an FBPT, %d at an S3PT", n, fbpt, s3pt)
	require.Positive(t, n)
	assert.Equal(t, n, fbpt)
}

func TestParseS3PT(t *testing.T) {
	b := perfTable(SigS3PT,
		resumeRec(3, 95_000_000, 101_000_000),
		perfRec(RecS3Suspend, 1, S3SuspendRecordSize),
	)
	// The suspend record has no reserved dword: start at 4, end at 12.
	binary.LittleEndian.PutUint64(b[8+24+4:], 1_000_000_000)
	binary.LittleEndian.PutUint64(b[8+24+12:], 1_012_500_000)
	s, err := ParseS3PT(append(b, 0xEE, 0xEE)) // bytes past Length are ignored
	require.NoError(t, err)
	assert.Equal(t, uint32(len(b)), s.Length)
	require.NotNil(t, s.Resume)
	assert.Equal(t, S3ResumeRecord{Revision: 1, ResumeCount: 3, FullResume: 95_000_000, AverageResume: 101_000_000}, *s.Resume)
	require.NotNil(t, s.Suspend)
	d, ok := s.Suspend.Duration()
	assert.True(t, ok)
	assert.Equal(t, 12500*time.Microsecond, d)
	require.Len(t, s.Records, 2)
	assert.Equal(t, PerfTableHeaderSize+S3ResumeRecordSize, s.Records[1].Offset)

	_, ok = S3SuspendRecord{}.Duration()
	assert.False(t, ok, "no suspend logged yet")
	_, ok = S3SuspendRecord{SuspendStart: 10, SuspendEnd: 5}.Duration()
	assert.False(t, ok)
}

func TestParseS3PTMalformed(t *testing.T) {
	_, err := ParseS3PT(nil)
	require.ErrorIs(t, err, ErrTruncated)
	_, err = ParseS3PT(perfTable(SigFBPT))
	require.ErrorContains(t, err, "signature")
	long := perfTable(SigS3PT, resumeRec(1, 1, 1))
	_, err = ParseS3PT(long[:20])
	require.ErrorIs(t, err, ErrTruncated)
	bad := perfTable(SigS3PT)
	binary.LittleEndian.PutUint32(bad[4:], 4)
	_, err = ParseS3PT(bad)
	require.ErrorContains(t, err, "shorter than the header")

	// A short resume record is listed, flagged and not decoded; the
	// well-formed one after it is.
	short := resumeRec(9, 9, 9)[:16]
	short[2] = 16
	s, err := ParseS3PT(perfTable(SigS3PT, short, resumeRec(2, 5, 6)))
	require.NoError(t, err)
	require.Len(t, s.Records, 2)
	assert.True(t, s.Records[0].Short)
	assert.Equal(t, uint32(2), s.Resume.ResumeCount)

	// A zero-length record ends the list with an error; what came before
	// is kept.
	s, err = ParseS3PT(perfTable(SigS3PT, resumeRec(1, 2, 3), []byte{1, 0, 0, 1}))
	require.Error(t, err)
	require.NotNil(t, s)
	assert.NotNil(t, s.Resume)
	assert.Nil(t, s.Suspend)
}

func TestParseFBPT(t *testing.T) {
	rec := perfRec(RecFBPTData, 2, FBPTDataRecordSize, 1_500_000, 2_900_000_000, 3_100_000_000, 4_000_000_000, 4_010_000_000)
	f, err := ParseFBPT(perfTable(SigFBPT, perfRec(0x1000, 1, 8), rec))
	require.NoError(t, err)
	require.NotNil(t, f.Boot)
	assert.Equal(t, FBPTRecord{Revision: 2, ResetEnd: 1_500_000, OSLoaderLoadImageStart: 2_900_000_000,
		OSLoaderStartImageStart: 3_100_000_000, ExitBootServicesEntry: 4_000_000_000, ExitBootServicesExit: 4_010_000_000}, *f.Boot)
	d, ok := Phase(f.Boot.ExitBootServicesEntry, f.Boot.ExitBootServicesExit)
	assert.True(t, ok)
	assert.Equal(t, 10*time.Millisecond, d)
	_, ok = Phase(0, 5)
	assert.False(t, ok, "a point not logged")
	_, ok = Phase(7, 5)
	assert.False(t, ok)
	assert.Len(t, f.Records, 2)

	short := rec[:40]
	short[2] = 40
	f, err = ParseFBPT(perfTable(SigFBPT, short))
	require.NoError(t, err)
	assert.Nil(t, f.Boot)
	assert.True(t, f.Records[0].Short)

	_, err = ParseFBPT(perfTable(SigS3PT))
	require.Error(t, err)
}

func TestReadFPDTSubtable(t *testing.T) {
	s3pt := perfTable(SigS3PT, resumeRec(1, 2, 3))
	mem := sparseMem{0xAFF1E000: s3pt, 0x2000: []byte("FBPT\xff\xff\xff\x7f"), 0x3000: []byte("FBPT")}
	b, err := ReadFPDTSubtable(mem, 0xAFF1E000, SigS3PT)
	require.NoError(t, err)
	assert.Equal(t, s3pt, b)

	for _, tc := range []struct {
		addr uint64
		sig  string
		err  string
	}{
		{0, SigS3PT, "null address"},
		{0xAFF1E000, SigFBPT, "signature"},
		{0x2000, SigFBPT, "implausible length"},
		{0x3000, SigFBPT, "EOF"},
		{0x9000, SigFBPT, "unmapped"},
		{1 << 63, SigFBPT, "out of range"},
	} {
		_, err := ReadFPDTSubtable(mem, tc.addr, tc.sig)
		assert.ErrorContains(t, err, tc.err, "0x%x", tc.addr)
	}
}

func TestReadFPDTSysfs(t *testing.T) {
	d := FPDTSysfsDir
	fsys := fstest.MapFS{
		d + "/boot/firmware_start_ns":        {Data: []byte("1500000\n")},
		d + "/boot/bootloader_load_ns":       {Data: []byte("2900000000\n")},
		d + "/boot/bootloader_launch_ns":     {Data: []byte("3100000000\n")},
		d + "/boot/exitbootservice_start_ns": {Data: []byte("4000000000\n")},
		d + "/boot/exitbootservice_end_ns":   {Data: []byte("4010000000\n")},
		d + "/suspend/suspend_start_ns":      {Data: []byte("0\n")},
		d + "/suspend/suspend_end_ns":        {Data: []byte("0\n")},
		d + "/resume/resume_count":           {Data: []byte("4\n")},
		d + "/resume/resume_prev_ns":         {Data: []byte("95000000\n")},
		d + "/resume/resume_avg_ns":          {Data: []byte("101000000\n")},
	}
	s, err := ReadFPDTSysfs(fsys, d)
	require.NoError(t, err)
	require.NotNil(t, s.Boot)
	assert.Equal(t, uint64(4010000000), s.Boot.ExitBootServicesExit)
	assert.Equal(t, uint64(1500000), s.Boot.ResetEnd)
	require.NotNil(t, s.Suspend)
	_, ok := s.Suspend.Duration()
	assert.False(t, ok)
	assert.Equal(t, &S3ResumeRecord{ResumeCount: 4, FullResume: 95000000, AverageResume: 101000000}, s.Resume)

	// A machine with only the boot record; the names without "_ns" are
	// accepted.
	only := fstest.MapFS{}
	for _, n := range fpdtSysfsFiles["boot"] {
		only[d+"/boot/"+strings.TrimSuffix(n, "_ns")] = &fstest.MapFile{Data: []byte("7")}
	}
	s, err = ReadFPDTSysfs(only, d)
	require.NoError(t, err)
	assert.Equal(t, uint64(7), s.Boot.ExitBootServicesEntry)
	assert.Nil(t, s.Suspend)
	assert.Nil(t, s.Resume)

	_, err = ReadFPDTSysfs(fstest.MapFS{}, d)
	require.ErrorIs(t, err, fs.ErrNotExist)

	// Garbage and missing files are errors naming the file; the other
	// groups are still read.
	bad := fstest.MapFS{}
	for k, v := range fsys {
		bad[k] = v
	}
	bad[d+"/resume/resume_prev_ns"] = &fstest.MapFile{Data: []byte("-1\n")}
	delete(bad, d+"/suspend/suspend_end_ns")
	bad[d+"/boot/firmware_start_ns"] = &fstest.MapFile{Data: []byte(strings.Repeat("9", 100))}
	s, err = ReadFPDTSysfs(bad, d)
	require.Error(t, err)
	assert.ErrorContains(t, err, "resume_prev_ns")
	assert.ErrorContains(t, err, "suspend_end_ns")
	assert.ErrorContains(t, err, "firmware_start_ns")
	require.NotNil(t, s)
	assert.Nil(t, s.Resume)
	assert.Nil(t, s.Suspend)
	assert.Nil(t, s.Boot)

	big := fstest.MapFS{
		d + "/resume/resume_count":   {Data: []byte("4294967296")},
		d + "/resume/resume_prev_ns": {Data: []byte("1")},
		d + "/resume/resume_avg_ns":  {Data: []byte("1")},
	}
	_, err = ReadFPDTSysfs(big, d)
	require.ErrorContains(t, err, "32 bits")
}

// FuzzParseFPDT: the FPDT parser never panics, its records tile the table
// from the header on, and a result comes with every error but a header one.
func FuzzParseFPDT(f *testing.F) {
	seedTables(f, SigFPDT)
	f.Add(sdt(SigFPDT, 1, append(perfRec(FPDTFBPTPointer, 1, 16, 1), perfRec(FPDTS3PTPointer, 1, 16, 2)...)))
	f.Fuzz(func(t *testing.T, b []byte) {
		fp, err := ParseFPDT(table(b))
		if fp == nil {
			require.Error(t, err)
			return
		}
		off := HeaderSize
		for _, r := range fp.Records {
			require.Equal(t, off, r.Offset)
			require.Len(t, r.Raw, int(r.Length))
			off += int(r.Length)
		}
	})
}

// FuzzParsePerfTables: the FBPT and S3PT parsers and the memory reader
// never panic, and decoded records are never short.
func FuzzParsePerfTables(f *testing.F) {
	f.Add(perfTable(SigS3PT, resumeRec(3, 1, 2), perfRec(RecS3Suspend, 1, S3SuspendRecordSize)))
	f.Add(perfTable(SigFBPT, perfRec(RecFBPTData, 2, FBPTDataRecordSize, 1, 2, 3, 4, 5)))
	f.Add([]byte("S3PT\x0c\x00\x00\x00\x00\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := ParseS3PT(b); s != nil {
			for _, r := range s.Records {
				require.GreaterOrEqual(t, int(r.Length), PerfRecordHeaderSize)
			}
			if s.Resume != nil {
				require.LessOrEqual(t, int(s.Length), len(b))
			}
		} else {
			require.Error(t, err)
		}
		if fb, err := ParseFBPT(b); fb == nil {
			require.Error(t, err)
		}
		for _, sig := range []string{SigS3PT, SigFBPT} {
			got, err := ReadFPDTSubtable(sparseMem{0x1000: b}, 0x1000, sig)
			if err == nil {
				require.Equal(t, sig, string(got[:4]))
			}
		}
	})
}

// FuzzReadFPDTSysfs: whatever the files hold, the reader returns errors,
// not panics, and never a record with a field it could not read.
func FuzzReadFPDTSysfs(f *testing.F) {
	f.Add("4\n", "95000000\n", "-1")
	f.Add("", "0x10", "18446744073709551615")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		d := FPDTSysfsDir
		fsys := fstest.MapFS{
			d + "/resume/resume_count":      {Data: []byte(a)},
			d + "/resume/resume_prev_ns":    {Data: []byte(b)},
			d + "/resume/resume_avg_ns":     {Data: []byte(c)},
			d + "/suspend/suspend_start_ns": {Data: []byte(b)},
			d + "/suspend/suspend_end_ns":   {Data: []byte(c)},
		}
		s, err := ReadFPDTSysfs(fsys, d)
		require.NotNil(t, s)
		if err == nil {
			require.NotNil(t, s.Resume)
			require.NotNil(t, s.Suspend)
		} else if !errors.Is(err, fs.ErrNotExist) {
			require.True(t, s.Resume == nil || s.Suspend == nil)
		}
	})
}
