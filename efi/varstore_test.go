package efi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testRecord is a variable record for buildStore.
type testRecord struct {
	name  string
	guid  GUID
	attrs Attributes
	state byte
	data  []byte
}

// record lays out one variable record, padded to 4 bytes with 0xFF as
// EDK II leaves it.
func (r testRecord) bytes(auth bool) []byte {
	name := ucs2z(r.name)
	b := cat(u16(varStartID), []byte{r.state, 0}, u32(uint32(r.attrs)))
	if auth {
		b = cat(b, u64(7), make([]byte, 16), u32(0))
	}
	b = cat(b, u32(uint32(len(name))), u32(uint32(len(r.data))), r.guid[:], name, r.data)
	for len(b)%4 != 0 {
		b = append(b, 0xFF)
	}
	return b
}

// buildStore lays out a VARS file as OVMF's: a firmware volume header
// (72 bytes with its block map), the store header and the records, then
// erased flash up to storeSize, and the rest of the volume (fvLength)
// erased too.
func buildStore(auth bool, storeSize, fvLength int, recs ...testRecord) []byte {
	fv := make([]byte, 72)
	copy(fv[16:], SystemNvDataFv[:])
	binary.LittleEndian.PutUint64(fv[32:], uint64(fvLength))
	copy(fv[40:], fvSignature)
	binary.LittleEndian.PutUint32(fv[44:], 0x0004feff)
	binary.LittleEndian.PutUint16(fv[48:], 72)
	fv[55] = 2
	binary.LittleEndian.PutUint32(fv[56:], uint32(fvLength/0x1000))
	binary.LittleEndian.PutUint32(fv[60:], 0x1000)
	var sum uint16
	for i := 0; i < 72; i += 2 {
		sum += binary.LittleEndian.Uint16(fv[i:])
	}
	binary.LittleEndian.PutUint16(fv[50:], -sum)
	sig := VariableStorePlain
	if auth {
		sig = VariableStoreAuth
	}
	b := cat(fv, sig[:], u32(uint32(storeSize)), []byte{storeFormatted, storeHealthy, 0, 0}, u32(0))
	for _, r := range recs {
		b = append(b, r.bytes(auth)...)
	}
	for len(b) < fvLength {
		b = append(b, 0xFF)
	}
	return b
}

var testVendor = MustGUID("f3c1a2d4-6b7e-4c59-8e0a-1d2f3b4c5e6f")

const nvbsrt = NonVolatile | BootserviceAccess | RuntimeAccess

// testRecords: a live variable, one replaced twice (two deleted copies
// and the live one), one deleted, an update in transition whose newer
// copy is complete, one in transition alone, and a write cut short.
var testRecords = []testRecord{
	{"Keep", testVendor, nvbsrt, VarAdded, []byte{1, 2, 3}},
	{"Cycle", testVendor, nvbsrt, VarAdded & VarInDeletedTransition & VarDeleted, make([]byte, 64)},
	{"Cycle", testVendor, nvbsrt, VarAdded & VarDeleted, make([]byte, 64)},
	{"Cycle", testVendor, nvbsrt, VarAdded, make([]byte, 64)},
	{"Gone", testVendor, nvbsrt, VarAdded & VarInDeletedTransition & VarDeleted, []byte{9}},
	{"Moving", testVendor, nvbsrt, VarAdded & VarInDeletedTransition, []byte{1}},
	{"Moving", testVendor, nvbsrt, VarAdded, []byte{2}},
	{"Alone", GlobalVariable, nvbsrt, VarAdded & VarInDeletedTransition, []byte{3}},
	{"Cut", testVendor, nvbsrt, VarHeaderValidOnly, []byte{4, 5}},
}

