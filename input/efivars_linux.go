package input

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fwcheck/fwcheck/efi"
)

// Variables hands out the machine's variable store: efivarfs at
// sys/firmware/efi/efivars under the root.
func (c *liveControl) Variables() (VariableStore, error) {
	dir := c.path(efi.VarsDir)
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return nil, fmt.Errorf("/%s: %w", efi.VarsDir, err)
	}
	if uint32(st.Type) != unix.EFIVARFS_MAGIC {
		return nil, fmt.Errorf("/%s is not efivarfs (file system type 0x%x): mount -t efivarfs efivarfs /%s", efi.VarsDir, uint32(st.Type), efi.VarsDir)
	}
	return &efivarfs{dir: dir}, nil
}

// efivarfs is the variable store through Linux's efivarfs. Writes follow
// its rules: one write(2) carries the attribute word and all the data,
// O_APPEND with EFI_VARIABLE_APPEND_WRITE appends, and a variable that is
// not one of the spec's well-known ones is created immutable, so the
// immutable flag is cleared (FS_IOC_SETFLAGS) before it is written again or
// removed.
//
// Info paces its statfs calls (statfsSpacing): Linux rate-limits efivarfs'
// statfs (from 6.1.190 in the 6.1 series, "efivarfs: Rate limit statfs()
// handler") to 5 calls in 500 jiffies, 5 s at HZ=100, and answers the
// calls over the limit with the figures of the last one it passed on, so
// figures taken faster would not follow the store.
type efivarfs struct {
	dir      string
	lastInfo time.Time
}

// statfsSpacing keeps statfs calls under the kernel's rate limit at any HZ.
const statfsSpacing = 1050 * time.Millisecond

// fsImmutable is FS_IMMUTABLE_FL (linux/fs.h).
const fsImmutable = 0x10

func (e *efivarfs) path(name string, g efi.GUID) string {
	return filepath.Join(e.dir, name+"-"+g.String())
}

func (e *efivarfs) Names() ([]VariableName, error) {
	ents, err := os.ReadDir(e.dir)
	if err != nil {
		return nil, err
	}
	var out []VariableName
	for _, ent := range ents {
		if n, err := ParseVariableName(ent.Name()); err == nil {
			out = append(out, n)
		}
	}
	return out, nil
}

func (e *efivarfs) Get(name string, g efi.GUID) (efi.Attributes, []byte, error) {
	p := e.path(name, g)
	info, err := os.Stat(p)
	if err != nil {
		return 0, nil, err
	}
	if info.Size() > 4<<20 {
		return 0, nil, fmt.Errorf("%s: %d bytes, over 4 MiB", p, info.Size())
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, nil, liveVarErr(err)
	}
	return DecodeVariable(b)
}

func (e *efivarfs) Set(name string, g efi.GUID, attrs efi.Attributes, data []byte) error {
	p := e.path(name, g)
	flags := os.O_WRONLY
	_, err := os.Lstat(p)
	created := errors.Is(err, fs.ErrNotExist)
	if created {
		flags |= os.O_CREATE | os.O_EXCL
	} else if err := mutable(p); err != nil {
		return err
	}
	err = writeOnce(p, flags, EncodeVariable(attrs, data))
	if err != nil && created {
		// The kernel may keep the empty file it made for the refused
		// variable; it stands for nothing in the firmware.
		if _, serr := os.Stat(p); serr == nil {
			_ = mutable(p)
			_ = os.Remove(p)
		}
	}
	return err
}

func (e *efivarfs) Append(name string, g efi.GUID, attrs efi.Attributes, data []byte) error {
	p := e.path(name, g)
	if err := mutable(p); err != nil {
		return err
	}
	return writeOnce(p, os.O_WRONLY|os.O_APPEND, EncodeVariable(attrs|efi.AppendWrite, data))
}

func (e *efivarfs) Delete(name string, g efi.GUID) error {
	p := e.path(name, g)
	if err := mutable(p); err != nil {
		return err
	}
	return liveVarErr(os.Remove(p))
}

func (e *efivarfs) Info() (VariableInfo, error) {
	if wait := time.Until(e.lastInfo.Add(statfsSpacing)); wait > 0 {
		time.Sleep(wait)
	}
	defer func() { e.lastInfo = time.Now() }()
	var st unix.Statfs_t
	if err := unix.Statfs(e.dir, &st); err != nil {
		return VariableInfo{}, err
	}
	if st.Blocks == 0 {
		return VariableInfo{}, nil
	}
	bs := uint64(st.Bsize)
	return VariableInfo{Reported: true, Total: st.Blocks * bs, Free: st.Bfree * bs, Available: st.Bavail * bs}, nil
}

// writeOnce opens p and writes b to it in one write(2).
func writeOnce(p string, flags int, b []byte) error {
	f, err := os.OpenFile(p, flags, 0o644)
	if err != nil {
		return liveVarErr(err)
	}
	n, err := f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != len(b) {
		err = fmt.Errorf("%s: short write, %d of %d bytes", p, n, len(b))
	}
	return liveVarErr(err)
}

// mutable clears p's immutable flag, as chattr -i does.
func mutable(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	fl, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		return fmt.Errorf("%s: reading the file's flags: %w", p, err)
	}
	if fl&fsImmutable == 0 {
		return nil
	}
	if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(fl&^fsImmutable)); err != nil {
		return fmt.Errorf("%s: clearing the immutable flag: %w", p, err)
	}
	return nil
}

// liveVarErr adds the EFI status the kernel's errno stands for.
func liveVarErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL):
		return fmt.Errorf("%w: %w", err, ErrVariableParameter)
	case errors.Is(err, unix.ENOSPC):
		return fmt.Errorf("%w: %w", err, ErrVariableSpace)
	}
	return err
}
