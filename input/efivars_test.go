package input

import (
	"bytes"
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwcheck/fwcheck/efi"
)

var testGUID = efi.MustGUID("f3c1a2d4-6b7e-4c59-8e0a-1d2f3b4c5e6f")

const nvbsrt = efi.NonVolatile | efi.BootserviceAccess | efi.RuntimeAccess

func TestEncodeDecodeVariable(t *testing.T) {
	b := EncodeVariable(nvbsrt|efi.AppendWrite, []byte{1, 2, 3})
	assert.Equal(t, []byte{0x47, 0, 0, 0, 1, 2, 3}, b)
	a, d, err := DecodeVariable(b)
	require.NoError(t, err)
	assert.Equal(t, nvbsrt|efi.AppendWrite, a)
	assert.Equal(t, []byte{1, 2, 3}, d)
	_, _, err = DecodeVariable([]byte{7, 0, 0})
	assert.ErrorContains(t, err, "3 bytes, shorter than the attribute word")
}

func TestParseVariableName(t *testing.T) {
	n, err := ParseVariableName("Boot0001-8be4df61-93ca-11d2-aa0d-00e098032b8c")
	require.NoError(t, err)
	assert.Equal(t, VariableName{"Boot0001", efi.GlobalVariable}, n)
	assert.Equal(t, "Boot0001-8be4df61-93ca-11d2-aa0d-00e098032b8c", n.String())
	for _, bad := range []string{"", "Boot0001", "-8be4df61-93ca-11d2-aa0d-00e098032b8c", "X-8be4df61-93ca-11d2-aa0d-00e098032b8z", "X_8be4df61-93ca-11d2-aa0d-00e098032b8c"} {
		_, err := ParseVariableName(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestMemVariables(t *testing.T) {
	m := &MemVariables{Size: 1000, MaxVar: 300}
	i, err := m.Info()
	require.NoError(t, err)
	assert.Equal(t, VariableInfo{Reported: true, Total: 1000, Free: 1000, Available: 1000}, i)

	require.NoError(t, m.Set("A", testGUID, nvbsrt, []byte{1, 2}))
	i, _ = m.Info()
	assert.Equal(t, uint64(1000-60-4-2), i.Free, "header, UCS-2 name with its terminator, data")
	assert.Equal(t, uint64(66), i.Used())
	require.NoError(t, m.Append("A", testGUID, nvbsrt, []byte{3}))
	a, d, err := m.Get("A", testGUID)
	require.NoError(t, err)
	assert.Equal(t, nvbsrt, a)
	assert.Equal(t, []byte{1, 2, 3}, d)

	// What a firmware at runtime refuses.
	for _, attrs := range []efi.Attributes{efi.NonVolatile | efi.BootserviceAccess, efi.BootserviceAccess | efi.RuntimeAccess, efi.NonVolatile | efi.RuntimeAccess, nvbsrt | efi.AuthenticatedWriteAccess} {
		assert.ErrorIs(t, m.Set("B", testGUID, attrs, []byte{1}), ErrVariableParameter, "%v", attrs)
	}
	assert.ErrorIs(t, m.Set("A", testGUID, nvbsrt&^efi.RuntimeAccess, []byte{1}), ErrVariableParameter)
	assert.ErrorIs(t, m.Set("", testGUID, nvbsrt, []byte{1}), ErrVariableParameter)
	assert.ErrorIs(t, m.Set("B", testGUID, nvbsrt, make([]byte, 300)), ErrVariableParameter, "over MaxVar")
	require.NoError(t, m.Set("B", testGUID, nvbsrt, make([]byte, 200)))
	require.NoError(t, m.Set("C", testGUID, nvbsrt, make([]byte, 200)))
	require.NoError(t, m.Set("D", testGUID, nvbsrt, make([]byte, 200)))
	assert.ErrorIs(t, m.Set("E", testGUID, nvbsrt, make([]byte, 200)), ErrVariableSpace)

	ns, _ := m.Names()
	assert.Equal(t, []VariableName{{"A", testGUID}, {"B", testGUID}, {"C", testGUID}, {"D", testGUID}}, ns)
	require.NoError(t, m.Set("B", testGUID, nvbsrt, nil), "no data deletes")
	require.NoError(t, m.Delete("C", testGUID))
	assert.ErrorIs(t, m.Delete("C", testGUID), fs.ErrNotExist)
	_, _, err = m.Get("C", testGUID)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	ns, _ = m.Names()
	assert.Equal(t, []VariableName{{"A", testGUID}, {"D", testGUID}}, ns)

	m.NoAppend = true
	assert.ErrorIs(t, m.Append("A", testGUID, nvbsrt, []byte{4}), ErrVariableParameter)
	m.Unreported = true
	i, _ = m.Info()
	assert.False(t, i.Reported)

	leaky := &MemVariables{Size: 1000, MaxVar: 300, Leak: 10}
	for range 3 {
		require.NoError(t, leaky.Set("A", testGUID, nvbsrt, []byte{1}))
		require.NoError(t, leaky.Delete("A", testGUID))
	}
	i, _ = leaky.Info()
	assert.Equal(t, uint64(970), i.Free)
}

// On a directory that is not efivarfs the live control hands out no store.
func TestLiveVariablesNotEfivarfs(t *testing.T) {
	_, err := Variables(LiveControl(t.TempDir()))
	require.Error(t, err)
	_, err = Variables(nil)
	assert.True(t, errors.Is(err, ErrNoControl))
}

// The phased store reads the machine afresh after each change.
func TestPhasedVariables(t *testing.T) {
	m := New(Empty(), Options{})
	c := Phased(memControl{&MemVariables{Size: 1000, MaxVar: 300}}, m)
	vs, err := Variables(c)
	require.NoError(t, err)
	cached := func() int { m.mu.Lock(); defer m.mu.Unlock(); return len(m.cache) }
	_, _ = EFIVars.Get(m)
	require.Equal(t, 1, cached())
	require.NoError(t, vs.Set("A", testGUID, nvbsrt, []byte{1}))
	assert.Zero(t, cached(), "efi-vars is read afresh after a write")
	_, _ = EFIVars.Get(m)
	require.NoError(t, vs.Append("A", testGUID, nvbsrt, []byte{2}))
	assert.Zero(t, cached(), "and after an append")
	_, d, err := vs.Get("A", testGUID)
	require.NoError(t, err)
	assert.Equal(t, []byte{1, 2}, d)
	_, _ = EFIVars.Get(m)
	require.NoError(t, vs.Delete("A", testGUID))
	assert.Zero(t, cached(), "and after a delete")
}

type memControl struct{ vs *MemVariables }

func (memControl) Mark(string) error { return nil }
func (memControl) Suspend(SuspendRequest) (SuspendResult, error) {
	return SuspendResult{}, ErrNoControl
}
func (memControl) Reboot(string) error                 { return ErrNoControl }
func (c memControl) Variables() (VariableStore, error) { return c.vs, nil }

func FuzzDecodeVariable(f *testing.F) {
	f.Add([]byte{7, 0, 0, 0, 1})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		a, d, err := DecodeVariable(b)
		if err != nil {
			return
		}
		if !bytes.Equal(EncodeVariable(a, d), b) {
			t.Fatalf("%x does not round-trip", b)
		}
	})
}

func FuzzParseVariableName(f *testing.F) {
	f.Add("Boot0001-8be4df61-93ca-11d2-aa0d-00e098032b8c")
	f.Add("x")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseVariableName(s)
		if err != nil {
			return
		}
		again, err := ParseVariableName(n.String())
		if err != nil || again != n {
			t.Fatalf("%q -> %v does not round-trip (%v)", s, n, err)
		}
	})
}

