package klog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// ParseKmsg reads records in the /dev/kmsg format: one
// "PRIO,SEQ,USEC,FLAGS[,…];TEXT" line per record, optionally followed by
// dictionary lines that start with a space (which are dropped). A record
// whose flags are "+" continues the previous one and is joined to it, as
// kernels before 4.9 logged KERN_CONT fragments. Lines that are not kmsg
// records are skipped. Identical consecutive records are folded.
func ParseKmsg(r io.Reader) ([]Record, error) {
	var out []Record
	lr := newLineReader(r)
	var dropped int64
	for {
		line, cut, more := lr.next()
		if !more {
			break
		}
		if len(line) == 0 || line[0] == ' ' {
			continue
		}
		if len(out) >= MaxRecords {
			dropped++
			continue
		}
		s := strings.TrimRight(line, "\r")
		rec, ok := parseKmsgLine(s)
		if !ok {
			continue
		}
		rec.Truncated = cut
		if kmsgFlags(s) == "+" && len(out) > 0 {
			last := &out[len(out)-1]
			last.Text += rec.Text
			continue
		}
		out = appendFold(out, rec)
	}
	markDropped(out, dropped)
	if lr.err != nil {
		return out, fmt.Errorf("klog: kmsg: %w", lr.err)
	}
	return out, nil
}

// kmsgFlags returns the FLAGS field of a kmsg record line.
func kmsgFlags(s string) string {
	head, _, _ := strings.Cut(s, ";")
	f := strings.Split(head, ",")
	if len(f) < 4 {
		return ""
	}
	return f[3]
}

// FollowKmsg reads kmsg records from r as they come and calls fn with each
// until fn returns false, r ends or fails. A /dev/kmsg opened for blocking
// reads returns one record per read and waits for the next, so fn sees each
// message as the kernel logs it; a regular file of records ends at EOF.
// Records the kernel overwrote before they were read (EPIPE) are skipped,
// dictionary lines dropped, lines that are not records ignored. Memory is
// bounded by the longest record (MaxLine).
func FollowKmsg(r io.Reader, fn func(Record) bool) error {
	buf := make([]byte, 16*1024)
	var line []byte
	deliver := func(l []byte) bool {
		if len(l) == 0 || l[0] == ' ' {
			return true
		}
		rec, ok := parseKmsgLine(string(bytes.TrimRight(l, "\r")))
		return !ok || fn(rec)
	}
	for {
		n, err := r.Read(buf)
		data := buf[:n]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				if len(line)+len(data) <= MaxLine {
					line = append(line, data...)
				}
				break
			}
			if len(line)+i <= MaxLine {
				line = append(line, data[:i]...)
			}
			if !deliver(line) {
				return nil
			}
			line, data = line[:0], data[i+1:]
		}
		switch {
		case err == io.EOF:
			deliver(line)
			return nil
		case errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.EINTR):
			// Overwritten records: the next read resynchronises.
		case err != nil:
			return fmt.Errorf("klog: kmsg: %w", err)
		case n > 0 && buf[n-1] != '\n' && n < len(buf):
			// A character device returns whole records; one without a
			// trailing newline is complete.
			if !regular(r) {
				if !deliver(line) {
					return nil
				}
				line = line[:0]
			}
		}
	}
}

// regular reports whether r is a regular file, whose reads may end inside
// a line.
func regular(r io.Reader) bool {
	st, ok := r.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return false
	}
	fi, err := st.Stat()
	return err == nil && fi.Mode().IsRegular()
}
