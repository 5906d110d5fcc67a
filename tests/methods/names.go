package methods

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// ret is a set of the types an object may give.
type ret uint8

const (
	tInt ret = 1 << iota
	tStr
	tBuf
	tPkg
	tRef  // a reference to a namespace object (a name in a package)
	tNone // a method that returns nothing
	tAny  = tInt | tStr | tBuf | tPkg | tRef | tNone
)

func (r ret) String() string {
	var s []string
	for i, n := range []string{"Integer", "String", "Buffer", "Package", "Reference", "nothing"} {
		if r&(1<<i) != 0 {
			s = append(s, n)
		}
	}
	return strings.Join(s, " or ")
}

// shape is what a package must hold.
type shape struct {
	min, max int   // element count (max 0: no bound)
	elem     ret   // the type of every element from `from` on (0: fields/sub say)
	fields   []ret // the types of the leading elements
	sub      *shape
	from     int // elements before this index are fields; sub-packages or elem from here
}

// rule is what the spec says of one predefined name.
type rule struct {
	name string
	args int // arguments the OS passes; -1: the object is not a method the OS calls with a fixed count
	alt  int // another allowed argument count (-1: none)
	ret  ret
	pkg  *shape
	// control: evaluating it changes state (power, resources, sleep): it
	// runs after every query object.
	control bool
	spec    string
	what    string
}

func pk(min, max int, elem ret) *shape { return &shape{min: min, max: max, elem: elem} }
func fixed(fields ...ret) *shape {
	return &shape{min: len(fields), max: len(fields), fields: fields, from: len(fields)}
}
func subs(min int, sub *shape) *shape { return &shape{min: min, sub: sub} }
func n(k int, t ret) []ret {
	r := make([]ret, k)
	for i := range r {
		r[i] = t
	}
	return r
}

