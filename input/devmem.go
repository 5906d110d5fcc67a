package input

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// devMem reads physical memory through /dev/mem. read(2) is refused
// (EFAULT) above the end of the kernel's low RAM, where firmware often
// keeps the ACPI tables (SeaBIOS puts them in the top pages of RAM), so a
// refused read is retried through mmap(2), as ACPICA's acpidump does; both
// are still subject to the kernel's devmem restrictions.
type devMem struct{ f *os.File }

func (d devMem) ReadAt(b []byte, off int64) (int, error) {
	n, err := d.f.ReadAt(b, off)
	if err == nil || !errors.Is(err, unix.EFAULT) {
		return n, err
	}
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	length := int((off - start) + int64(len(b)))
	m, merr := unix.Mmap(int(d.f.Fd()), start, length, unix.PROT_READ, unix.MAP_SHARED)
	if merr != nil {
		return 0, fmt.Errorf("%w; mmap: %w", err, merr)
	}
	defer unix.Munmap(m)
	return copy(b, m[off-start:]), nil
}
