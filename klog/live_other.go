//go:build !linux

package klog

import "errors"

var errNotLinux = errors.New("klog: the live kernel log is only readable on Linux")

// ReadKmsg is only implemented on Linux.
func ReadKmsg(path string) ([]Record, error) { return nil, errNotLinux }

// ReadSyslog is only implemented on Linux.
func ReadSyslog() ([]Record, error) { return nil, errNotLinux }

// ReadLive is only implemented on Linux.
func ReadLive(kmsgPath string) ([]Record, error) { return nil, errNotLinux }
