// Package logscan reads the kernel log once for the checks that read all
// of it: the klog check (every message matched against the embedded advice
// database, and error-level messages no entry explains) and the oops check
// (crash reports). Scan is an input derived from input.KernelLog, so the
// driver computes it once per phase and both checks report from it.
//
// Why one pass (issue 24): parsing the text into records was about half
// of each check's time, and each check parsed the whole log; `fwcheck
// klog` paid for it twice. EachBoth gives the klog check every message
// and the oops check the folded records of one parse. The log is still
// streamed, never held: what a pass keeps is bounded (at most
// tests.MaxPerLabel groups or reports per label, the rest counted).
//
// The pass matches the embedded database only: with a database file of
// the user's (--klog-db, matched before the embedded entries) the klog
// check reads the log again itself (Matches, with its own matcher). A run
// of the oops check alone pays for the matching too (a few milliseconds
// on a boot log).
package logscan

import (
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/klog"
	"github.com/fwcheck/fwcheck/tests"
)

// Result is one pass over the kernel log.
type Result struct {
	// Err is the error reading the log, if any: both checks end on it.
	Err error
	// Env describes the machine from the start of its log, and KlogErr
	// says why the klog part could not be done (the log's head could not
	// be read, or the database not compiled); Klog is nil then.
	Env     klog.Env
	KlogErr error
	Klog    *Matches
	Oops    *Oopses
}

// Scan is the kernel log read once for the klog and oops checks. A check
// that declares input.KernelLog may read it.
var Scan = input.Declare(input.Def[*Result]{
	Name: "kernel-log-scan", Doc: "the kernel log read once for the klog and oops checks",
	Requires: []input.Decl{input.KernelLog},
	Derive: func(d input.Deps) (*Result, error) {
		return ScanLog(input.Dep(d, input.KernelLog)), nil
	},
})

// ScanLog reads log once, matching it against the embedded database for
// the machine its head describes and finding its crash reports.
func ScanLog(log *klog.Log) *Result {
	res := &Result{Oops: &Oopses{}}
	var m *klog.Matcher
	env, err := log.Env()
	if err == nil {
		var own []klog.Entry
		if own, err = klog.DefaultDB(); err == nil {
			m, err = klog.NewMatcherWords(own, env, ErrorWords)
		}
	}
	res.Env, res.KlogErr = env, err
	line := func(klog.Record) bool { return true }
	if m != nil {
		res.Klog = NewMatches(m)
		line = func(r klog.Record) bool { res.Klog.Add(r); return true }
	}
	res.Err = log.EachBoth(line, func(r klog.Record) bool { res.Oops.Add(r); return true })
	res.Oops.Flush()
	return res
}

// Matches is the klog check's reading of a log: every message matched,
// the matches and unexplained error lines grouped.
type Matches struct {
	m *klog.Matcher
	// Lines is how many messages were read, Matched how many the database
	// knows.
	Lines, Matched int
	// Limits are what the reader cut or left out.
	Limits tests.LogLimits
	Groups *Grouper
}

// NewMatches returns an empty reading that matches with m (built with
// ErrorWords).
func NewMatches(m *klog.Matcher) *Matches { return &Matches{m: m, Groups: NewGrouper()} }

// Add reads one message.
func (ms *Matches) Add(r klog.Record) {
	ms.Lines++
	ms.Limits.Add(r)
	e, word := ms.m.MatchWords(r.Text)
	if e != nil {
		ms.Matched++
		ms.Groups.Add(e, r)
		return
	}
	if IsError(r, word) {
		ms.Groups.Add(nil, r)
	}
}

// Oopses are the crash reports of a log: the first tests.MaxPerLabel of
// each kind in log order, the others counted.
type Oopses struct {
	// Records is how many (folded) records were read.
	Records int
	// Limits are what the reader cut or left out.
	Limits tests.LogLimits
	// Found are the reports kept, in log order.
	Found []klog.Oops
	// Omitted counts the reports over a kind's cap, in order of the first
	// omitted one.
	Omitted []KindCount
	sc      klog.OopsScanner
	kept    map[klog.OopsKind]int
}

// KindCount is a number of reports of one kind.
type KindCount struct {
	Kind klog.OopsKind
	N    int
}

// Add reads one record.
func (o *Oopses) Add(r klog.Record) {
	o.Records++
	o.Limits.Add(r)
	o.keep(o.sc.Add(r))
}

// Flush ends the report in progress at the end of the log.
func (o *Oopses) Flush() { o.keep(o.sc.Flush()) }

// Total is how many reports were found.
func (o *Oopses) Total() int {
	n := len(o.Found)
	for _, c := range o.Omitted {
		n += c.N
	}
	return n
}

