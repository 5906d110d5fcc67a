package all

// fwtsTests maps a check ID to the fwts tests (Canonical's Firmware Test
// Suite, by the names `fwts --show-tests` prints) that cover the same
// ground, so that a user can line a fwcheck run up with an fwts one. A
// check missing here has no fwts counterpart; the mapping is of the
// ground covered, not of rule-for-rule equivalence. Every name must be
// in testdata/fwts-tests.txt, the fwts tests read off its source (each
// file's FWTS_REGISTER): fwts has no reboot test (its s3 and s4 tests
// cycle sleep states; reboot cycling is fwcheck's own), so reboot maps
// to nothing.
var fwtsTests = map[string][]string{
	"acpi-structure":  {"wdat", "spmi", "sbst", "csrt", "pmtt", "mchi", "uefi", "wpbt", "waet", "slic", "msdm", "asf", "cedt", "xenv", "stao", "drtm", "ibft", "ccel", "svkl", "nhlt", "viot", "aest", "apmt", "mpam"},
	"acpi-tables":     {"acpitables", "rsdp", "rsdt", "xsdt"},
	"aml-parse":       {"syntaxcheck"},
	"bert":            {"bert"},
	"bgrt":            {"bgrt"},
	"checksum":        {"checksum"},
	"cpu-features":    {"nx", "virt"},
	"dbg2":            {"dbg2"},
	"dbgp":            {"dbgp"},
	"device-ids":      {"method"},
	"dmar":            {"dmar"},
	"ecdt":            {"ecdt"},
	"esrt":            {"esrt"},
	"fadt":            {"fadt", "facs"},
	"fpdt":            {"fpdt"},
	"hpet":            {"hpet"},
	"hpet-crs":        {"hpet"},
	"ivrs":            {"ivrs"},
	"klog":            {"klog"},
	"lpit":            {"lpit"},
	"madt":            {"madt"},
	"mcfg":            {"mcfg"},
	"mcfg-reserved":   {"mcfg"},
	"msr-consistency": {"msr"},
	"mtrr":            {"mtrr"},
	"oops":            {"oops"},
	"osi":             {"osilinux"},
	"prw":             {"method"},
	"s3":              {"s3"},
	"secure-boot":     {"securebootcert"},
	"sleep-states":    {"method"},
	"smbios":          {"dmicheck"},
	"spcr":            {"spcr"},
	"tpm-eventlog":    {"tpmevlog"},
	"tpm2-table":      {"tpm2", "tcpa"},
	"uefi-boot":       {"uefibootpath"},
	"wsmt":            {"wsmt"},
	"phat":            {"phat"},
	"nfit":            {"nfit"},
	"pcct":            {"pcct"},
	"sdev":            {"sdev"},
	"mpst":            {"mpst"},
	"hest":            {"hest"},
	"erst":            {"erst"},
	"einj":            {"einj"},
	"srat":            {"srat"},
	"gtdt":            {"gtdt"},
	"iort":            {"iort"},
	"pptt":            {"pptt"},
	"slit":            {"slit"},
	"msct":            {"msct"},
	"hmat":            {"hmat"},
	"methods":         {"method"},
	// fwts' method test evaluates _CRS, _UID and the thermal objects
	// (_TMP, _CRT, _HOT, _PSV, _ACx) among its control methods.
	"resources":      {"method"},
	"unique-id":      {"method"},
	"thermal":        {"method"},
	"cstates":        {"cstates"},
	"cpufreq":        {"cpufreq"},
	"fan":            {"fan"},
	"power-supply":   {"acpi_ac", "acpi_battery", "acpi_lid"},
	"wakealarm":      {"wakealarm"},
	"legacy-bios":    {"ebda", "mpcheck", "pciirq", "bios32", "pnp"},
	"apic-edge":      {"apicedge"},
	"pcie":           {"aspm", "maxreadreq"},
	"uefi-variables": {"uefirtvariable", "uefivarinfo"},
	"smm":            {"smm"},
	"cpu-locks":      {"microcode"},
}

// FWTS returns the fwts tests that correspond to check id, nil when fwts
// has none.
func FWTS(id string) []string { return fwtsTests[id] }
