package qemu

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProbeSector(t *testing.T) {
	s := probeSector()
	require.Len(t, s, 512)
	assert.Equal(t, []byte{0x55, 0xaa}, s[510:])
	assert.Equal(t, []byte{0xba, 0xf8, 0x03}, s[:3], "mov dx, COM1")
	var text []byte
	for i := 3; i+2 < 510 && s[i] == 0xb0 && s[i+2] == 0xee; i += 3 {
		text = append(text, s[i+1])
	}
	assert.Equal(t, probeMagic+"\n", string(text))
}

func fakeFirmware(t *testing.T) {
	dir := t.TempDir()
	code, vars := filepath.Join(dir, "CODE.fd"), filepath.Join(dir, "VARS.fd")
	require.NoError(t, os.WriteFile(code, []byte("code"), 0o644))
	require.NoError(t, os.WriteFile(vars, []byte("vars"), 0o644))
	t.Setenv("FWCHECK_OVMF_CODE", code)
	t.Setenv("FWCHECK_OVMF_VARS", vars)
}

func TestArgsOVMF(t *testing.T) {
	fakeFirmware(t)
	tmp := t.TempDir()
	c := Config{Machine: OVMF, Kernel: "/k", Initramfs: "/i.cpio.gz", Append: "fwcheck.after=poweroff", Accel: "tcg", Disks: []string{"/d.img"}}
	a, err := c.args(tmp, false)
	require.NoError(t, err)
	cmd := strings.Join(a, " ")
	assert.Contains(t, cmd, "-machine q35,accel=tcg")
	assert.Contains(t, cmd, "-cpu max,-erms,-fsrm -m", "TCG runs REP MOVSB/STOSB an iteration at a time: see TCGCPU")
	assert.Contains(t, cmd, "if=pflash,format=raw,unit=0,readonly=on,file="+os.Getenv("FWCHECK_OVMF_CODE"))
	assert.Contains(t, cmd, "if=pflash,format=raw,unit=1,file="+filepath.Join(tmp, "OVMF_VARS.fd"))
	assert.Contains(t, cmd, "-serial stdio")
	assert.Contains(t, cmd, "-no-reboot")
	assert.Contains(t, cmd, "-drive if=ide,format=raw,file=/d.img")
	assert.Equal(t, "console=ttyS0,115200 panic=-1 iomem=relaxed cryptomgr.notests initcall_blacklist=crypto_kdf108_init no_timer_check fwcheck.after=poweroff", a[len(a)-3], "TCG skips the IO-APIC timer check")
	vars, err := os.ReadFile(filepath.Join(tmp, "OVMF_VARS.fd"))
	require.NoError(t, err)
	assert.Equal(t, "vars", string(vars), "each boot gets a copy of the variable store")

	a, err = Config{Machine: OVMF, Kernel: "/k", Initramfs: "/i", Accel: "kvm"}.args(tmp, true)
	require.NoError(t, err)
	cmd = strings.Join(a, " ")
	assert.Contains(t, cmd, "-cpu host")
	assert.Contains(t, cmd, "-nographic")
	assert.NotContains(t, cmd, "-serial stdio")
	assert.NotContains(t, cmd, "no_timer_check", "KVM guests need no help")
}

func TestArgsSeaBIOS(t *testing.T) {
	if _, err := seabiosArgs(""); err != nil {
		t.Skip(err)
	}
	a, err := Config{Machine: SeaBIOS, Kernel: "/k", Initramfs: "/i", Accel: "tcg", Memory: 256}.args(t.TempDir(), false)
	require.NoError(t, err)
	cmd := strings.Join(a, " ")
	assert.Contains(t, cmd, "-machine pc,accel=tcg")
	assert.Contains(t, cmd, "-m 256")
	assert.Contains(t, cmd, "-bios ")
	assert.NotContains(t, cmd, "pflash")
}

func TestMissingOVMF(t *testing.T) {
	t.Setenv("FWCHECK_OVMF_CODE", "")
	saved := ovmfPairs
	ovmfPairs = [][2]string{{"/nonexistent/CODE.fd", "/nonexistent/VARS.fd"}}
	defer func() { ovmfPairs = saved }()
	_, err := Config{Machine: OVMF}.args(t.TempDir(), false)
	assert.ErrorContains(t, err, "OVMF firmware not found")
}

func TestFindKernelFromEnv(t *testing.T) {
	k := filepath.Join(t.TempDir(), "vmlinuz")
	require.NoError(t, os.WriteFile(k, []byte("x"), 0o644))
	t.Setenv("FWCHECK_KERNEL", k)
	got, err := FindKernel()
	require.NoError(t, err)
	assert.Equal(t, k, got)
	t.Setenv("FWCHECK_KERNEL", k+".absent")
	_, err = FindKernel()
	assert.ErrorContains(t, err, "not readable")
}

func TestKVMWorksWithoutKVM(t *testing.T) {
	if _, err := os.Stat("/dev/kvm"); err == nil {
		t.Skip("/dev/kvm exists: the probe result depends on the host")
	}
	assert.False(t, KVMWorks(time.Second))
}

// TestSyncBuffer: the probe reads the buffer while QEMU's output is copied
// into it; concurrent writes and reads lose nothing (and -race sees no
// race).
func TestSyncBuffer(t *testing.T) {
	var b syncBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				b.Write([]byte("ab"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, strings.Repeat("ab", 8000), b.String())
}

// TestProbeBootsUnderTCG shows the KVM probe can succeed: the same boot
// sector, under TCG, prints its message.
func TestProbeBootsUnderTCG(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping a QEMU boot")
	}
	if err := Available(SeaBIOS); err != nil {
		t.Skip(err)
	}
	assert.True(t, probe("tcg", 30*time.Second))
}

func TestArgsNetboot(t *testing.T) {
	tmp := t.TempDir()
	c := Config{Machine: SeaBIOS, Accel: "tcg", Net: &Net{TFTP: "/srv/tftp", BootFile: "fwcheck.ipxe"}}
	a, err := c.args(tmp, false)
	require.NoError(t, err)
	s := strings.Join(a, " ")
	assert.Contains(t, s, "-netdev user,id=n0,tftp=/srv/tftp,bootfile=fwcheck.ipxe -device virtio-net-pci,netdev=n0,bootindex=0")
	assert.NotContains(t, s, "-kernel", "the firmware's iPXE boots the kernel")
	// With a kernel of its own, the card is only a card.
	c.Kernel, c.Initramfs = "/k", "/i"
	a, err = c.args(tmp, false)
	require.NoError(t, err)
	assert.Contains(t, a, "virtio-net-pci,netdev=n0")
	assert.Equal(t, "console=ttyS0,115200 panic=-1 iomem=relaxed cryptomgr.notests initcall_blacklist=crypto_kdf108_init no_timer_check", KernelCmdline("tcg"))
}

// The labgrid example boots the image as the harness does; its CPU under
// TCG must stay TCGCPU.
func TestLabgridExampleCPU(t *testing.T) {
	b, err := os.ReadFile("../../examples/labgrid/conftest.py")
	require.NoError(t, err)
	assert.Contains(t, string(b), `cpu = "`+TCGCPU+`" if accel == "tcg"`)
}
