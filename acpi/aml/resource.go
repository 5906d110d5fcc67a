package aml

import (
	"encoding/binary"
	"fmt"
)

// Resource is one decoded resource descriptor of a resource template
// (the buffer _CRS, _PRS and _SRS use; ACPI 6.5 §6.4).
type Resource struct {
	// Offset is the descriptor's byte offset in the template.
	Offset int
	// Kind names the descriptor as ASL does: "IRQ", "IRQNoFlags", "DMA",
	// "IO", "FixedIO", "FixedDMA", "Memory24", "Memory32",
	// "Memory32Fixed", "WordSpace", "DWordSpace", "QWordSpace",
	// "ExtendedSpace", "Interrupt", "GenericRegister", "GpioInt",
	// "GpioIo", "I2cSerialBus", "SpiSerialBus", "UartSerialBus",
	// "CSI2Bus", "SerialBus", "StartDependentFn", "EndDependentFn",
	// "VendorShort", "VendorLong", "PinFunction", "PinConfig",
	// "PinGroup", "PinGroupFunction", "PinGroupConfig", "ClockInput",
	// or "Large(0xNN)" for a large item this package does not know.
	Kind string
	// Space is the address space of a range: "Memory", "IO",
	// "BusNumber", or "Vendor(N)" for address space descriptors with a
	// vendor-defined type.
	Space string
	// Min, Max, Length, Alignment (Granularity for address spaces) and
	// Translation describe IO, memory and address space descriptors:
	// Min/Max bound the base address, Length is the range's size.
	Min, Max, Length, Alignment, Translation uint64
	// Producer is set for an address space a bridge produces (decodes
	// for its children) rather than consumes.
	Producer bool
	// Writeable is a memory descriptor's read-write bit.
	Writeable bool
	// IRQs are the interrupts of IRQ and Interrupt descriptors; DMA
	// channels for DMA.
	IRQs []uint32
	// Flags are the descriptor's information or flags byte(s) as they
	// stand (IRQ information, Interrupt vector flags, GPIO interrupt and
	// I/O flags).
	Flags uint16
	// Pins are the pins of a GPIO descriptor.
	Pins []uint16
	// Source is the ResourceSource name, where the descriptor has one
	// (Interrupt, address spaces, GPIO, serial buses).
	Source string
	// SlaveAddress and Speed are an I2C (address and connection speed),
	// SPI (device selection and speed) or UART (baud rate) connection's.
	SlaveAddress uint16
	Speed        uint32
	// Raw holds the descriptor's bytes.
	Raw []byte
}

// Range returns the address range a memory, IO or address space
// descriptor covers, taking its base as Min; ok is false for other
// descriptors and for empty ranges.
func (r *Resource) Range() (start, end uint64, ok bool) {
	if r.Space == "" || r.Length == 0 {
		return 0, 0, false
	}
	end = r.Min + r.Length - 1
	if end < r.Min {
		end = ^uint64(0)
	}
	return r.Min, end, true
}

func (r Resource) String() string {
	s := fmt.Sprintf("+0x%X %s", r.Offset, r.Kind)
	if r.Space != "" {
		s += fmt.Sprintf(" %s min 0x%X max 0x%X length 0x%X", r.Space, r.Min, r.Max, r.Length)
	}
	if len(r.IRQs) > 0 {
		s += fmt.Sprintf(" %v", r.IRQs)
	}
	if len(r.Pins) > 0 {
		s += fmt.Sprintf(" pins %v", r.Pins)
	}
	if r.SlaveAddress != 0 || r.Speed != 0 {
		s += fmt.Sprintf(" address 0x%X speed %d", r.SlaveAddress, r.Speed)
	}
	if r.Source != "" {
		s += " " + r.Source
	}
	return s
}

// ResourceError is a malformed resource template: what is wrong and at
// which byte offset of the template.
type ResourceError struct {
	Offset int
	Msg    string
}

func (e *ResourceError) Error() string {
	return fmt.Sprintf("resource template +0x%X: %s", e.Offset, e.Msg)
}

// smallNames are the small resource item names (ACPI 6.5 §6.4.2).
var smallNames = map[byte]string{0x04: "IRQ", 0x05: "DMA", 0x06: "StartDependentFn", 0x07: "EndDependentFn",
	0x08: "IO", 0x09: "FixedIO", 0x0A: "FixedDMA", 0x0E: "VendorShort", 0x0F: "EndTag"}

// smallMin is the smallest length each small item may have.
var smallMin = map[byte]int{0x04: 2, 0x05: 2, 0x06: 0, 0x07: 0, 0x08: 7, 0x09: 3, 0x0A: 5, 0x0E: 1, 0x0F: 1}

