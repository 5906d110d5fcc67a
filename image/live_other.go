//go:build !linux

package image

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Live stands in for the live image on systems other than Linux, where
// fwcheck boot cannot run; it prints everything on standard output.
type Live struct {
	// ESP is the boot stick's boot partition serial number (unused here).
	ESP string
	// DiskWait bounds the wait for the results disk (unused here).
	DiskWait time.Duration
}

// Setup reports that the live image runs on Linux only.
func Setup() (*Live, error) { return &Live{}, errors.New("the live image runs on Linux only") }

// Logf prints a line on standard output.
func (l *Live) Logf(format string, args ...any) { fmt.Fprintf(os.Stdout, format+"\n", args...) }

// Console returns standard output.
func (l *Live) Console() io.Writer { return os.Stdout }

// Serial returns standard output.
func (l *Live) Serial() io.Writer { return os.Stdout }

// Publish prints the report and the framed JSON document on standard output.
func (l *Live) Publish(text, jsonDoc []byte) error {
	_, err := fmt.Fprintf(os.Stdout, "%s\n%s\n%s\n%s\n", text, BeginMarker, jsonDoc, EndMarker)
	return err
}

// OpenResults finds no results partition.
func (l *Live) OpenResults(string) (string, string, bool, error) { return "", "", false, nil }

// CloseResults does nothing.
func (l *Live) CloseResults() error { return nil }

// DoAfter does nothing.
func (l *Live) DoAfter(After) error { return nil }

// Uptime is unknown here.
func Uptime() time.Duration { return 0 }

// ProcessStarted is unknown here.
func ProcessStarted() time.Duration { return -1 }

// StickConfig finds no configuration file.
func (l *Live) StickConfig(string) ([]byte, error) { return nil, nil }

// NetUp reports that the live image runs on Linux only.
func (l *Live) NetUp(time.Duration) (string, error) {
	return "", errors.New("the live image runs on Linux only")
}
