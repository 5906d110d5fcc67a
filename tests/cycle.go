package tests

import (
	"encoding/json"
	"math"
)

// CycleRecord is one cycle of a cycling check (s3, reboot): the per-cycle
// data such a check records with Pass.RecordCycles, its journal keeps, and
// the HTML report tabulates and plots. Each check fills the fields that are
// its own and leaves the others zero; times are in milliseconds, 0 when not
// measured. The JSON names are the results document's (under the result's
// data "cycles").
type CycleRecord struct {
	Cycle int `json:"cycle"`
	// Status is "passed", "failed" or "hung" (s3); "completed", "failed"
	// or "hung" (reboot).
	Status string `json:"status"`

	// The s3 check's.
	RequestedMS      float64 `json:"requested_ms,omitempty"`
	AsleepMS         float64 `json:"asleep_ms,omitempty"`
	KernelResumeMS   float64 `json:"kernel_resume_ms,omitempty"`
	FirmwareResumeMS float64 `json:"firmware_resume_ms,omitempty"`
	// FirmwareSuspendMS is the firmware's part of the suspend (the FPDT's
	// S3 suspend record: SLP_TYP written to the final write).
	FirmwareSuspendMS float64 `json:"firmware_suspend_ms,omitempty"`
	// WokenBy is what the wake evidence says woke the machine: "alarm"
	// (the RTC's wakeup source counted the wake), "other" (it did not, or
	// the alarm was still armed), or empty when only the wall-time
	// fallback could judge.
	WokenBy       string  `json:"woken_by,omitempty"`
	SlowestDevice string  `json:"slowest_device,omitempty"`
	SlowestMS     float64 `json:"slowest_ms,omitempty"`

	// The reboot check's.
	Method string `json:"method,omitempty"`
	// RequestToKernelMS is from the request to the next kernel's start,
	// from the journal's stamp and the kernel's boot time (whole seconds:
	// ±1000 ms); absent when the clock went backwards.
	RequestToKernelMS float64 `json:"request_to_kernel_ms,omitempty"`
	// The firmware's boot phases from the FPDT, in ms after the reset:
	// firmware start, OS loader load and start, ExitBootServices.
	FirmwareStartMS    float64 `json:"firmware_start_ms,omitempty"`
	LoaderLoadMS       float64 `json:"loader_load_ms,omitempty"`
	LoaderStartMS      float64 `json:"loader_start_ms,omitempty"`
	ExitBootServicesMS float64 `json:"exit_boot_services_ms,omitempty"`
	// LogFindings are the labels of the kernel-log findings of the boot
	// that followed, one per finding.
	LogFindings []string `json:"log_findings,omitempty"`

	// Problems says what went wrong in the cycle, one line each.
	Problems []string `json:"problems,omitempty"`
}

// Good reports whether the cycle went as it should.
func (c *CycleRecord) Good() bool { return c.Status == "passed" || c.Status == "completed" }

// cyclesKey is where a result's data holds its CycleRecords.
const cyclesKey = "cycles"

// RecordCycles keeps the per-cycle records in the result's data, replacing
// earlier ones.
func (p *Pass) RecordCycles(cs []CycleRecord) {
	if p.data == nil {
		p.data = map[string]any{}
	}
	p.data[cyclesKey] = cs
}

// Cycles returns the per-cycle records of r, nil when it has none: those a
// check recorded in this process, or those of a result read back from a
// results document (decoded as generic JSON, re-read into CycleRecords: a
// field of the wrong type reads as zero, and a time that is not a finite
// number reads as not measured).
func (r *Result) Cycles() []CycleRecord {
	raw, ok := r.Data[cyclesKey]
	if !ok {
		return nil
	}
	if cs, ok := raw.([]CycleRecord); ok {
		return cs
	}
	l, ok := raw.([]any)
	if !ok {
		// another Go value (a test's maps): read as a document would hold it
		b, err := json.Marshal(raw)
		if err != nil || json.Unmarshal(b, &l) != nil {
			return nil
		}
	}
	out := make([]CycleRecord, 0, len(l))
	for i, x := range l {
		c := CycleRecord{Cycle: i + 1}
		if b, err := json.Marshal(x); err == nil {
			_ = json.Unmarshal(b, &c) // a field of the wrong type is left zero, the others are read
		}
		for _, v := range []*float64{&c.RequestedMS, &c.AsleepMS, &c.KernelResumeMS, &c.FirmwareResumeMS, &c.FirmwareSuspendMS, &c.SlowestMS,
			&c.RequestToKernelMS, &c.FirmwareStartMS, &c.LoaderLoadMS, &c.LoaderStartMS, &c.ExitBootServicesMS} {
			if math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0 {
				*v = 0
			}
		}
		out = append(out, c)
	}
	return out
}
