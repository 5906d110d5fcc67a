//go:build !linux

package input

import "errors"

func measureSpeed(root string, cpu int) SpeedSample {
	return SpeedSample{CPU: cpu, Err: "measuring needs Linux's /dev/cpu/N/msr"}
}

func recordSpeed(root string) ([]byte, error) {
	return nil, errors.New("measuring the CPU speed needs Linux")
}
