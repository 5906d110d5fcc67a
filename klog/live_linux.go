package klog

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ReadKmsg reads every record currently in the kernel log from path (normally
// /dev/kmsg) without blocking: it stops when the device has no more records.
// Records overwritten while reading are skipped. A regular file holding kmsg
// records (cat /dev/kmsg > file) is read the same way.
func ReadKmsg(path string) ([]Record, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("klog: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	defer unix.Close(fd)
	var all bytes.Buffer
	buf := make([]byte, 16*1024) // /dev/kmsg returns one record per read
	for {
		n, err := unix.Read(fd, buf)
		switch {
		case errors.Is(err, unix.EAGAIN):
			return ParseKmsg(&all)
		case errors.Is(err, unix.EPIPE):
			continue // records were overwritten; the next read resyncs
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return nil, fmt.Errorf("klog: read %s: %w", path, err)
		case n == 0:
			return ParseKmsg(&all)
		}
		all.Write(buf[:n])
		if n > 0 && buf[n-1] != '\n' {
			all.WriteByte('\n')
		}
	}
}

// ReadSyslog reads the kernel log buffer through syslog(2) (the interface
// dmesg used before /dev/kmsg), for kernels or sandboxes without /dev/kmsg.
// Records have levels and times but no sequence numbers.
func ReadSyslog() ([]Record, error) {
	size, err := unix.Klogctl(unix.SYSLOG_ACTION_SIZE_BUFFER, nil)
	if err != nil {
		return nil, fmt.Errorf("klog: syslog(2) size: %w", err)
	}
	if size <= 0 {
		size = 1 << 20
	}
	buf := make([]byte, size)
	n, err := unix.Klogctl(unix.SYSLOG_ACTION_READ_ALL, buf)
	if err != nil {
		return nil, fmt.Errorf("klog: syslog(2) read: %w", err)
	}
	return Parse(bytes.NewReader(buf[:n]))
}

// ReadLive reads the live kernel log: /dev/kmsg at kmsgPath when it can be
// opened, else syslog(2).
func ReadLive(kmsgPath string) ([]Record, error) {
	recs, err := ReadKmsg(kmsgPath)
	if err == nil {
		return recs, nil
	}
	recs, err2 := ReadSyslog()
	if err2 != nil {
		return nil, fmt.Errorf("%w; %w", err, err2)
	}
	return recs, nil
}