func TestParseVarStoreSynthetic(t *testing.T) {
	for _, auth := range []bool{true, false} {
		b := buildStore(auth, 0x2000, 0x4000, testRecords...)
		s, err := ParseVarStore(b)
		require.NoError(t, err, "auth %v", auth)
		hdr := map[bool]int{true: 60, false: 32}[auth]
		assert.Equal(t, auth, s.Authenticated)
		assert.Equal(t, 0, s.FVOffset)
		assert.Equal(t, uint64(0x4000), s.FVLength)
		assert.True(t, s.FVChecksumOK)
		assert.Equal(t, 72, s.Offset)
		assert.Equal(t, uint32(0x2000), s.Size)
		assert.Equal(t, byte(storeHealthy), s.State)
		require.Len(t, s.Records, len(testRecords))

		off := 72 + 28
		var live, deleted, incomplete []string
		for i, r := range s.Records {
			want := testRecords[i]
			assert.Equal(t, want.name, r.Name)
			assert.Equal(t, want.guid, r.GUID)
			assert.Equal(t, want.attrs, r.Attributes)
			assert.Equal(t, want.state, r.State)
			assert.Equal(t, want.data, r.Data)
			assert.Equal(t, off, r.Offset, "record %d", i)
			size := (hdr + 2*(len(want.name)+1) + len(want.data) + 3) &^ 3
			assert.Equal(t, size, r.Size, "record %d", i)
			if auth {
				assert.Equal(t, uint64(7), r.MonotonicCount)
			}
			off += size
			switch {
			case r.Live():
				live = append(live, r.Name)
			case r.Deleted():
				deleted = append(deleted, r.Name)
			default:
				incomplete = append(incomplete, r.Name)
			}
		}
		assert.Equal(t, []string{"Keep", "Cycle", "Moving", "Alone"}, live)
		assert.Equal(t, []string{"Cycle", "Cycle", "Gone", "Moving"}, deleted, "the transition copy a complete one follows is obsolete")
		assert.Equal(t, []string{"Cut"}, incomplete)
		assert.True(t, s.Records[5].Shadowed)
		assert.Equal(t, "added, in deleted transition (superseded)", s.Records[5].StateName())
		assert.Equal(t, "added, in deleted transition", s.Records[7].StateName())
		assert.Equal(t, "deleted", s.Records[1].StateName())
		assert.Equal(t, "header valid only", s.Records[8].StateName())
		assert.Equal(t, HeaderSize+s.LiveBytes+s.DeletedBytes+s.IncompleteBytes+s.FreeBytes, int(s.Size), "the store adds up")
		assert.Equal(t, 72+int(s.Size)-off, s.FreeBytes)
		assert.Equal(t, 3*((hdr+12+64+3)&^3), s.Records[1].Size+s.Records[2].Size+s.Records[3].Size)
		assert.Zero(t, s.DirtyFreeBytes)
		assert.Equal(t, s.FreeBytes, s.RuntimeRemaining())
		assert.Equal(t, s.RecordsStart(), s.Records[0].Offset)
		require.NotNil(t, s.Find("Cycle", testVendor))
		assert.Equal(t, s.Records[3].Offset, s.Find("Cycle", testVendor).Offset, "the live copy")
		assert.Nil(t, s.Find("Gone", testVendor))
		assert.Len(t, s.Live(), 4)
	}
}

func TestParseVarStoreEmptyAndBare(t *testing.T) {
	b := buildStore(true, 0x1000, 0x2000)
	s, err := ParseVarStore(b)
	require.NoError(t, err)
	assert.Empty(t, s.Records)
	assert.Equal(t, 0x1000-HeaderSize, s.FreeBytes)
	// The store without its volume header.
	s, err = ParseVarStore(b[72:])
	require.NoError(t, err)
	assert.Equal(t, -1, s.FVOffset)
	assert.Equal(t, 0, s.Offset)
	assert.Equal(t, 0x1000-HeaderSize, s.FreeBytes)
	// Programmed bytes in the free area are counted, not taken for records.
	b[72+HeaderSize+100] = 0
	s, err = ParseVarStore(b)
	require.NoError(t, err)
	assert.Equal(t, 1, s.DirtyFreeBytes)
}

func TestFindVarStore(t *testing.T) {
	store := buildStore(true, 0x1000, 0x2000, testRecords[:2]...)
	// Another firmware volume first (a code volume: other file system).
	other := buildStore(true, 0x1000, 0x2000)
	copy(other[16:], GlobalVariable[:])
	img := cat(bytes.Repeat([]byte{0xFF}, 0x1000), other, store, bytes.Repeat([]byte{0}, 0x100))
	s, err := FindVarStore(img)
	require.NoError(t, err)
	assert.Equal(t, 0x3000, s.FVOffset)
	assert.Equal(t, 0x3000+72, s.Offset)
	require.Len(t, s.Records, 2)
	assert.Equal(t, "Keep", s.Records[0].Name)
	_, err = FindVarStore(other)
	assert.ErrorIs(t, err, ErrNoVarStore)
	_, err = ParseVarStore(other)
	assert.Error(t, err)
}