func (o *Oopses) keep(x *klog.Oops) {
	if x == nil {
		return
	}
	if o.kept == nil {
		o.kept = map[klog.OopsKind]int{}
	}
	if o.kept[x.Kind] < tests.MaxPerLabel {
		o.kept[x.Kind]++
		o.Found = append(o.Found, *x)
		return
	}
	for i := range o.Omitted {
		if o.Omitted[i].Kind == x.Kind {
			o.Omitted[i].N++
			return
		}
	}
	o.Omitted = append(o.Omitted, KindCount{x.Kind, 1})
}

// Unexplained is the pseudo-label of error-level messages no entry
// explains, as the grouper counts them.
const Unexplained = "KlogUnexplained"

// MaxUnexplained bounds the unexplained error lines one log lists.
const MaxUnexplained = 100

// Group is one distinct message under one label: how often it was
// logged, and when first and last.
type Group struct {
	Entry *klog.Entry // nil: an unexplained error line
	First klog.Record
	Last  time.Duration
	Count int
}

// Grouper gathers the matches of a log into groups, in order of first
// occurrence, keeping at most tests.MaxPerLabel groups per label (and
// MaxUnexplained unexplained ones); beyond that it only counts.
type Grouper struct {
	Groups   []*Group
	byKey    map[string]*Group
	perLabel map[string]int
	overflow map[string][2]int // label: distinct messages, lines not kept
	order    []string          // labels in order of first overflow
}

// NewGrouper returns an empty Grouper.
func NewGrouper() *Grouper {
	return &Grouper{byKey: map[string]*Group{}, perLabel: map[string]int{}, overflow: map[string][2]int{}}
}

// Add adds record r, matched by e (nil: an unexplained error line).
func (g *Grouper) Add(e *klog.Entry, r klog.Record) {
	label, limit := Unexplained, MaxUnexplained
	if e != nil {
		label, limit = e.Label, tests.MaxPerLabel
	}
	key := label + "\x00" + r.Text
	c := max(r.Count, 1)
	if gr := g.byKey[key]; gr != nil {
		gr.Count += c
		if r.Time >= 0 {
			gr.Last = r.Time
		}
		return
	}
	if g.perLabel[label] >= limit {
		o, seen := g.overflow[label]
		if !seen {
			g.order = append(g.order, label)
		}
		// Without the text kept, a message over the limit counts as
		// distinct each time it is logged.
		g.overflow[label] = [2]int{o[0] + 1, o[1] + c}
		return
	}
	g.perLabel[label]++
	gr := &Group{Entry: e, First: r, Last: r.Time, Count: c}
	gr.First.Text = strings.Clone(r.Text)
	g.byKey[key] = gr
	g.Groups = append(g.Groups, gr)
}

// Overflow calls fn for each label over its limit, in order of first
// overflow, with the distinct messages and lines not kept.
func (g *Grouper) Overflow(fn func(label string, messages, lines int)) {
	for _, l := range g.order {
		o := g.overflow[l]
		fn(l, o[0], o[1])
	}
}

// In logs without priority levels ErrorWords recognise error messages;
// notErrorPhrases and userspaceLine exclude lines that only name errors
// (error-record tables, error collectors), module-signature taint notes and
// userspace lines ("systemd[1]: …") that journald copies into the log.
var (
	notErrorPhrases = []string{"error record", "error report", "error log", "error injection", "error handling",
		"error containment", "error collector", "error source", "errors collector", "support is initialized",
		"enabled with irq", "module verification failed"}
	userspaceLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\w.@/-]+\[\d+\]: `) })
)

// ErrorWords are the words that make a line without a level read like an
// error, matched as whole words, ignoring ASCII case, by a matcher built
// with klog.NewMatcherWords. (A case-insensitive regex for them, tried on
// every line the database did not match, was most of the check's time.)
// They are klog's, which the generated automaton finds in its one pass.
var ErrorWords = klog.ErrorWords

// IsError reports whether r is at error level or worse; for logs without
// levels, whether its text reads like an error: word says it holds one of
// ErrorWords (the matcher finds them in the same pass as the database's
// literals).
func IsError(r klog.Record, word bool) bool {
	if r.Level >= 0 {
		return r.Level <= klog.Err
	}
	return word && !NamesErrors(r.Text) && !userspaceLine().MatchString(r.Text)
}

// NamesErrors reports whether text contains one of notErrorPhrases,
// ignoring ASCII case. One pass over the text tries the phrases that start
// with the byte at hand (issue 24: a pass per phrase was 3.5 M
// instructions on the corpus's 1.8 MB of boot logs).
func NamesErrors(text string) bool {
	for i := 0; i < len(text); i++ {
		c := text[i] | 0x20
		if c != 'e' && c != 's' && c != 'm' {
			continue // no phrase starts otherwise (TestNotErrorPhrasesStart)
		}
		for _, p := range notErrorPhrases {
			if p[0] == c && i+len(p) <= len(text) && strings.EqualFold(text[i:i+len(p)], p) {
				return true
			}
		}
	}
	return false
}
