package image

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ResultsLabel is the volume label of the FAT partition the live image
// writes its results to.
const ResultsLabel = "FWCHECK"

// ErrNotFAT means a boot sector does not hold a FAT BIOS parameter block.
var ErrNotFAT = errors.New("not a FAT file system")

// FATLabel returns the volume label recorded in the extended BIOS parameter
// block of a FAT12, FAT16 or FAT32 boot sector read from r, with the
// padding spaces removed.
func FATLabel(r io.ReaderAt) (string, error) {
	v, err := ReadFATVolume(r)
	return v.Label, err
}

// FATVolume is the identity a FAT boot sector records.
type FATVolume struct {
	// Label is the volume label without its padding spaces.
	Label string
	// Serial is the volume serial number as GRUB and Linux print it,
	// "1A2B-3C4D" (upper case).
	Serial string
}

// ReadFATVolume reads the label and serial number from the extended BIOS
// parameter block of a FAT12, FAT16 or FAT32 boot sector read from r.
func ReadFATVolume(r io.ReaderAt) (FATVolume, error) {
	bs := make([]byte, 512)
	if _, err := r.ReadAt(bs, 0); err != nil {
		return FATVolume{}, err
	}
	if bs[510] != 0x55 || bs[511] != 0xaa {
		return FATVolume{}, ErrNotFAT
	}
	bytesPerSector := binary.LittleEndian.Uint16(bs[11:])
	switch bytesPerSector {
	case 512, 1024, 2048, 4096:
	default:
		return FATVolume{}, ErrNotFAT
	}
	// FAT32 has a zero 16-bit FAT size and its extended BPB at 0x40;
	// FAT12/16 keep theirs at 0x24.
	ext := 0x24
	if binary.LittleEndian.Uint16(bs[22:]) == 0 {
		ext = 0x40
	}
	sig := bs[ext+2]
	fsType := string(bs[ext+18 : ext+26])
	if sig != 0x29 || !strings.HasPrefix(fsType, "FAT") {
		return FATVolume{}, ErrNotFAT
	}
	id := binary.LittleEndian.Uint32(bs[ext+3:])
	return FATVolume{
		Label:  strings.TrimRight(string(bs[ext+7:ext+18]), " \x00"),
		Serial: fmt.Sprintf("%04X-%04X", id>>16, id&0xffff),
	}, nil
}
