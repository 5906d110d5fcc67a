DefinitionBlock ("", "DSDT", 2, "FWCHK", "OSI", 1)
{
    Name (OSYS, Zero)
    Name (LINX, Zero)
    Method (_INI, 0, NotSerialized)
    {
        If (_OSI ("Windows 2009")) { OSYS = 0x07D9 }
        If (_OSI ("Linux")) { LINX = One }
        Local0 = _OSI ("Linux")
    }
}
