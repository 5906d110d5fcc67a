/* Fixture for the methods check: one defect per label, and objects that
 * pass. Compiled with: iasl -f -p dsdt dsdt.asl (-f: the defects are errors to iasl) */
DefinitionBlock ("dsdt.aml", "DSDT", 2, "FWCHK", "METHODS", 1)
{
    External (\_SB.NONE, MethodObj)
    OperationRegion (GNVS, SystemMemory, 0x1000, 0x10)
    Field (GNVS, ByteAcc, NoLock, Preserve) { HWST, 8 }
    Mutex (BMTX, 0)
    Scope (\_SB)
    {
        Device (PCI0)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Name (_PRT, Package (0) {})
            Method (_OSC, 4) { Return (Arg3) }
        }
        Device (BAT0)
        {
            Name (_HID, EisaId ("PNP0C0A"))
            Method (_PCL) { Return (\_SB) }         /* a name, not a package */
            Method (_STA) { Return (0x11F) }         /* reserved bit 8 */
            Name (_BIF, Package (13) { 2, 1, 1, 1, 1, 1, 1, 1, 1, "a", "b", "c", "d" })
            Method (_BST) { Return (Package (4) { 3, 0, 0, 0 }) }
        }
        Device (ADP1)
        {
            Name (_HID, "ACPI0003")
            Method (_PSR) { Return (HWST) }          /* under emulation: 0, fine */
        }
        Device (GFX0)
        {
            Name (_ADR, 0x00020000)
            Device (LCD)
            {
                Name (_ADR, 0x0400)
                Name (_BCL, Package (5) { 120, 50, 10, 50, 100 })
                Method (_BQC) { Return (42) }
                Method (_BCM, 1) { Acquire (BMTX, 0xFFFF) }
            }
        }
        Device (WMI0)
        {
            Name (_HID, "PNP0C14")
            Name (_WDG, Buffer (21) {})
        }
        Device (USB1)
        {
            Name (_ADR, 1)
            Name (_PLD, Package (1) { Buffer (16) { 0x00 } })
            Method (_RMV) { If (HWST) { Return (1) } }   /* no value on the emulated path */
            Method (_UPC) { Return (Package (3) { 1, 2, 3 }) }
        }
        Device (DEV1)
        {
            Name (_HID, "FWCK0001")
            Method (_STA) { Return (\_SB.NONE ()) }
            Method (_CRS) { Return (Local0) }
            Method (_PS0, 1) { }
        }
    }
    Scope (\_PR)
    {
        Processor (CPU0, 0, 0x410, 6)
        {
            Name (_PSS, Package (2) {
                Package (6) { 1000, 10, 10, 10, 1, 1 },
                Package (6) { 2000, 20, 10, 10, 2, 2 } })
            Name (_PPC, 2)
            Name (_TSD, Package (2) {
                Package (5) { 5, 0, 0, 0xFD, 1 },
                Package (5) { 5, 0, 1, 0xFD, 1 } })
            Name (_CST, Package (2) { 2, Package (4) { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 1, 1000 } })
            Name (_PSD, Package (1) { Package (5) { 5, 0, 0, 0xFC, 2 } })
        }
        Processor (CPU1, 1, 0x410, 6)
        {
            Name (_PSD, Package (1) { Package (5) { 5, 0, 0, 0xFE, 2 } })  /* PSDDomain: HW_ALL against CPU0's SW_ALL */
        }
    }
    Scope (\_SB)
    {
        Device (EC0)  /* ECNoGPE */
        {
            Name (_HID, EisaId ("PNP0C09"))
            Name (_CRS, ResourceTemplate () { IO (Decode16, 0x62, 0x62, 0, 1) IO (Decode16, 0x66, 0x66, 0, 1) })
        }
        Device (LNKX)  /* LinkDeviceMethods: no _PRS, _SRS */
        {
            Name (_HID, EisaId ("PNP0C0F"))
            Name (_UID, 9)
            Name (_CRS, ResourceTemplate () { IRQ (Level, ActiveLow, Shared) {11} })
        }
        Name (NOTL, 5)
        Device (PCI1)
        {
            Name (_HID, EisaId ("PNP0A03"))
            Name (_UID, 1)
            Name (_PRT, Package (1) { Package (4) { 0xFFFF, 0, NOTL, 0 } })  /* PRTSource: an Integer Name */
        }
        Device (WMI1)
        {
            Name (_HID, "PNP0C14")
            Name (_UID, "W1")
            /* WDGMethodMissing: method block "AA" (flags 2) without WMAA */
            Name (_WDG, Buffer (20) { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00,
                                      0x41, 0x41, 0x01, 0x02 })
        }
        Device (TAD0)  /* TimeAlarmMethods: _GCP bit 2 without _GRT, _SRT */
        {
            Name (_HID, "ACPI000E")
            Method (_GCP) { Return (0x05) }
        }
    }
    ThermalZone (TZ0)
    {
        Method (_TMP) { Return (3000) }
        Method (_CRT) { Return (3600) }
        Method (_HOT) { Return (3700) }
        Method (_AC0) { Return (3200) }
        Method (_AC1) { Return (3300) }
    }
    Name (_S5_, Package (4) { 5, 5, 0, 0 })
}
