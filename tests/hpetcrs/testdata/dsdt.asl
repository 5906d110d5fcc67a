DefinitionBlock ("", "DSDT", 2, "FWCHK", "HPET", 1)
{
    Name (HPTB, 0xFED00000)
    Scope (\_SB)
    {
        Device (HPET)
        {
            Name (_HID, EisaId ("PNP0103"))
            Name (CRS0, ResourceTemplate () { Memory32Fixed (ReadOnly, 0x00000000, 0x00000400, _Y00) })
            Method (_CRS, 0, Serialized)
            {
                CreateDWordField (CRS0, \_SB.HPET._Y00._BAS, HPT0)
                HPT0 = HPTB
                Return (CRS0)
            }
        }
    }
}
