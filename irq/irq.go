// Package irq parses /proc/interrupts: per interrupt line, its number, the
// per-CPU counts, the interrupt chip, the hardware interrupt number on that
// chip, the flow (edge, level, fasteoi) and the devices using it. It reads
// both layouts the kernel has used: "IO-APIC   2-edge      timer" (Linux
// 4.4 and later) and "IO-APIC-edge      timer" (before).
//
// No maintained Go library covers this file: github.com/prometheus/procfs
// parses only the counts and device names, not the chip and flow, which
// are what a firmware check needs. The parser is a few lines of field
// splitting, bounded by MaxLines.
package irq

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// MaxLines bounds the lines read: a large server has a few thousand.
const MaxLines = 1 << 16

// Line is one numbered interrupt.
type Line struct {
	IRQ    int
	Counts []uint64 // per CPU, in the header's order
	Chip   string   // "IO-APIC", "IR-IO-APIC", "XT-PIC", "PCI-MSI-…"
	HWIRQ  string   // the chip's own number ("2"), "" in the old layout
	// Flow is the flow handler's name: "edge", "level", "fasteoi" (level
	// interrupts on an I/O APIC), or "" when not shown.
	Flow    string
	Devices string
}

// Level reports whether the line is level-triggered by its flow handler;
// ok is false when the flow does not say.
func (l Line) Level() (level, ok bool) {
	switch l.Flow {
	case "edge":
		return false, true
	case "level", "fasteoi":
		return true, true
	}
	return false, false
}

// Total is the sum of the per-CPU counts.
func (l Line) Total() uint64 {
	var t uint64
	for _, c := range l.Counts {
		t += c
	}
	return t
}

// Table is the parsed file.
type Table struct {
	CPUs  int
	Lines []Line
}

// Get returns the line of irq, or nil.
func (t *Table) Get(irq int) *Line {
	for i := range t.Lines {
		if t.Lines[i].IRQ == irq {
			return &t.Lines[i]
		}
	}
	return nil
}

// Parse reads /proc/interrupts. Named rows (NMI, LOC, …) are skipped; a
// numbered row that does not parse is an error naming its line.
func Parse(b []byte) (*Table, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	t := &Table{}
	n := 0
	for sc.Scan() {
		n++
		if n > MaxLines {
			return nil, fmt.Errorf("more than %d lines", MaxLines)
		}
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if t.CPUs == 0 {
			if !strings.HasPrefix(f[0], "CPU") {
				return nil, fmt.Errorf("line %d: no CPU header", n)
			}
			t.CPUs = len(f)
			continue
		}
		num, ok := strings.CutSuffix(f[0], ":")
		if !ok {
			return nil, fmt.Errorf("line %d: no \"N:\" at the start", n)
		}
		irq, err := strconv.Atoi(num)
		if err != nil {
			continue // NMI:, LOC:, ERR: …
		}
		if irq < 0 || len(f) < 1+t.CPUs {
			return nil, fmt.Errorf("line %d: IRQ %s has fewer than %d counts", n, num, t.CPUs)
		}
		l := Line{IRQ: irq}
		for _, c := range f[1 : 1+t.CPUs] {
			v, err := strconv.ParseUint(c, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: IRQ %d count %.20q", n, irq, c)
			}
			l.Counts = append(l.Counts, v)
		}
		rest := f[1+t.CPUs:]
		if len(rest) > 0 {
			l.Chip = rest[0]
			rest = rest[1:]
			if len(rest) > 0 {
				if hw, flow, ok := strings.Cut(rest[0], "-"); ok && isFlow(flow) {
					l.HWIRQ, l.Flow, rest = hw, flow, rest[1:]
				}
			}
			if l.Flow == "" {
				// The old layout: "IO-APIC-edge", "IO-APIC-fasteoi".
				if i := strings.LastIndexByte(l.Chip, '-'); i > 0 && isFlow(l.Chip[i+1:]) {
					l.Chip, l.Flow = l.Chip[:i], l.Chip[i+1:]
				}
			}
		}
		l.Devices = strings.Join(rest, " ")
		t.Lines = append(t.Lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if t.CPUs == 0 {
		return nil, fmt.Errorf("empty: no CPU header")
	}
	return t, nil
}

func isFlow(s string) bool {
	switch s {
	case "edge", "level", "fasteoi", "simple", "percpu":
		return true
	}
	return false
}