// largeNames are the large resource item names (ACPI 6.5 §6.4.3).
var largeNames = map[byte]string{0x01: "Memory24", 0x02: "GenericRegister", 0x04: "VendorLong",
	0x05: "Memory32", 0x06: "Memory32Fixed", 0x07: "DWordSpace", 0x08: "WordSpace", 0x09: "Interrupt",
	0x0A: "QWordSpace", 0x0B: "ExtendedSpace", 0x0C: "GpioInt", 0x0D: "PinFunction", 0x0E: "SerialBus",
	0x0F: "PinConfig", 0x10: "PinGroup", 0x11: "PinGroupFunction", 0x12: "PinGroupConfig", 0x13: "ClockInput"}

// largeMin is the smallest data length of the large items decoded here.
var largeMin = map[byte]int{0x01: 9, 0x02: 12, 0x05: 17, 0x06: 9, 0x07: 23, 0x08: 13, 0x09: 6, 0x0A: 43,
	0x0B: 53, 0x0C: 20, 0x0E: 9}

// DecodeResources decodes a resource template: descriptors up to and
// including the End Tag. A descriptor that runs past the buffer, is shorter
// than its type requires, or a template without an End Tag is an error;
// the descriptors decoded before it are returned with it.
func DecodeResources(b []byte) ([]Resource, error) {
	var out []Resource
	for i := 0; i < len(b); {
		tag := b[i]
		r := Resource{Offset: i}
		var data []byte
		if tag&0x80 == 0 {
			name, n := tag>>3&0x0F, int(tag&7)
			if i+1+n > len(b) {
				return out, &ResourceError{i, fmt.Sprintf("small descriptor 0x%02X of %d bytes runs past the end of the %d-byte template", tag, n, len(b))}
			}
			kind, ok := smallNames[name]
			if !ok {
				return out, &ResourceError{i, fmt.Sprintf("reserved small item name 0x%X", name)}
			}
			if n < smallMin[name] {
				return out, &ResourceError{i, fmt.Sprintf("%s descriptor of %d bytes, shorter than the %d it needs", kind, n, smallMin[name])}
			}
			data = b[i+1 : i+1+n]
			r.Kind, r.Raw = kind, b[i:i+1+n]
			decodeSmall(&r, name, data)
			out = append(out, r)
			i += 1 + n
			if name == 0x0F {
				return out, nil
			}
			continue
		}
		if i+3 > len(b) {
			return out, &ResourceError{i, "large descriptor header runs past the end of the template"}
		}
		name := tag & 0x7F
		n := int(binary.LittleEndian.Uint16(b[i+1:]))
		if i+3+n > len(b) {
			return out, &ResourceError{i, fmt.Sprintf("large descriptor 0x%02X of %d bytes runs past the end of the %d-byte template", tag, n, len(b))}
		}
		kind, ok := largeNames[name]
		if !ok {
			kind = fmt.Sprintf("Large(0x%02X)", tag)
		}
		if n < largeMin[name] {
			return out, &ResourceError{i, fmt.Sprintf("%s descriptor of %d bytes, shorter than the %d it needs", kind, n, largeMin[name])}
		}
		data = b[i+3 : i+3+n]
		r.Kind, r.Raw = kind, b[i:i+3+n]
		if err := decodeLarge(&r, name, data); err != nil {
			return out, &ResourceError{i, err.Error()}
		}
		out = append(out, r)
		i += 3 + n
	}
	return out, &ResourceError{len(b), "no End Tag"}
}

func u16(b []byte, o int) uint64 { return uint64(binary.LittleEndian.Uint16(b[o:])) }
func u32(b []byte, o int) uint64 { return uint64(binary.LittleEndian.Uint32(b[o:])) }
func u64(b []byte, o int) uint64 { return binary.LittleEndian.Uint64(b[o:]) }

func decodeSmall(r *Resource, name byte, d []byte) {
	switch name {
	case 0x04:
		mask := u16(d, 0)
		for i := uint32(0); i < 16; i++ {
			if mask>>i&1 != 0 {
				r.IRQs = append(r.IRQs, i)
			}
		}
		if len(d) >= 3 {
			r.Flags = uint16(d[2])
		} else {
			r.Kind = "IRQNoFlags"
		}
	case 0x05:
		for i := uint32(0); i < 8; i++ {
			if d[0]>>i&1 != 0 {
				r.IRQs = append(r.IRQs, i)
			}
		}
		r.Flags = uint16(d[1])
	case 0x08:
		r.Space, r.Flags = "IO", uint16(d[0])
		r.Min, r.Max, r.Alignment, r.Length = u16(d, 1), u16(d, 3), uint64(d[5]), uint64(d[6])
	case 0x09:
		r.Space = "IO"
		r.Min = u16(d, 0) & 0x3FF
		r.Max, r.Length = r.Min, uint64(d[2])
	case 0x0A:
		r.IRQs = []uint32{uint32(u16(d, 2))}
	}
}

