package qemu

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"
)

// QMP is a connection to a running QEMU's QMP socket (Config.QMP): the
// machine protocol, JSON objects one per line. It is small enough to write
// here (greeting, qmp_capabilities, then execute and read the reply,
// skipping asynchronous events) rather than to take a library for.
type QMP struct {
	conn net.Conn
	r    *bufio.Reader
}

// DialQMP connects to the QMP socket at path, retrying until QEMU has
// created it or timeout passes, and negotiates capabilities.
func DialQMP(path string, timeout time.Duration) (*QMP, error) {
	var conn net.Conn
	var err error
	for deadline := time.Now().Add(timeout); ; time.Sleep(100 * time.Millisecond) {
		if conn, err = net.Dial("unix", path); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("QMP %s: %w", path, err)
	}
	q := &QMP{conn: conn, r: bufio.NewReaderSize(conn, 64<<10)}
	if _, err := q.read(); err != nil { // the greeting
		conn.Close()
		return nil, err
	}
	if _, err := q.Execute("qmp_capabilities", nil); err != nil {
		conn.Close()
		return nil, err
	}
	return q, nil
}

// Execute runs a QMP command and returns its "return" value.
func (q *QMP) Execute(cmd string, args map[string]any) (json.RawMessage, error) {
	req := map[string]any{"execute": cmd}
	if args != nil {
		req["arguments"] = args
	}
	b, _ := json.Marshal(req)
	_ = q.conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := q.conn.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	for i := 0; i < 1000; i++ {
		m, err := q.read()
		if err != nil {
			return nil, err
		}
		if _, ok := m["event"]; ok {
			continue
		}
		if e, ok := m["error"]; ok {
			return nil, fmt.Errorf("QMP %s: %s", cmd, e)
		}
		return m["return"], nil
	}
	return nil, errors.New("QMP: no reply")
}

// Status is the guest's run state ("running", "suspended", …).
func (q *QMP) Status() (string, error) {
	r, err := q.Execute("query-status", nil)
	if err != nil {
		return "", err
	}
	var s struct {
		Status string `json:"status"`
	}
	err = json.Unmarshal(r, &s)
	return s.Status, err
}

func (q *QMP) read() (map[string]json.RawMessage, error) {
	line, err := q.r.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("QMP: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("QMP: %w", err)
	}
	return m, nil
}

// Close closes the connection.
func (q *QMP) Close() error { return q.conn.Close() }