func TestParseVarStoreHostile(t *testing.T) {
	good := buildStore(true, 0x400, 0x800, testRecords[:3]...)
	at := func(off int, v ...byte) []byte {
		b := bytes.Clone(good)
		copy(b[off:], v)
		return b
	}
	rec := 72 + 28 // the first record
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "no EDK II variable store"},
		{"not a store", bytes.Repeat([]byte{0xFF}, 4096), "no EDK II variable store"},
		{"volume header cut", good[:60], "header length 72 out of range"},
		{"header length past the input", at(48, 0xFF, 0xFF), "header length 65535 out of range"},
		{"header length too small", at(48, 8, 0), "header length 8 out of range"},
		{"volume shorter than its header", at(32, 64, 0, 0, 0, 0, 0, 0, 0), "header length 72 out of range"},
		{"store past the volume", at(32, 0, 2, 0, 0, 0, 0, 0, 0), "size 1024 out of range"},
		{"store header cut", good[:72+20], "needs 28 bytes"},
		{"store past the input", good[:72+0x300], "size 1024 out of range"},
		{"store size below its header", at(72+16, 4, 0, 0, 0), "size 4 out of range"},
		{"store size huge", at(72+16, 0xFF, 0xFF, 0xFF, 0xFF), "size 4294967295 out of range"},
		{"not formatted", at(72+20, 0xFF), "format 0xFF"},
		{"unknown signature", at(72, 1), "neither gEfiAuthenticatedVariableGuid"},
		{"name past the store", at(rec+36, 0xFF, 0xFF, 0xFF, 0x7F), "name of 2147483647"},
		{"data past the store", at(rec+40, 0, 4, 0, 0), "data of 1024 bytes"},
		{"name and data overflow 32 bits", at(rec+36, 0xFE, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF), "name of 4294967294"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := ParseVarStore(c.b)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), c.want)
			if c.want != "no EDK II variable store" {
				assert.False(t, errors.Is(err, ErrNoVarStore))
			}
		})
	}
	// A header whose sizes are still erased (a write cut short at the
	// header) takes the header's room only.
	s, err := ParseVarStore(at(rec+36, 0xFF, 0xFF, 0xFF, 0xFF))
	require.NoError(t, err)
	require.NotEmpty(t, s.Records)
	assert.Equal(t, 60, s.Records[0].Size)
	assert.Equal(t, HeaderSize+s.Used()+s.FreeBytes, int(s.Size))
}

// ovmfStore parses a VARS file Debian's ovmf package installs, skipping
// when it is absent.
func ovmfStore(t *testing.T, name string) *VarStore {
	t.Helper()
	b, err := os.ReadFile("/usr/share/OVMF/" + name)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("no /usr/share/OVMF/%s (apt-get install ovmf)", name)
	}
	require.NoError(t, err)
	s, err := ParseVarStore(b)
	require.NoError(t, err)
	assert.Equal(t, s.LiveBytes+s.DeletedBytes+s.IncompleteBytes+s.FreeBytes+HeaderSize, int(s.Size), "the store adds up")
	t.Logf("%s: store %d bytes at 0x%x, %d records (%d live), %d bytes live, %d deleted, %d incomplete, %d free",
		name, s.Size, s.Offset, len(s.Records), len(s.Live()), s.LiveBytes, s.DeletedBytes, s.IncompleteBytes, s.FreeBytes)
	return s
}

// TestOVMFVarsEmpty: OVMF's empty 4 MiB store is an authenticated store
// of 256 KiB after the volume header, all free: the 262044 bytes that
// QueryVariableInfo reports as the store's size under OVMF.
func TestOVMFVarsEmpty(t *testing.T) {
	s := ovmfStore(t, "OVMF_VARS_4M.fd")
	assert.True(t, s.Authenticated)
	assert.Equal(t, VariableStoreAuth, s.Signature)
	assert.True(t, s.FVChecksumOK)
	assert.Equal(t, 72, s.Offset)
	assert.Equal(t, uint32(0x40000-72), s.Size)
	assert.Empty(t, s.Records)
	assert.Equal(t, 262044, s.FreeBytes)
	assert.Zero(t, s.DirtyFreeBytes)
}

