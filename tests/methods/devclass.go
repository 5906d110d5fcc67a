package methods

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/acpi/aml"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tests/internal/amlcheck"
)

// Device classes checked across objects and tables: the embedded
// controller against the ECDT (§5.2.16, §12.11), the FADT's button flags
// against the button devices (§4.8.2.2, §5.2.9), _PSD domains across
// processors (§8.4.5.5), _PRT entries against the link devices they name
// and the link devices' _PRS/_SRS/_CRS (§6.2.13, §6.2.12, §6.2.16), _WDG
// entries against their WMxx/WQxx methods (Microsoft WMI-ACPI), and the
// time and alarm device's _GCP against _GRT/_SRT (§9.18).

var (
	labelECGPE = tests.NewLabel("ECGPEMismatch", tests.Medium, "ACPI 6.5 §5.2.16, §12.11",
		"The ECDT gives the embedded controller one GPE and the EC device's _GPE another. The OS "+
			"enables the ECDT's GPE at boot and the device's once the namespace is loaded: one of them is "+
			"wrong, and EC events (battery, lid, hotkeys, thermal) stop or arrive on the wrong bit. Give "+
			"both the GPE the EC's SCI is wired to.")
	labelECNoGPE = tests.NewLabel("ECNoGPE", tests.Medium, "ACPI 6.5 §12.11",
		"An embedded controller device (PNP0C09) has no _GPE, and the platform is not hardware-reduced "+
			"(where the EC may signal through a GpioInt). The OS cannot take the EC's events: _Qxx "+
			"methods never run. Declare _GPE with the EC's SCI bit.")
	labelButtons = tests.NewLabel("ButtonDeviceMissing", tests.Low, "ACPI 6.5 §4.8.2.2, §5.2.9 (PWR_BUTTON, SLP_BUTTON)",
		"The FADT's flags say the power (or sleep) button is not a fixed-feature button, so it must be a "+
			"control-method button device (PNP0C0C/PNP0C0E), and the namespace declares none. The OS "+
			"then sees no such button: pressing it does nothing. Declare the device with its Notify, or "+
			"clear the flag if the button is wired to the fixed PWRBTN_STS bit.")
	labelPSD = tests.NewLabel("PSDDomain", tests.Medium, "ACPI 6.5 §8.4.5.5",
		"Processors that name the same _PSD dependency domain disagree about it (coordination type or "+
			"number of processors). Linux "+
			"builds one frequency domain from the first it reads and mis-coordinates the others. Give "+
			"every processor of a domain the same _PSD.")
	labelPRTSource = tests.NewLabel("PRTSource", tests.Medium, "ACPI 6.5 §6.2.13, §6.2.16",
		"A _PRT entry's source names something that is not an interrupt link device (_HID PNP0C0F, or a "+
			"device with _CRS), or names nothing. The OS cannot route the pin: the device behind it gets "+
			"no legacy interrupt. Name the link device, or give 0 and the GSI.")
	labelLink = tests.NewLabel("LinkDeviceMethods", tests.Medium, "ACPI 6.5 §6.2.12 (_PRS), §6.2.16 (_SRS), §6.2.2 (_CRS)",
		"An interrupt link device (PNP0C0F) lacks _PRS, _CRS or _SRS. The OS reads the possible IRQs "+
			"from _PRS, the current one from _CRS and programs it with _SRS; without them the link cannot "+
			"be routed (Linux: \"can't derive routing\"/\"no IRQ available\"). Declare all three (and _DIS "+
			"to turn it off).")
	labelWMI = tests.NewLabel("WDGMethodMissing", tests.Medium, "Microsoft WMI-ACPI (_WDG, WMxx, WQxx)",
		"A _WDG entry describes a WMI method or data block whose WMxx (method) or WQxx (data query) "+
			"method the device lacks. The WMI driver registers the GUID and every call to it fails: the "+
			"vendor's hotkeys, LEDs or settings tool do not work. Declare the method the entry names.")
	labelTAD = tests.NewLabel("TimeAlarmMethods", tests.Medium, "ACPI 6.5 §9.18.2-§9.18.4",
		"A time and alarm device (ACPI000E) has no _GCP, or its _GCP says it has a real-time clock "+
			"(bit 2) without _GRT and _SRT to get and set it. The OS cannot read the capabilities or the "+
			"time. Declare the methods the capabilities announce.")
)