// table is every predefined name checked, with its rule. ACPI 6.5
// sections; names with a digit or hex suffix (_ACx, _EJx, _Sx_, _PRx,
// _PSx, _SxD, _SxW, _ALx) are expanded by rules().
var table = []rule{
	// §6.1 device identification
	{name: "_ADR", args: 0, ret: tInt, spec: "§6.1.1", what: "address on the parent bus"},
	{name: "_CID", args: 0, ret: tInt | tStr | tPkg, pkg: pk(1, 0, tInt|tStr), spec: "§6.1.2", what: "compatible IDs"},
	{name: "_CLS", args: 0, ret: tPkg, pkg: fixed(tInt, tInt, tInt), spec: "§6.1.3", what: "PCI class code: base, sub-class, programming interface"},
	{name: "_DDN", args: 0, ret: tStr, spec: "§6.1.4", what: "DOS device name"},
	{name: "_HID", args: 0, ret: tInt | tStr, spec: "§6.1.5", what: "hardware ID"},
	{name: "_HRV", args: 0, ret: tInt, spec: "§6.1.6", what: "hardware revision"},
	{name: "_MLS", args: 0, ret: tPkg, pkg: subs(1, fixed(tStr, tBuf)), spec: "§6.1.7", what: "multiple language strings: {language, Unicode string}"},
	{name: "_PLD", args: 0, ret: tPkg, pkg: pk(1, 0, tBuf), spec: "§6.1.8", what: "physical location buffers, at least 16 bytes, revision 1 or 2"},
	{name: "_SUB", args: 0, ret: tStr, spec: "§6.1.9", what: "subsystem ID"},
	{name: "_SUN", args: 0, ret: tInt, spec: "§6.1.11", what: "slot user number"},
	{name: "_STR", args: 0, ret: tBuf, spec: "§6.1.10", what: "Unicode description"},
	{name: "_UID", args: 0, ret: tInt | tStr, spec: "§6.1.12", what: "unique ID"},
	// §6.2 device configuration
	{name: "_CCA", args: 0, ret: tInt, spec: "§6.2.17", what: "cache coherency: 0 or 1"},
	{name: "_CDM", args: 0, ret: tInt, spec: "§6.2.1", what: "clock domain"},
	{name: "_CRS", args: 0, ret: tBuf, spec: "§6.2.2", what: "current resources (a resource template)"},
	{name: "_DIS", args: 0, ret: tNone | tAny, control: true, spec: "§6.2.3", what: "disable the device"},
	{name: "_DMA", args: 0, ret: tBuf, spec: "§6.2.4", what: "DMA resources"},
	{name: "_DSD", args: 0, ret: tPkg, spec: "§6.2.5", what: "device properties: pairs of a UUID buffer and a package"},
	{name: "_DSM", args: 4, ret: tAny &^ tNone, spec: "§9.1.1", what: "device-specific method; function 0 (query) gives a Buffer of supported functions"},
	{name: "_FIX", args: 0, ret: tPkg, pkg: pk(1, 0, tInt), spec: "§6.2.7", what: "fixed-register devices (EISA IDs)"},
	{name: "_GSB", args: 0, ret: tInt, spec: "§6.2.7", what: "global system interrupt base"},
	{name: "_HPP", args: 0, ret: tPkg, pkg: fixed(tInt, tInt, tInt, tInt), spec: "§6.2.8", what: "hot-plug parameters: cache line, latency, SERR, PERR"},
	{name: "_HPX", args: 0, ret: tPkg, pkg: subs(1, pk(2, 0, tInt|tPkg)), spec: "§6.2.9", what: "hot-plug parameter records"},
	{name: "_MAT", args: 0, ret: tBuf, spec: "§6.2.10", what: "MADT entries"},
	{name: "_OSC", args: 4, ret: tBuf, spec: "§6.2.11", what: "OS capabilities: returns the capabilities buffer"},
	{name: "_PRS", args: 0, ret: tBuf, spec: "§6.2.12", what: "possible resources"},
	{name: "_PRT", args: 0, ret: tPkg, pkg: subs(1, fixed(tInt, tInt, tRef|tStr|tInt, tInt)), spec: "§6.2.13", what: "PCI interrupt routing: at least one {address, pin 0-3, source, index}"},
	{name: "_PXM", args: 0, ret: tInt, spec: "§6.2.14", what: "proximity domain"},
	{name: "_SLI", args: 0, ret: tBuf, spec: "§6.2.15", what: "locality distances"},
	{name: "_SRS", args: 1, ret: tNone | tAny, control: true, spec: "§6.2.16", what: "set resources"},
	// §6.3 insertion and removal
	{name: "_EDL", args: 0, ret: tPkg, pkg: pk(0, 0, tRef|tStr), spec: "§6.3.1", what: "eject-dependent devices"},
	{name: "_EJD", args: 0, ret: tStr, spec: "§6.3.2", what: "ejection dependency"},
	{name: "_EJx", args: 1, ret: tNone | tAny, control: true, spec: "§6.3.3", what: "eject"},
	{name: "_LCK", args: 1, ret: tNone | tAny, control: true, spec: "§6.3.4", what: "lock"},
	{name: "_OST", args: 3, ret: tNone | tAny, control: true, spec: "§6.3.5", what: "OSPM status indication"},
	{name: "_RMV", args: 0, ret: tInt, spec: "§6.3.6", what: "removable: 0 or 1"},
	{name: "_STA", args: 0, ret: tInt, spec: "§6.3.7", what: "status: bits 0-4, the others reserved"},
	// §6.5 other objects
	{name: "_BBN", args: 0, ret: tInt, spec: "§6.5.5", what: "base bus number"},
	{name: "_DCK", args: 1, ret: tInt, control: true, spec: "§6.5.2", what: "dock"},
	{name: "_DEP", args: 0, ret: tPkg, pkg: pk(0, 0, tRef|tStr), spec: "§6.5.8", what: "operation dependencies"},
	{name: "_FIT", args: 0, ret: tBuf, spec: "§6.5.9", what: "NVDIMM firmware interface table"},
	{name: "_GLK", args: 0, ret: tInt, spec: "§6.5.7", what: "global lock required: 0 or 1"},
	{name: "_INI", args: 0, ret: tNone | tAny, control: true, spec: "§6.5.1", what: "initialise"},
	{name: "_PRR", args: 0, ret: tPkg, pkg: pk(1, 1, tRef), spec: "§7.3.26", what: "power resource for reset"},
	{name: "_REG", args: 2, ret: tNone | tAny, control: true, spec: "§6.5.4", what: "region availability"},
	{name: "_RST", args: 0, ret: tNone | tAny, control: true, spec: "§7.3.25", what: "device reset"},
	{name: "_SEG", args: 0, ret: tInt, spec: "§6.5.6", what: "PCI segment (16 bits)"},
	// §7 power and performance management
	{name: "_DSW", args: 3, ret: tNone | tAny, control: true, spec: "§7.3.1", what: "device sleep wake"},
	{name: "_ON_", args: 0, ret: tNone | tAny, control: true, spec: "§7.2.3", what: "power resource on"},
	{name: "_OFF", args: 0, ret: tNone | tAny, control: true, spec: "§7.2.2", what: "power resource off"},
	{name: "_PRx", args: 0, ret: tPkg, pkg: pk(0, 0, tRef|tStr), spec: "§7.3.8-11", what: "power resources for D0-D3hot"},
	{name: "_PRE", args: 0, ret: tPkg, pkg: pk(0, 0, tRef|tStr), spec: "§7.3.12", what: "power resources for enumeration"},
	{name: "_PRW", args: 0, ret: tPkg, pkg: &shape{min: 2, fields: []ret{tInt | tPkg, tInt}, from: 2, elem: tRef | tStr}, spec: "§7.3.13", what: "wake: {GPE, deepest sleep state, power resources…}"},
	{name: "_PSx", args: 0, ret: tNone | tAny, control: true, spec: "§7.3.2-5", what: "enter D0-D3"},
	{name: "_PSC", args: 0, ret: tInt, spec: "§7.3.6", what: "current D-state: 0-3"},
	{name: "_PSE", args: 1, ret: tNone | tAny, control: true, spec: "§7.3.7", what: "power state for enumeration"},
	{name: "_PSW", args: 1, ret: tNone | tAny, control: true, spec: "§7.3.14", what: "power state wake"},
	{name: "_SxD", args: 0, ret: tInt, spec: "§7.3.15-18", what: "highest D-state in Sx: 0-3"},
	{name: "_SxW", args: 0, ret: tInt, spec: "§7.3.20-24", what: "deepest wake D-state in Sx: 0-4"},
	{name: "_IRC", args: 0, ret: tNone | tAny, spec: "§7.3.15", what: "in-rush current"},
	{name: "_Sx_", args: -1, ret: tPkg, pkg: pk(1, 0, tInt), spec: "§7.4.2", what: "sleep state: {SLP_TYPa, SLP_TYPb, …}"},
	{name: "_SWS", args: 0, ret: tInt, spec: "§7.4.3", what: "system wake source"},
	{name: "_PTS", args: 1, ret: tNone | tAny, control: true, spec: "§7.4.1", what: "prepare to sleep"},
	{name: "_TTS", args: 1, ret: tNone | tAny, control: true, spec: "§7.4.4", what: "transition to state"},
	{name: "_WAK", args: 1, ret: tNone | tInt | tPkg, pkg: fixed(tInt, tInt), control: true, spec: "§7.4.5", what: "wake: Package {status, PSS}"},
	{name: "_SST", args: 1, ret: tNone | tAny, control: true, spec: "§9.1.2", what: "system status indicator"},
	{name: "_MSG", args: 1, ret: tNone | tAny, control: true, spec: "§9.1.3", what: "message indicator"},
	// §8 processor
	{name: "_CPC", args: 0, ret: tPkg, pkg: &shape{min: 17, max: 23, elem: tInt | tBuf}, spec: "§8.4.6.1", what: "CPPC: {NumEntries, Revision, registers…}: 17 (rev 1), 21 (rev 2) or 23 (rev 3) entries"},
	{name: "_CSD", args: 0, ret: tPkg, pkg: subs(1, pk(6, 6, tInt)), spec: "§8.4.1.2", what: "C-state dependencies: {6, 0, domain, coordination, processors, index}"},
	{name: "_CST", args: 0, ret: tPkg, pkg: &shape{min: 2, fields: []ret{tInt}, from: 1, sub: fixed(tBuf, tInt, tInt, tInt)}, spec: "§8.4.1.1", what: "C-states: {count, {register, type 1-3, latency, power}…}, count matching"},
	{name: "_LPI", args: 0, ret: tPkg, pkg: &shape{min: 3, fields: []ret{tInt, tInt, tInt}, from: 3, sub: fixed(tInt, tInt, tInt, tInt, tInt, tInt, tBuf|tInt, tBuf, tBuf, tStr)}, spec: "§8.4.3.3", what: "low-power idle states: {revision 0, level ID, count, states…}"},
	{name: "_PCT", args: 0, ret: tPkg, pkg: fixed(tBuf, tBuf), spec: "§8.4.5.1", what: "performance control and status registers"},
	{name: "_PDC", args: 1, ret: tNone | tAny, control: true, spec: "§8.4.1 (Intel)", what: "processor driver capabilities"},
	{name: "_PDL", args: 0, ret: tInt, spec: "§8.4.5.5", what: "P-state depth limit"},
	{name: "_PPC", args: 0, ret: tInt, spec: "§8.4.5.3", what: "performance present capabilities: an index into _PSS"},
	{name: "_PPE", args: 0, ret: tInt, spec: "§8.4.7", what: "polling for platform errors"},
	{name: "_PSD", args: 0, ret: tPkg, pkg: subs(1, pk(5, 5, tInt)), spec: "§8.4.5.5", what: "P-state dependency: {5, 0, domain, coordination 0xFC-0xFE, processors}"},
	{name: "_PSS", args: 0, ret: tPkg, pkg: subs(1, pk(6, 6, tInt)), spec: "§8.4.5.2", what: "P-states: {frequency, power, latencies, control, status}, frequency descending"},
	{name: "_PTC", args: 0, ret: tPkg, pkg: fixed(tBuf, tBuf), spec: "§8.4.4.1", what: "throttling control and status registers"},
	{name: "_PUR", args: 0, ret: tPkg, pkg: fixed(tInt, tInt), spec: "§8.5.11", what: "processor utilisation request: {revision 1, idle processors}"},
	{name: "_TDL", args: 0, ret: tInt, spec: "§8.4.4.5", what: "T-state depth limit"},
	{name: "_TPC", args: 0, ret: tInt, spec: "§8.4.4.3", what: "throttling present capabilities: an index into _TSS"},
	{name: "_TSD", args: 0, ret: tPkg, pkg: subs(1, pk(5, 5, tInt)), spec: "§8.4.4.4", what: "T-state dependency: one {5, 0, domain, coordination, processors} (Linux reads only one)"},
	{name: "_TSS", args: 0, ret: tPkg, pkg: subs(1, pk(5, 5, tInt)), spec: "§8.4.4.2", what: "T-states: {percent 1-100, power, latency, control, status}"},
	// §9 devices
	{name: "_LID", args: 0, ret: tInt, spec: "§9.5.1", what: "lid status"},
	{name: "_GCP", args: 0, ret: tInt, spec: "§9.17.2", what: "time and alarm capabilities"},
	{name: "_GRT", args: 0, ret: tBuf, spec: "§9.17.3", what: "real time: a 16-byte buffer"},
	{name: "_SRT", args: 1, ret: tInt, control: true, spec: "§9.17.4", what: "set real time"},
	{name: "_GWS", args: 1, ret: tInt, spec: "§9.17.5", what: "wake status"},
	{name: "_CWS", args: 1, ret: tInt, control: true, spec: "§9.17.6", what: "clear wake status"},
	{name: "_STP", args: 2, ret: tInt, control: true, spec: "§9.17.7", what: "set expired timer wake policy"},
	{name: "_STV", args: 2, ret: tInt, control: true, spec: "§9.17.8", what: "set timer value"},
	{name: "_TIP", args: 1, ret: tInt, spec: "§9.17.9", what: "expired timer wake policy"},
	{name: "_TIV", args: 1, ret: tInt, spec: "§9.17.10", what: "timer value"},
	{name: "_ALC", args: 0, ret: tInt, spec: "§9.2.2", what: "ambient light colour"},
	{name: "_ALI", args: 0, ret: tInt, spec: "§9.2.1", what: "ambient light illuminance"},
	{name: "_ALT", args: 0, ret: tInt, spec: "§9.2.3", what: "ambient light temperature"},
	{name: "_ALP", args: 0, ret: tInt, spec: "§9.2.6", what: "ambient light polling"},
	{name: "_ALR", args: 0, ret: tPkg, pkg: subs(1, fixed(tInt, tInt)), spec: "§9.2.5", what: "ambient light response: {adjustment, illuminance}"},
	{name: "_UPC", args: 0, ret: tPkg, pkg: fixed(tInt, tInt, tInt, tInt), spec: "§9.14", what: "USB port capabilities: {connectable, type, 0, 0}"},
	{name: "_PIC", args: 1, ret: tNone | tAny, control: true, spec: "§5.8.1", what: "interrupt model"},
	{name: "_WDG", args: 0, ret: tBuf, spec: "Windows WMI", what: "WMI GUID blocks of 20 bytes"},
	{name: "_FIF", args: 0, ret: tPkg, pkg: fixed(tInt, tInt, tInt, tInt), spec: "§11.3.1.1", what: "fan information: {revision 0, fine grain, step size 1-9, low-speed notification}"},
	{name: "_FPS", args: 0, ret: tPkg, pkg: &shape{min: 2, fields: []ret{tInt}, from: 1, sub: pk(5, 5, tInt)}, spec: "§11.3.1.2", what: "fan performance states: {revision 0, {control, trip point, speed, noise, power}…}"},
	{name: "_FSL", args: 1, ret: tNone | tAny, control: true, spec: "§11.3.1.3", what: "fan set level"},
	{name: "_FST", args: 0, ret: tPkg, pkg: fixed(tInt, tInt, tInt), spec: "§11.3.1.4", what: "fan status: {revision 0, control, speed}"},
	{name: "_EC_", args: 0, ret: tInt, spec: "§12.12", what: "EC offset query"},
	{name: "_GPE", args: 0, ret: tInt | tPkg, spec: "§12.11", what: "EC SCI GPE"},
	{name: "_BCL", args: 0, ret: tPkg, pkg: pk(3, 0, tInt), spec: "§B.6.2", what: "brightness levels: {AC level, battery level, levels 0-100…}"},
	{name: "_BCM", args: 1, ret: tNone | tAny, control: true, spec: "§B.6.3", what: "set brightness"},
	{name: "_BQC", args: 0, ret: tInt, spec: "§B.6.4", what: "brightness: one of the _BCL levels"},
	{name: "_DOD", args: 0, ret: tPkg, pkg: pk(0, 0, tInt), spec: "§B.4.2", what: "display output device IDs"},
	{name: "_DOS", args: 1, ret: tNone | tAny, control: true, spec: "§B.4.1", what: "display output switching"},
	{name: "_DCS", args: 0, ret: tInt, spec: "§B.6.6", what: "display status"},
	{name: "_DDC", args: 1, ret: tInt | tBuf, spec: "§B.6.5", what: "EDID"},
	{name: "_DGS", args: 0, ret: tInt, spec: "§B.6.7", what: "display graphics state"},
	{name: "_DSS", args: 1, ret: tNone | tAny, control: true, spec: "§B.6.8", what: "device set state"},
	{name: "_ROM", args: 2, ret: tBuf, spec: "§B.4.3", what: "video ROM data"},
	{name: "_GPD", args: 0, ret: tInt, spec: "§B.4.4", what: "POST device"},
	{name: "_SPD", args: 1, ret: tInt, control: true, spec: "§B.4.5", what: "set POST device"},
	{name: "_VPO", args: 0, ret: tInt, spec: "§B.4.6", what: "video POST options"},
	// §10 power source and power meter
	{name: "_BIF", args: 0, ret: tPkg, pkg: fixed(append(n(9, tInt), n(4, tStr|tBuf)...)...), spec: "§10.2.2.1", what: "battery information: 9 integers, 4 strings; power unit 0/1, technology 0/1"},
	{name: "_BIX", args: 0, ret: tPkg, pkg: &shape{min: 20, max: 21, fields: append(append(n(16, tInt), n(4, tStr|tBuf)...), tInt), from: 21}, spec: "§10.2.2.2", what: "battery information extended: revision 0 (20 entries) or 1 (21)"},
	{name: "_BST", args: 0, ret: tPkg, pkg: fixed(tInt, tInt, tInt, tInt), spec: "§10.2.2.6", what: "battery status: {state, rate, remaining capacity, voltage}; not charging and discharging at once"},
	{name: "_BTP", args: 1, ret: tNone | tAny, control: true, spec: "§10.2.2.7", what: "battery trip point"},
	{name: "_BTM", args: 1, ret: tInt, spec: "§10.2.2.9", what: "battery time"},
	{name: "_BMC", args: 1, ret: tNone | tAny, control: true, spec: "§10.2.2.12", what: "battery maintenance control"},
	{name: "_BMD", args: 0, ret: tPkg, pkg: pk(5, 5, tInt), spec: "§10.2.2.11", what: "battery maintenance data"},
	{name: "_BMA", args: 1, ret: tInt, control: true, spec: "§10.2.2.4", what: "battery measurement averaging"},
	{name: "_BMS", args: 1, ret: tInt, control: true, spec: "§10.2.2.5", what: "battery measurement sampling"},
	{name: "_BPC", args: 0, ret: tPkg, pkg: pk(4, 4, tInt), spec: "§10.2.2.13", what: "battery power characteristics"},
	{name: "_BPS", args: 0, ret: tPkg, pkg: pk(5, 5, tInt), spec: "§10.2.2.14", what: "battery power state"},
	{name: "_BPT", args: 3, ret: tInt, control: true, spec: "§10.2.2.15", what: "battery power threshold"},
	{name: "_BTH", args: 1, ret: tNone | tAny, control: true, spec: "§10.2.2.8", what: "battery throttle limit"},
	{name: "_BCT", args: 1, ret: tInt, spec: "§10.2.2.10", what: "battery charge time"},
	{name: "_PSR", args: 0, ret: tInt, spec: "§10.3.1", what: "power source: 0 offline, 1 online"},
	{name: "_PCL", args: 0, ret: tPkg, pkg: pk(1, 0, tRef|tStr), spec: "§10.3.2", what: "power consumers: a package of references"},
	{name: "_PIF", args: 0, ret: tPkg, pkg: fixed(tInt, tInt, tInt, tStr, tStr, tStr), spec: "§10.3.3", what: "power source information"},
	{name: "_PRL", args: 0, ret: tPkg, pkg: pk(1, 0, tRef|tStr), spec: "§10.3.4", what: "power source redundancy list"},
	{name: "_SBS", args: 0, ret: tInt, spec: "§10.1.3", what: "smart battery subsystem type: 0-4"},
	{name: "_GHL", args: 0, ret: tInt, spec: "§10.4.7", what: "hardware limit"},
	{name: "_PMM", args: 0, ret: tInt, spec: "§10.4.3", what: "power meter measurement"},
	{name: "_PAI", args: 1, ret: tInt, control: true, spec: "§10.4.4", what: "power averaging interval"},
	{name: "_GAI", args: 0, ret: tInt, spec: "§10.4.5", what: "averaging interval"},
	{name: "_PTP", args: 2, ret: tNone | tAny, control: true, spec: "§10.4.9", what: "power trip points"},
	// §11 thermal
	{name: "_ACx", args: 0, ret: tInt, spec: "§11.4.1", what: "active cooling trip point (tenths of K), _AC0 highest"},
	{name: "_ALx", args: 0, ret: tPkg, pkg: pk(1, 0, tRef|tStr), spec: "§11.4.2", what: "active cooling devices"},
	{name: "_ART", args: 0, ret: tPkg, pkg: &shape{min: 1, fields: []ret{tInt}, from: 1, sub: &shape{min: 3, max: 13, fields: []ret{tRef | tStr, tRef | tStr}, from: 2, elem: tInt}}, spec: "§11.4.3", what: "active relationship table"},
	{name: "_CRT", args: 0, ret: tInt, spec: "§11.4.4", what: "critical temperature, above _HOT and _PSV"},
	{name: "_CR3", args: 0, ret: tInt, spec: "§11.4.5", what: "warm temperature"},
	{name: "_DTI", args: 1, ret: tNone | tAny, control: true, spec: "§11.4.6", what: "device temperature indication"},
	{name: "_HOT", args: 0, ret: tInt, spec: "§11.4.7", what: "hot temperature (S4), between _PSV and _CRT"},
	{name: "_MTL", args: 0, ret: tInt, spec: "§11.4.8", what: "minimum throttle limit (percent)"},
	{name: "_NTT", args: 0, ret: tInt, spec: "§11.4.9", what: "notification temperature threshold"},
	{name: "_PSL", args: 0, ret: tPkg, pkg: pk(1, 0, tRef|tStr), spec: "§11.4.10", what: "passive cooling devices"},
	{name: "_PSV", args: 0, ret: tInt, spec: "§11.4.11", what: "passive cooling temperature"},
	{name: "_RTV", args: 0, ret: tInt, spec: "§11.4.12", what: "relative temperature values"},
	{name: "_SCP", args: 1, alt: 3, ret: tNone | tAny, control: true, spec: "§11.4.13", what: "set cooling policy"},
	{name: "_TC1", args: 0, ret: tInt, spec: "§11.4.14", what: "thermal constant 1"},
	{name: "_TC2", args: 0, ret: tInt, spec: "§11.4.15", what: "thermal constant 2"},
	{name: "_TFP", args: 0, ret: tInt, spec: "§11.4.16", what: "thermal fast sampling period"},
	{name: "_TMP", args: 0, ret: tInt, spec: "§11.4.17", what: "temperature (tenths of K)"},
	{name: "_TPT", args: 1, ret: tNone | tAny, control: true, spec: "§11.4.18", what: "trip point temperature"},
	{name: "_TRT", args: 0, ret: tPkg, pkg: subs(0, &shape{min: 8, max: 8, fields: []ret{tRef | tStr, tRef | tStr}, from: 2, elem: tInt}), spec: "§11.4.19", what: "thermal relationship table"},
	{name: "_TSN", args: 0, ret: tRef | tStr, spec: "§11.4.20", what: "thermal sensor device"},
	{name: "_TSP", args: 0, ret: tInt, spec: "§11.4.21", what: "thermal sampling period"},
	{name: "_TST", args: 0, ret: tInt, spec: "§11.4.22", what: "temperature sensor threshold"},
	{name: "_TZD", args: 0, ret: tPkg, pkg: pk(1, 0, tRef|tStr), spec: "§11.4.23", what: "thermal zone devices"},
	{name: "_TZM", args: 0, ret: tRef | tStr, spec: "§11.4.24", what: "thermal zone member"},
	{name: "_TZP", args: 0, ret: tInt, spec: "§11.4.25", what: "thermal zone polling"},
	// §5.6.4 GPE and §13.? EC query methods take no arguments
	{name: "_Lxx", args: 0, ret: tAny, control: true, spec: "§5.6.4.1", what: "level GPE handler: no arguments (not run)"},
	{name: "_Exx", args: 0, ret: tAny, control: true, spec: "§5.6.4.1", what: "edge GPE handler: no arguments (not run)"},
	{name: "_Qxx", args: 0, ret: tAny, control: true, spec: "§12.6.1", what: "EC query handler: no arguments (not run)"},
	{name: "_EVT", args: 1, ret: tAny, control: true, spec: "§5.6.5.3", what: "GED event handler (not run)"},
}