// FuzzMemVariables runs operations from the fuzzer's bytes on a store and
// checks its accounting: the free space never exceeds the store's size and
// is what the variables take, whatever was refused.
func FuzzMemVariables(f *testing.F) {
	f.Add([]byte{0, 1, 10, 1, 1, 5, 2, 1, 0, 3, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		m := &MemVariables{Size: 2000, MaxVar: 500}
		names := []string{"A", "B", "C"}
		for i := 0; i+2 < len(ops) && i < 3000; i += 3 {
			name, n := names[int(ops[i+1])%3], int(ops[i+2])*3
			attrs := efi.Attributes(ops[i+1]) & 0x47
			switch ops[i] % 4 {
			case 0:
				_ = m.Set(name, testGUID, attrs, make([]byte, n))
			case 1:
				_ = m.Append(name, testGUID, attrs, make([]byte, n))
			case 2:
				_ = m.Delete(name, testGUID)
			case 3:
				_, _, _ = m.Get(name, testGUID)
			}
			info, _ := m.Info()
			if info.Free > info.Total {
				t.Fatalf("free %d over the store's %d", info.Free, info.Total)
			}
			var want uint64
			ns, _ := m.Names()
			for _, v := range ns {
				_, d, err := m.Get(v.Name, v.GUID)
				if err != nil {
					t.Fatalf("listed %v does not read: %v", v, err)
				}
				want += memVarSize(v.Name, d)
			}
			if info.Used() != want {
				t.Fatalf("used %d, the variables take %d", info.Used(), want)
			}
		}
	})
}