var classLabels = []*tests.Label{labelECGPE, labelECNoGPE, labelButtons, labelPSD, labelPRTSource, labelLink, labelWMI, labelTAD}

// devClasses runs the cross-object device checks.
func (c *run1) devClasses() {
	var ecs, pwr, slp, links, tads []*aml.Node
	var psds []*aml.Node
	for _, dev := range amlcheck.Devices(c.l.NS) {
		for _, id := range c.ids(dev) {
			switch id {
			case "PNP0C09":
				ecs = append(ecs, dev)
			case "PNP0C0C":
				pwr = append(pwr, dev)
			case "PNP0C0E":
				slp = append(slp, dev)
			case "PNP0C0F":
				links = append(links, dev)
			case "ACPI000E":
				tads = append(tads, dev)
			}
		}
	}
	for _, dev := range c.order {
		rs := c.results[dev]
		if rs["_PSD"] != nil {
			psds = append(psds, dev)
		}
		if r := rs["_PRT"]; r != nil {
			c.prt(dev, r)
		}
		if r := rs["_WDG"]; r != nil {
			c.wdg(dev, r)
		}
	}
	c.ec(ecs)
	c.buttons(pwr, slp)
	c.psd(psds)
	c.linkMethods(links)
	c.tad(tads)
}

// ids evaluates a device's _HID and _CID (statically: IDs rarely read
// hardware; one that does is left out).
func (c *run1) ids(dev *aml.Node) []string {
	var out []string
	for _, name := range []string{"_HID", "_CID"} {
		r := c.results[dev][name]
		if r == nil || r.err != nil || r.v == nil || r.emulated {
			continue
		}
		vs := []*aml.Object{r.v}
		if r.v.Type == aml.TypePackage {
			vs = r.v.Pkg
		}
		for _, v := range vs {
			if s, ok := amlcheck.ID(v); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func (c *run1) tables() *acpi.Tables {
	if c.l == nil {
		return nil
	}
	return c.l.Tables
}

func (c *run1) fadt() *acpi.FADT {
	ts := c.tables()
	if ts == nil {
		return nil
	}
	for _, t := range ts.Get(acpi.SigFADT) {
		if f, err := acpi.ParseFADT(t); err == nil {
			return f
		}
	}
	return nil
}

func (c *run1) ec(ecs []*aml.Node) {
	if len(ecs) == 0 {
		return
	}
	reduced := false
	if f := c.fadt(); f != nil {
		reduced = f.Flags&acpi.FADTFlagHWReduced != 0
	}
	var ecdt *acpi.ECDT
	if ts := c.tables(); ts != nil {
		for _, t := range ts.Get("ECDT") {
			if e, err := acpi.ParseECDT(t); err == nil {
				ecdt = e
			}
		}
	}
	for _, dev := range ecs {
		if pr, _ := amlcheck.PresenceOf(c.e, dev); pr == amlcheck.Absent {
			continue
		}
		r := c.results[dev]["_GPE"]
		if r == nil {
			if dev.Child("_GPE") == nil && !reduced {
				c.report(labelECNoGPE, dev.Conditional, "%s (PNP0C09) has no _GPE", c.path(dev))
			}
			continue
		}
		gpe := ok(r, aml.TypeInteger)
		if gpe == nil || ecdt == nil || !ecdtNames(ecdt, dev) {
			continue
		}
		if gpe.Int != uint64(ecdt.GPEBit) {
			c.report(labelECGPE, r.emulated, "%s._GPE is 0x%X, the ECDT's GPE bit 0x%X", c.path(dev), gpe.Int, ecdt.GPEBit)
		}
	}
}

// ecdtNames reports whether the ECDT's EC_ID names dev.
func ecdtNames(e *acpi.ECDT, dev *aml.Node) bool {
	id := strings.TrimRight(e.ID, "\x00 ")
	if id == "" {
		return false
	}
	return aml.DisplayPath(dev.Path()) == aml.DisplayPath(id) || dev.Path() == id
}

// buttons: a flag set says the button is a control-method device (or
// absent). A fixed-feature button together with a PNP0C0C device is
// common and harmless (the device carries _PRW for wake) and is not
// reported.
func (c *run1) buttons(pwr, slp []*aml.Node) {
	f := c.fadt()
	if f == nil || f.HWReduced() {
		return
	}
	for _, b := range []struct {
		devs []*aml.Node
		flag uint32
		what string
	}{{pwr, acpi.FADTFlagPowerButton, "power"}, {slp, acpi.FADTFlagSleepButton, "sleep"}} {
		// the sleep button is often absent and said so by this flag
		if f.Flags&b.flag == 0 || len(b.devs) > 0 || b.what == "sleep" {
			continue
		}
		c.report(labelButtons, false, "the FADT's flags say the %s button is a control-method device, and no device has _HID PNP0C0C", b.what)
	}
}

type psdEntry struct {
	dev                   *aml.Node
	domain, coord, number uint64
	emulated              bool
}

func (c *run1) psd(devs []*aml.Node) {
	domains := map[uint64][]psdEntry{}
	for _, dev := range devs {
		r := c.results[dev]["_PSD"]
		v := ok(r, aml.TypePackage)
		if v == nil || len(v.Pkg) != 1 || v.Pkg[0] == nil || v.Pkg[0].Type != aml.TypePackage || len(v.Pkg[0].Pkg) < 5 {
			continue // the shape rule reports it
		}
		p := v.Pkg[0].Pkg
		var f [5]uint64
		good := true
		for i := range f {
			if p[i] == nil || p[i].Type != aml.TypeInteger {
				good = false
				break
			}
			f[i] = p[i].Int
		}
		if !good {
			continue
		}
		domains[f[2]] = append(domains[f[2]], psdEntry{dev: dev, domain: f[2], coord: f[3], number: f[4], emulated: r.emulated})
	}
	keys := make([]uint64, 0, len(domains))
	for k := range domains {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		es := domains[k]
		first := es[0]
		for _, e := range es[1:] {
			if e.coord != first.coord || e.number != first.number {
				c.report(labelPSD, e.emulated || first.emulated, "_PSD domain %d: %s says coordination 0x%X for %d processors, %s says 0x%X for %d",
					k, c.path(first.dev), first.coord, first.number, c.path(e.dev), e.coord, e.number)
				break
			}
		}
	}
}

func (c *run1) prt(dev *aml.Node, r *result) {
	v := ok(r, aml.TypePackage)
	if v == nil {
		return
	}
	bad := map[string]bool{}
	for _, e := range v.Pkg {
		if e == nil || e.Type != aml.TypePackage || len(e.Pkg) != 4 || e.Pkg[2] == nil {
			continue // the shape rule reports it
		}
		src := e.Pkg[2]
		switch src.Type {
		case aml.TypeInteger:
			continue // 0: the fourth element is a GSI
		case aml.TypeReference:
			n := src.Ref
			if n != nil {
				n = n.Resolved()
			}
			if n == nil || n.External {
				bad[fmt.Sprintf("names %s, which no table defines", refName(src))] = true
				continue
			}
			if n.Type != aml.TypeDevice {
				bad[fmt.Sprintf("names %s (%s), not a link device", c.path(n), n.Type)] = true
				continue
			}
			if n.Child("_CRS") == nil && n.Child("_PRS") == nil {
				bad[fmt.Sprintf("names %s, a device with neither _CRS nor _PRS", c.path(n))] = true
			}
		case aml.TypeString:
			n := c.l.NS.Resolve(dev, src.Str)
			if n == nil || n.External {
				bad[fmt.Sprintf("names %q, which no table defines", src.Str)] = true
			}
		}
	}
	keys := make([]string, 0, len(bad))
	for k := range bad {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c.report(labelPRTSource, r.emulated, "%s: an entry %s", c.path(r.n), k)
	}
}

func refName(o *aml.Object) string {
	if o.Ref != nil {
		return aml.DisplayPath(o.Ref.Path())
	}
	return "nothing"
}

func (c *run1) linkMethods(links []*aml.Node) {
	for _, d := range links {
		if pr, _ := amlcheck.PresenceOf(c.e, d); pr == amlcheck.Absent {
			continue
		}
		var missing []string
		for _, name := range []string{"_PRS", "_CRS", "_SRS"} {
			if d.Child(name) == nil {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			c.report(labelLink, d.Conditional, "%s (PNP0C0F) has no %s", c.path(d), strings.Join(missing, ", "))
		}
	}
}

// WMI-ACPI _WDG flags.
const (
	wmiExpensive = 0x1
	wmiMethod    = 0x2
	wmiString    = 0x4
	wmiEvent     = 0x8
)

func (c *run1) wdg(dev *aml.Node, r *result) {
	v := ok(r, aml.TypeBuffer)
	if v == nil || len(v.Buf)%20 != 0 {
		return // WDGSize reports a partial block
	}
	seen := map[string]bool{}
	for i := 0; i+20 <= len(v.Buf); i += 20 {
		b := v.Buf[i : i+20]
		flags := b[19]
		if flags&wmiEvent != 0 {
			continue // an event: b[16] is the notification code
		}
		id := string(b[16:18])
		if !printableID(id) {
			continue
		}
		kind, name := "data block", "WQ"+id
		if flags&wmiMethod != 0 {
			kind, name = "method", "WM"+id
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		if dev.Child(name) != nil {
			continue
		}
		msg := fmt.Sprintf("%s._WDG: the %s %s (object ID %q) has no %s", c.path(dev), kind, guid(b[:16]), id, name)
		if kind == "method" {
			c.report(labelWMI, r.emulated, "%s", msg)
			continue
		}
		// a data block is read only when a driver asks for it: not
		// failed until one is seen to matter
		c.findings++
		if c.p != nil {
			c.p.Warn(labelWMI, "%s", msg)
		}
	}
}

func printableID(s string) bool {
	for _, ch := range []byte(s) {
		if !(ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_') {
			return false
		}
	}
	return true
}

// guid renders a _WDG GUID (mixed-endian, as UEFI GUIDs are).
func guid(b []byte) string {
	return fmt.Sprintf("%08X-%04X-%04X-%X-%X", binary.LittleEndian.Uint32(b[0:4]), binary.LittleEndian.Uint16(b[4:6]),
		binary.LittleEndian.Uint16(b[6:8]), b[8:10], b[10:16])
}

func (c *run1) tad(tads []*aml.Node) {
	for _, d := range tads {
		if pr, _ := amlcheck.PresenceOf(c.e, d); pr == amlcheck.Absent {
			continue
		}
		r := c.results[d]["_GCP"]
		if d.Child("_GCP") == nil {
			c.report(labelTAD, d.Conditional, "%s (ACPI000E) has no _GCP", c.path(d))
			continue
		}
		gcp := ok(r, aml.TypeInteger)
		if gcp == nil || gcp.Int&0x4 == 0 {
			continue
		}
		var missing []string
		for _, name := range []string{"_GRT", "_SRT"} {
			if d.Child(name) == nil {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			c.report(labelTAD, r.emulated, "%s._GCP is 0x%X (bit 2: real-time clock) but it has no %s", c.path(d), gcp.Int, strings.Join(missing, ", "))
		}
	}
}