// TestOVMFVarsMicrosoftKeys: the store with Microsoft's keys enrolled
// holds PK, KEK, db and dbx live under their Secure Boot GUIDs, with the
// same data the guest reads through efivarfs (the recorded snapshot of a
// boot from this store), and the deleted records the enrolment left.
func TestOVMFVarsMicrosoftKeys(t *testing.T) {
	s := ovmfStore(t, "OVMF_VARS_4M.ms.fd")
	assert.True(t, s.Authenticated)
	assert.Zero(t, s.IncompleteBytes)
	assert.Positive(t, s.DeletedBytes, "the enrolment replaced variables, leaving deleted records")
	snap, err := ReadVars(snapshotFS(t, "../tests/all/testdata/efitpm/ovmf-q35-ms-vars.tar.gz"), VarsDir)
	require.NoError(t, err)
	for _, k := range []struct {
		name string
		g    GUID
	}{{"PK", GlobalVariable}, {"KEK", GlobalVariable}, {"db", ImageSecurityDatabase}, {"dbx", ImageSecurityDatabase}} {
		r := s.Find(k.name, k.g)
		require.NotNil(t, r, "%s-%v live in the store", k.name, k.g)
		assert.Equal(t, NonVolatile|BootserviceAccess|RuntimeAccess|TimeBasedAuthenticatedWriteAccess, r.Attributes, k.name)
		ls, err := ParseSignatureLists(r.Data)
		require.NoError(t, err, k.name)
		assert.NotEmpty(t, ls, k.name)
		if v := snap.Get(k.name, k.g); assert.NotNil(t, v, "%s in the snapshot", k.name) {
			assert.Equal(t, v.Data, r.Data, "%s: the store holds what the guest reads", k.name)
		}
	}
	pk := Certificates(mustLists(t, s.Find("PK", GlobalVariable).Data))
	require.Len(t, pk, 1)
	kek := Certificates(mustLists(t, s.Find("KEK", GlobalVariable).Data))
	var subjects []string
	for _, c := range kek {
		subjects = append(subjects, c.Subject.CommonName)
	}
	assert.Contains(t, subjects, "Microsoft Corporation KEK CA 2011")
	// Each variable has one live record.
	seen := map[string]bool{}
	for _, r := range s.Live() {
		k := r.Name + "-" + r.GUID.String()
		assert.False(t, seen[k], "%s live twice", k)
		seen[k] = true
	}
}

func mustLists(t *testing.T, b []byte) []SignatureList {
	t.Helper()
	ls, err := ParseSignatureLists(b)
	require.NoError(t, err)
	return ls
}

// TestOVMFVarsSmall: the 2 MiB build's store (OVMF_VARS.fd) is smaller
// but laid out the same.
func TestOVMFVarsSmall(t *testing.T) {
	s := ovmfStore(t, "OVMF_VARS.fd")
	assert.True(t, s.Authenticated)
	assert.Empty(t, s.Records)
	assert.Equal(t, int(s.Size)-HeaderSize, s.FreeBytes)
}

func FuzzParseVarStore(f *testing.F) {
	f.Add(buildStore(true, 0x400, 0x800, testRecords...))
	f.Add(buildStore(false, 0x400, 0x800, testRecords...))
	f.Add(buildStore(true, 0x400, 0x800, testRecords...)[72:])
	// A store with real variables (Secure Boot keys, boot options),
	// kept small: the fuzzer slows with large inputs.
	recs := append([]testRecord(nil), testRecords...)
	for _, n := range []string{"PK", "KEK", "Boot0000"} {
		recs = append(recs, testRecord{n, GlobalVariable, nvbsrt | TimeBasedAuthenticatedWriteAccess, VarAdded, sigList(CertSHA256, testVendor, make([]byte, 32))})
	}
	f.Add(buildStore(true, 0x800, 0x800, recs...))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, parse := range []func([]byte) (*VarStore, error){ParseVarStore, FindVarStore} {
			s, err := parse(b)
			if err != nil {
				continue
			}
			if HeaderSize+s.Used()+s.FreeBytes != int(s.Size) {
				t.Fatalf("store of %d bytes: %d used, %d free", s.Size, s.Used(), s.FreeBytes)
			}
			end := s.RecordsStart()
			for _, r := range s.Records {
				if r.Offset != end || r.Size <= 0 {
					t.Fatalf("record at 0x%x of %d bytes, expected at 0x%x", r.Offset, r.Size, end)
				}
				end += r.Size
				_ = r.StateName()
			}
			if end > len(b) || end > s.Offset+int(s.Size) {
				t.Fatalf("records end at 0x%x, past the store or the input", end)
			}
		}
	})
}