var spaceTypes = map[byte]string{0: "Memory", 1: "IO", 2: "BusNumber"}

func decodeLarge(r *Resource, name byte, d []byte) error {
	switch name {
	case 0x01:
		r.Space, r.Writeable = "Memory", d[0]&1 != 0
		r.Min, r.Max, r.Alignment, r.Length = u16(d, 1)<<8, u16(d, 3)<<8, u16(d, 5), u16(d, 7)<<8
	case 0x05:
		r.Space, r.Writeable = "Memory", d[0]&1 != 0
		r.Min, r.Max, r.Alignment, r.Length = u32(d, 1), u32(d, 5), u32(d, 9), u32(d, 13)
	case 0x06:
		r.Space, r.Writeable = "Memory", d[0]&1 != 0
		r.Min, r.Length = u32(d, 1), u32(d, 5)
		r.Max = r.Min
	case 0x07, 0x08, 0x0A, 0x0B:
		t := d[0]
		r.Space = spaceTypes[t]
		if r.Space == "" {
			r.Space = fmt.Sprintf("Vendor(%d)", t)
		}
		r.Producer = d[1]&1 == 0
		r.Flags = uint16(d[2])
		if t == 0 {
			r.Writeable = d[2]&1 != 0
		}
		var w, start int
		switch name {
		case 0x07:
			w, start = 4, 3
		case 0x08:
			w, start = 2, 3
		case 0x0A:
			w, start = 8, 3
		case 0x0B:
			w, start = 8, 5
		}
		get := func(k int) uint64 {
			o := start + k*w
			switch w {
			case 2:
				return u16(d, o)
			case 4:
				return u32(d, o)
			}
			return u64(d, o)
		}
		r.Alignment, r.Min, r.Max, r.Translation, r.Length = get(0), get(1), get(2), get(3), get(4)
		if name != 0x0B {
			r.Source = resourceSource(d[start+5*w:])
		}
	case 0x09:
		r.Flags = uint16(d[0])
		n := int(d[1])
		if 2+4*n > len(d) {
			return fmt.Errorf("Interrupt descriptor lists %d interrupts in %d bytes", n, len(d))
		}
		for k := 0; k < n; k++ {
			r.IRQs = append(r.IRQs, uint32(u32(d, 2+4*k)))
		}
		r.Source = resourceSource(d[2+4*n:])
	case 0x0C:
		// d is the descriptor from its revision byte: offsets in the
		// descriptor count from its tag, 3 bytes before d.
		if d[1] == 1 {
			r.Kind = "GpioIo"
		}
		r.Flags = uint16(u16(d, 4))
		pinOff, srcOff, vendOff := int(u16(d, 11)), int(u16(d, 14)), int(u16(d, 16))
		if pinOff < 3 || srcOff < pinOff || srcOff > len(d)+3 || vendOff != 0 && vendOff < srcOff {
			return fmt.Errorf("GPIO descriptor pin table at %d and source at %d do not fit its %d bytes", pinOff, srcOff, len(d)+3)
		}
		for o := pinOff - 3; o+2 <= srcOff-3; o += 2 {
			r.Pins = append(r.Pins, uint16(u16(d, o)))
		}
		end := len(d)
		if vendOff >= srcOff && vendOff-3 <= len(d) {
			end = vendOff - 3
		}
		r.Source = cString(d[srcOff-3 : end])
	case 0x0E:
		typ := d[2]
		dataLen := int(u16(d, 7))
		if 9+dataLen > len(d) {
			return fmt.Errorf("serial bus descriptor's type data of %d bytes runs past its %d bytes", dataLen, len(d))
		}
		td := d[9 : 9+dataLen]
		switch typ {
		case 1:
			r.Kind = "I2cSerialBus"
			if len(td) >= 6 {
				r.Speed, r.SlaveAddress = uint32(u32(td, 0)), uint16(u16(td, 4))
			}
		case 2:
			r.Kind = "SpiSerialBus"
			if len(td) >= 9 {
				r.Speed, r.SlaveAddress = uint32(u32(td, 0)), uint16(u16(td, 7))
			}
		case 3:
			r.Kind = "UartSerialBus"
			if len(td) >= 4 {
				r.Speed = uint32(u32(td, 0))
			}
		case 4:
			r.Kind = "CSI2Bus"
		}
		r.Flags = uint16(u16(d, 4))
		r.Source = cString(d[9+dataLen:])
	}
	return nil
}

// resourceSource reads the optional ResourceSourceIndex byte and
// ResourceSource string that end some descriptors.
func resourceSource(b []byte) string {
	if len(b) < 2 {
		return ""
	}
	return cString(b[1:])
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
