package efi

import (
	"encoding/binary"
	"fmt"
)

// Load option attributes (UEFI 2.10 §3.1.3).
const (
	LoadOptionActive         = 0x00000001
	LoadOptionForceReconnect = 0x00000002
	LoadOptionHidden         = 0x00000008
	LoadOptionCategoryMask   = 0x00001F00
	LoadOptionCategoryApp    = 0x00000100
)

// LoadOption is an EFI_LOAD_OPTION: the contents of a Boot#### (or
// Driver####, SysPrep####) variable.
type LoadOption struct {
	Attributes  uint32
	Description string
	// FilePath is the first device path of FilePathList: the device the
	// option boots. More holds the ones after it (an initrd, say).
	FilePath     DevicePath
	More         []DevicePath
	OptionalData []byte
}

// Active reports the LOAD_OPTION_ACTIVE bit.
func (o *LoadOption) Active() bool { return o.Attributes&LoadOptionActive != 0 }

// ParseLoadOption decodes an EFI_LOAD_OPTION. A device path that does not
// decode is an error (the option cannot be booted as described); the
// option's other fields are returned with it as far as they were read.
func ParseLoadOption(b []byte) (*LoadOption, error) {
	if len(b) < 6 {
		return nil, fmt.Errorf("load option of %d bytes: shorter than its 6-byte header", len(b))
	}
	o := &LoadOption{Attributes: binary.LittleEndian.Uint32(b)}
	fplen := int(binary.LittleEndian.Uint16(b[4:]))
	desc, n, ok := ucs2(b[6:])
	o.Description = desc
	if !ok {
		return o, fmt.Errorf("description is not NUL-terminated")
	}
	rest := b[6+n:]
	if fplen > len(rest) {
		return o, fmt.Errorf("FilePathListLength %d, but only %d bytes follow the description", fplen, len(rest))
	}
	if fplen == 0 {
		return o, fmt.Errorf("FilePathListLength is 0: no device path")
	}
	o.OptionalData = rest[fplen:]
	list := rest[:fplen]
	for i := 0; len(list) > 0; i++ {
		dp, r, err := ParseDevicePath(list)
		if i == 0 {
			o.FilePath = dp
		} else {
			o.More = append(o.More, dp)
		}
		if err != nil {
			return o, fmt.Errorf("device path %d: %w", i, err)
		}
		list = r
	}
	return o, nil
}
