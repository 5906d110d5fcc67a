/*
 * Fixture SSDT loaded after dsdt.aml: External references into the DSDT,
 * a Scope into one of its devices, the method the DSDT calls before it is
 * loaded, and a duplicate of a DSDT object.
 */
DefinitionBlock ("", "SSDT", 2, "FWCHK", "AMLSSDT", 0x00000001)
{
    External (\_SB.PCI0, DeviceObj)
    External (\_SB.PCI0.HELP, MethodObj)
    External (\OSYS, IntObj)

    Scope (\_SB.PCI0)
    {
        Method (SSDM, 2, NotSerialized)
        {
            Return (HELP (Arg0, Arg1))
        }
        Device (GFX0)
        {
            Name (_ADR, 0x00020000)
        }
    }
    Name (\STR1, "again")
}
