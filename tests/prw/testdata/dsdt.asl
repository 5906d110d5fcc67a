DefinitionBlock ("", "DSDT", 2, "FWCHK", "PRW", 1)
{
    OperationRegion (GNVS, SystemMemory, 0x7FFF0000, 0x10)
    Field (GNVS, AnyAcc, Lock, Preserve) { SS4, 8 }
    Name (PRWP, Package () { Zero, Zero })
    Method (GPRW, 2, NotSerialized)
    {
        PRWP [0] = Arg0
        PRWP [1] = Arg1
        If (SS4) { PRWP [1] = 0x04 }
        Return (PRWP)
    }
    Scope (\_SB)
    {
        Device (GOOD) { Name (_HID, "PNP0C0D") Name (_PRW, Package () { 0x1D, 0x03 }) }
        Device (HIGH) { Name (_HID, "PNP0C0E") Name (_PRW, Package () { 0x40, 0x03 }) }
        Device (BADP) { Name (_HID, "PNP0C0C") Name (_PRW, Package () { 0x1D }) }
        Device (FAKE) { Name (_HID, "PNP0C0B") Method (_PRW) { Return (GPRW (0x6D, 0x04)) } }
        Device (BLKD) { Name (_HID, "PNP0C0A") Name (_PRW, Package () { Package () { \_SB.GOOD, 2 }, 0x03 }) }
    }
}
