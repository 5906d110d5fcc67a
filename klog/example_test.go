package klog_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/fwcheck/fwcheck/klog"
)

func ExampleParse() {
	log := "<3>[    3.082295] ACPI Error: Could not disable RealTimeClock events (20220331/evxfevnt-243)\n" +
		"<6>[    3.100000] PM: suspend exit\n" +
		"<6>[    3.100001] PM: suspend exit\n"
	recs, _ := klog.Parse(strings.NewReader(log))
	for _, r := range recs {
		fmt.Println(r.Level, r.Stamp(), r.Count, r.Text)
	}
	// Output:
	// err 3.082295 1 ACPI Error: Could not disable RealTimeClock events (20220331/evxfevnt-243)
	// info 3.100000 2 PM: suspend exit
}

func ExampleNewMatcher() {
	db, _ := klog.DefaultDB()
	m, _ := klog.NewMatcher(db, klog.Env{})
	e := m.Match("ACPI BIOS Warning (bug): 32/64X length mismatch in FADT/Gpe0Block: 64/32 (20210730/tbfadt-564)")
	fmt.Println(e.Label, e.Severity, e.Source)
	// Output:
	// FADTLengthMismatch medium drivers/acpi/acpica/tbfadt.c
}

func ExampleSince() {
	before, _ := klog.ParseKmsg(strings.NewReader("6,1,10,-;PM: suspend entry (deep)\n"))
	mark := klog.MarkAfter(before)
	after, _ := klog.ParseKmsg(strings.NewReader("6,1,10,-;PM: suspend entry (deep)\n3,2,20,-;ACPI Error: x\n6,3,30,-;PM: suspend exit\n"))
	for _, r := range klog.Since(after, mark) {
		fmt.Println(r.Seq, r.Text)
	}
	// Output:
	// 2 ACPI Error: x
	// 3 PM: suspend exit
}

func ExampleFormat() {
	recs := klog.ParseString("<4>[   12.500000] mtrr: corrected configuration.\n")
	_ = klog.Format(os.Stdout, recs)
	// Output:
	// <4>[   12.500000] mtrr: corrected configuration.
}
