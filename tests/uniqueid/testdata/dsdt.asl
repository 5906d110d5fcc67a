DefinitionBlock ("", "DSDT", 2, "FWCHK", "UID", 1)
{
    OperationRegion (GNVS, SystemMemory, 0x7FFF0000, 0x10)
    Field (GNVS, AnyAcc, Lock, Preserve) { FLG0, 8 }
    Scope (\_SB)
    {
        // the same _HID and _UID twice: a duplicate
        Device (A1) { Name (_HID, EisaId ("PNP0C0F")) Name (_UID, One) }
        Device (A2) { Name (_HID, EisaId ("PNP0C0F")) Name (_UID, One) }
        // a _CID shared with another's _HID, integer 1 against string "1"
        Device (B1) { Name (_HID, "ACPI0003") Name (_UID, One) }
        Device (B2) { Name (_HID, "ACPI0004") Name (_CID, Package () { "ACPI0003" }) Name (_UID, "1") }
        // the second one is absent: fine
        Device (C1) { Name (_HID, "PNP0A05") Name (_UID, 5) }
        Device (C2) { Name (_HID, "PNP0A05") Name (_UID, 5) Method (_STA) { Return (Zero) } }
        // presence read from hardware: not a failure
        Device (D1) { Name (_HID, "PNP0A06") Name (_UID, 6) }
        Device (D2) { Name (_HID, "PNP0A06") Name (_UID, 6) Method (_STA) { If (FLG0) { Return (0x0F) } Return (Zero) } }
        // distinct
        Device (E1) { Name (_HID, "PNP0A07") Name (_UID, 1) }
        Device (E2) { Name (_HID, "PNP0A07") Name (_UID, 2) }
    }
}
