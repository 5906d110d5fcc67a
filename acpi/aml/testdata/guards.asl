/* CondRefOf guards spelled differently from the use, a Scope inside
 * If (CondRefOf), a use of the scope a guarded object lies in (as on
 * 41B1E7A57925: CondRefOf (\_PR.P008._PPC) guarding Notify (\_PR.P008)),
 * and a Scope of an object only External declares.
 * Compiled with: iasl -f -p guards guards.asl */
DefinitionBlock ("guards.aml", "DSDT", 2, "FWCHK", "GUARDS", 1)
{
    External (\_SB.XDEV, DeviceObj)
    External (\_SB.PCI0.BAR0, IntObj)
    External (\_SB.PCI0.FOO0, DeviceObj)
    Scope (\_SB.XDEV) { Name (AAAA, 1) }          /* ExternalScope */
    If (CondRefOf (\_SB.PCI0.FOO0))
    {
        Scope (\_SB.PCI0.FOO0) { Name (BBBB, 1) } /* guarded */
    }
    Scope (\_SB)
    {
        Device (PCI0)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Device (DEV0)
            {
                Method (MTH0)
                {
                    If (CondRefOf (\_SB.PCI0.BAR0)) { Return (^^BAR0) }   /* guarded, spelled with ^ */
                    If (CondRefOf (^^BAZ0)) { Return (\_SB.PCI0.BAZ0) }   /* guarded, spelled absolute */
                    If (CondRefOf (\_SB.PCI0.P008._PPC, Local0)) { Notify (\_SB.PCI0.P008, 0x80) } /* guarded: its scope */
                    Return (\_SB.PCI0.QUX0)                               /* unresolved */
                }
            }
        }
    }
}