// eventNames are the handlers only their events run: their argument count
// is checked, they are not evaluated.
var eventNames = map[string]bool{"_Lxx": true, "_Exx": true, "_Qxx": true, "_EVT": true}

// rulesByName is built on first use, not at package initialisation.
var rulesByName = sync.OnceValue(rules)

func rules() map[string]*rule {
	m := map[string]*rule{}
	add := func(name string, r rule) {
		r.name = name
		if r.alt == 0 {
			r.alt = -1
		}
		m[name] = &r
	}
	for _, r := range table {
		switch r.name {
		case "_ACx", "_ALx":
			for i := 0; i <= 9; i++ {
				add(fmt.Sprintf("%s%d", r.name[:3], i), r)
			}
		case "_EJx":
			for i := 0; i <= 4; i++ {
				add(fmt.Sprintf("_EJ%d", i), r)
			}
		case "_PRx", "_PSx":
			for i := 0; i <= 3; i++ {
				add(fmt.Sprintf("%s%d", r.name[:3], i), r)
			}
		case "_SxD":
			for i := 1; i <= 4; i++ {
				add(fmt.Sprintf("_S%dD", i), r)
			}
		case "_SxW":
			for i := 0; i <= 4; i++ {
				add(fmt.Sprintf("_S%dW", i), r)
			}
		case "_Sx_":
			for i := 0; i <= 5; i++ {
				add(fmt.Sprintf("_S%d_", i), r)
			}
		case "_Lxx", "_Exx", "_Qxx", "_EVT":
			add(r.name, r)
		default:
			add(r.name, r)
		}
	}
	return m
}

// lookup is the rule for a NameSeg (GPE and query handlers by pattern).
func lookup(seg string) *rule {
	if r := rulesByName()[seg]; r != nil {
		return r
	}
	if len(seg) == 4 && seg[0] == '_' && isHex(seg[2]) && isHex(seg[3]) {
		switch seg[1] {
		case 'L', 'E', 'Q':
			return rulesByName()["_"+seg[1:2]+"xx"]
		}
	}
	return nil
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' }

// Names lists the rules as a Markdown table (NAMES.md is this, kept
// current by a test).
func Names() string {
	var b strings.Builder
	b.WriteString("| name | arguments | returns | rule | ACPI 6.5 |\n| --- | --- | --- | --- | --- |\n")
	rs := append([]rule(nil), table...)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].name < rs[j].name })
	for _, r := range rs {
		args := fmt.Sprint(r.args)
		if r.args < 0 {
			args = "-"
		}
		if r.alt > 0 {
			args += fmt.Sprintf(" or %d", r.alt)
		}
		rt := r.ret.String()
		if r.ret == tAny {
			rt = "anything"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.name, args, rt, r.what, r.spec)
	}
	return b.String()
}
