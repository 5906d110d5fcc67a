package klog

import (
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/tests"
)

// Advisor matches a part of the kernel log against the advice database,
// for checks that look at the log of one phase of their own (a suspend
// cycle, one boot of a reboot run). Build it once per run: compiling the
// database is most of the cost otherwise.
type Advisor struct {
	m   *klog.Matcher
	env klog.Env
}

// NewAdvisor builds the advisor for p's machine, or returns nil when the
// database cannot be used (the caller then advises nothing). The check
// that uses it declares DataLabels, and reads input.KernelLog.
func NewAdvisor(p *tests.Pass) *Advisor {
	env, _ := tests.Input(p, input.KernelLog).Env()
	m, err := newMatcher(env, nil)
	if err != nil {
		return nil
	}
	return &Advisor{m: m, env: env}
}

// Findings returns the findings of recs, each message prefixed.
func (a *Advisor) Findings(recs []klog.Record, prefix string) []tests.Finding {
	if a == nil {
		return nil
	}
	var out []tests.Finding
	for _, r := range recs {
		if e := a.m.Match(r.Text); e != nil {
			out = append(out, Finding(e, r, a.env, prefix))
		}
	}
	return out
}
