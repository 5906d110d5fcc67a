DefinitionBlock ("", "DSDT", 2, "FWCHK", "IDS", 1)
{
    Scope (\_SB)
    {
        Device (OK01) { Name (_HID, EisaId ("PNP0C0F")) Name (_CID, Package () { "PNP0C02", EisaId ("PNP0A03"), "PCI\\CC_0C0330" }) Name (_UID, "x") }
        Device (OK02) { Name (_HID, "ACPI0003") Method (_UID) { Return (ToInteger ("7")) } }
        Device (BAD1) { Name (_HID, "ID9001") Name (_UID, One) }
        Device (BAD2) { Name (_HID, "INT33A0") Name (_CID, "WITTTest") }
        Device (BAD3) { Name (_HID, 0x80000000) }
        Device (BAD4) { Name (_HID, "PNP0C02") Name (_UID, Package () { One }) }
        // A microVM's VM generation ID and VMClock devices, with the IDs its hypervisor published.
        Device (VGEN) { Name (_HID, "VMGENCTR") Name (_CID, "VM_Gen_Counter") }
        Device (VCLK) { Name (_HID, "AMZNC10C") Name (_CID, "VMCLOCK") }
    }
}
