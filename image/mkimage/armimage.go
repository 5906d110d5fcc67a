package mkimage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// The arm64 kernel Image (Documentation/arch/arm64/booting.rst): a 64-byte
// header whose magic "ARM\x64" is at offset 0x38. Debian's arm64 vmlinuz is
// such an Image, uncompressed, with an EFI stub (a PE header, "MZ" at 0),
// which is what lets UEFI firmware start it directly.
const (
	arm64MagicOff = 0x38
	arm64Magic    = 0x644d5241 // "ARM\x64", little-endian
	// maxKernelScan bounds the search for the banner: Debian's arm64
	// Image is 32 MiB.
	maxKernelScan = 128 << 20
)

func isArm64Image(hdr []byte) bool {
	return len(hdr) >= arm64MagicOff+4 && binary.LittleEndian.Uint32(hdr[arm64MagicOff:]) == arm64Magic
}

// KernelArch returns the architecture of a kernel file as GOARCH names it:
// "amd64" for an x86 bzImage (the boot protocol header), "arm64" for an
// arm64 Image.
func KernelArch(vmlinuz string) (string, error) {
	f, err := os.Open(vmlinuz)
	if err != nil {
		return "", err
	}
	defer f.Close()
	hdr := make([]byte, 0x210)
	if _, err := f.ReadAt(hdr, 0); err != nil {
		return "", fmt.Errorf("kernel: reading boot header: %w", err)
	}
	switch {
	case string(hdr[0x202:0x206]) == "HdrS":
		return "amd64", nil
	case isArm64Image(hdr):
		return "arm64", nil
	}
	return "", errors.New("kernel: neither an x86 bzImage nor an arm64 Image")
}

// arm64Release finds the release in an arm64 Image's banner, the
// linux_banner string "Linux version RELEASE (BUILDER) ...". The arm64
// header has no version field, so the uncompressed image is searched (a
// compressed EFI "zboot" image would hide it: such a kernel needs
// --modules DIR).
func arm64Release(r io.ReaderAt) (string, error) {
	b, err := io.ReadAll(io.NewSectionReader(r, 0, maxKernelScan))
	if err != nil {
		return "", fmt.Errorf("kernel: reading arm64 Image: %w", err)
	}
	if rel := bannerRelease(b); rel != "" {
		return rel, nil
	}
	return "", errors.New("kernel: arm64 Image without a readable \"Linux version\" banner (a compressed image? pass --modules DIR)")
}

// bannerRelease returns the release of the first "Linux version R (" in b
// whose R starts with a digit and is printable, or "".
func bannerRelease(b []byte) string {
	const marker = "Linux version "
	for len(b) > 0 {
		i := bytes.Index(b, []byte(marker))
		if i < 0 {
			return ""
		}
		b = b[i+len(marker):]
		end := bytes.IndexByte(b, ' ')
		if end <= 0 || end > 64 || len(b) < end+2 || b[end+1] != '(' || b[0] < '0' || b[0] > '9' {
			continue
		}
		rel := b[:end]
		if bytes.IndexFunc(rel, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
			continue
		}
		return string(rel)
	}
	return ""
}
