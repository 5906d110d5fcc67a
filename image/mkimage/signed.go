package mkimage

// The stick's UEFI boot chain. Two are built:
//
//   - signed, for machines with Secure Boot on: Debian's shim (shim-signed:
//     shimx64.efi, signed by the Microsoft UEFI CA that every PC's db
//     holds) as EFI/BOOT/BOOTX64.EFI, Debian's GRUB (grub-efi-amd64-signed:
//     grubx64.efi, signed by Debian, which shim trusts) beside it, and a
//     kernel Debian signed. GRUB reads its configuration from /EFI/debian/
//     (its built-in prefix) and has shim verify the kernel; it does not
//     verify the initramfs, so fwcheck's is loaded as built. The kernel
//     then locks itself down (integrity), and loads only modules Debian
//     signed, which the initramfs takes unchanged from /lib/modules.
//     shim's MokManager (mmx64.efi) is there too, for a user who enrols a
//     key of their own; shim's fallback (fbx64.efi) is not, because it
//     writes boot entries into the firmware's variables.
//   - unsigned: GRUB made here with grub-mkimage, which any kernel boots
//     through and which a machine with Secure Boot on refuses. It is the
//     chain for a kernel that is not signed (one a user built) and where
//     the signed files are not installed.
//
// Legacy BIOS machines boot GRUB's i386-pc image either way.

import (
	"debug/pe"
	"fmt"
	"os"
	"strings"
)

// Chain names a UEFI boot chain of the stick.
type Chain string

// The chains; ChainAuto picks ChainSigned when its files are installed and
// the kernel is signed, ChainUnsigned otherwise.
const (
	ChainAuto     Chain = ""
	ChainSigned   Chain = "signed"
	ChainUnsigned Chain = "unsigned"
)

// Debian's signed boot loaders (shim-signed, grub-efi-amd64-signed).
const (
	ShimFile        = "/usr/lib/shim/shimx64.efi.signed"
	MokManagerFile  = "/usr/lib/shim/mmx64.efi.signed"
	SignedGRUBFile  = "/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed"
	signedGRUBDir   = "/EFI/debian" // the signed GRUB's built-in prefix
	signedGRUBName  = "/EFI/BOOT/grubx64.efi"
	mokManagerName  = "/EFI/BOOT/mmx64.efi"
	stickBootLoader = "/EFI/BOOT/BOOTX64.EFI"
)

// SignedFiles are the files of the signed chain; empty fields take the
// paths above.
type SignedFiles struct {
	Shim, MokManager, GRUB string
}

func (s SignedFiles) withDefaults() SignedFiles {
	if s.Shim == "" {
		s.Shim = ShimFile
	}
	if s.MokManager == "" {
		s.MokManager = MokManagerFile
	}
	if s.GRUB == "" {
		s.GRUB = SignedGRUBFile
	}
	return s
}

// SignedAvailable reports what is missing for the signed chain, naming the
// Debian packages, or nil.
func SignedAvailable(s SignedFiles) error {
	s = s.withDefaults()
	var missing []string
	for _, f := range []struct{ path, pkg string }{{s.Shim, "shim-signed"}, {s.GRUB, "grub-efi-amd64-signed"}} {
		if _, err := os.Stat(f.path); err != nil {
			missing = append(missing, f.pkg+" ("+f.path+")")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the signed boot chain needs %s", strings.Join(missing, ", "))
	}
	return nil
}

// PESigned reports whether a PE/COFF image (a boot loader, an EFI-stub
// kernel) carries an Authenticode signature: a non-empty certificate table
// (data directory 4). It says nothing of who signed it; sbverify --list
// does.
func PESigned(file string) (bool, error) {
	f, err := pe.Open(file)
	if err != nil {
		return false, fmt.Errorf("%s: not a PE/COFF image: %w", file, err)
	}
	defer f.Close()
	var dirs []pe.DataDirectory
	switch h := f.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		dirs = h.DataDirectory[:min(int(h.NumberOfRvaAndSizes), len(h.DataDirectory))]
	case *pe.OptionalHeader32:
		dirs = h.DataDirectory[:min(int(h.NumberOfRvaAndSizes), len(h.DataDirectory))]
	default:
		return false, fmt.Errorf("%s: no PE optional header", file)
	}
	const certTable = 4 // IMAGE_DIRECTORY_ENTRY_SECURITY
	return len(dirs) > certTable && dirs[certTable].Size > 0 && dirs[certTable].VirtualAddress > 0, nil
}

// pickChain resolves o's chain: the one asked for, checked, or the signed
// one when its files are installed and the kernel is signed. why says, for
// the build's message, what decided it.
func pickChain(o USBOptions) (c Chain, why string, err error) {
	signedErr := SignedAvailable(o.Signed)
	kernelSigned, kerr := PESigned(o.Kernel)
	switch o.Chain {
	case ChainSigned:
		if signedErr != nil {
			return "", "", signedErr
		}
		if kerr != nil || !kernelSigned {
			return "", "", fmt.Errorf("the signed boot chain needs a signed kernel; %s is not signed (a distribution's kernel package is, e.g. linux-image-amd64)", o.Kernel)
		}
		return ChainSigned, "asked for", nil
	case ChainUnsigned:
		return ChainUnsigned, "asked for", nil
	case ChainAuto:
	default:
		return "", "", fmt.Errorf("unknown boot chain %q (want signed or unsigned)", o.Chain)
	}
	switch {
	case signedErr != nil:
		return ChainUnsigned, signedErr.Error() + ": machines with Secure Boot on will refuse the stick", nil
	case kerr != nil || !kernelSigned:
		return ChainUnsigned, o.Kernel + " is not signed: machines with Secure Boot on will refuse the stick", nil
	}
	return ChainSigned, "shim, GRUB and the kernel are signed", nil
}

// efiLoaders returns the UEFI boot files of chain c as [host file, stick
// path] pairs, the unsigned GRUB image being unsignedGRUB.
func efiLoaders(c Chain, s SignedFiles, unsignedGRUB string) [][2]string {
	if c != ChainSigned {
		return [][2]string{{unsignedGRUB, stickBootLoader}}
	}
	s = s.withDefaults()
	out := [][2]string{{s.Shim, stickBootLoader}, {s.GRUB, signedGRUBName}}
	if _, err := os.Stat(s.MokManager); err == nil {
		out = append(out, [2]string{s.MokManager, mokManagerName})
	}
	return out
}

// stickDirs are the directories of the boot partition.
func stickDirs(c Chain) []string {
	d := []string{"::/EFI", "::/EFI/BOOT", "::/boot", "::/boot/grub", "::/fwcheck"}
	if c == ChainSigned {
		d = append(d, "::"+signedGRUBDir)
	}
	return d
}

// grubConfigs are where the chain's GRUB reads grub.cfg from.
func grubConfigs(c Chain) []string {
	if c == ChainSigned {
		// The BIOS core image reads /boot/grub; the signed GRUB its prefix.
		return []string{"/boot/grub/grub.cfg", signedGRUBDir + "/grub.cfg"}
	}
	return []string{"/boot/grub/grub.cfg"}
}
