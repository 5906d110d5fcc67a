DefinitionBlock ("", "DSDT", 2, "FWCHK", "LOOP", 1)
{
    OperationRegion (GNVS, SystemMemory, 0x7FFF0000, 0x10)
    Field (GNVS, AnyAcc, Lock, Preserve) { RDY0, 8 }
    Scope (\_SB)
    {
        Device (LOOP)
        {
            Name (_HID, "PNP0C0D")
            Method (_STA, 0, NotSerialized)
            {
                Local0 = Zero
                While ((Local0 < 0x10)) { Local1 = Local0 }
                Return (0x0F)
            }
        }
        Device (POLL)
        {
            Name (_HID, "PNP0C0E")
            Method (_STA, 0, NotSerialized)
            {
                While ((RDY0 == Zero)) { Sleep (1) }
                Return (0x0F)
            }
        }
    }
}
