package input

import (
	"errors"
	"io"
)

// FollowKernelLog opens the live machine's kernel log for following:
// dev/kmsg below the source's root, positioned after the records already
// logged (where the device allows it), so that each read returns the next
// record as the kernel logs it. Only the live machine has one to follow.
func FollowKernelLog(m *Machine) (io.ReadCloser, error) {
	if !m.Src.Live() {
		return nil, errors.New("following the kernel log needs the live machine, not " + m.Src.String())
	}
	f, err := m.Src.Open("dev/kmsg")
	if err != nil {
		return nil, err
	}
	if s, ok := f.(io.Seeker); ok {
		if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
			// On /dev/kmsg, SEEK_END skips to after the last record.
			_, _ = s.Seek(0, io.SeekEnd)
		}
	}
	return f, nil
}
