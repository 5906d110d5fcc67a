/*
 * Fixture for the acpi/aml tests: one of each object the parser declares,
 * calls to methods declared later (in the table and in the SSDT), and the
 * load-time code patterns real firmware uses, and three errors a firmware
 * compiler can let through: NEWO declared in both branches of a load-time
 * If (fine), \_SB.NONE used under CondRefOf (fine) and MISS, which no
 * table declares (a problem). Compiled with "iasl -f" (which the errors
 * need) into dsdt.aml; see fixtures_test.go.
 */
DefinitionBlock ("", "DSDT", 2, "FWCHK", "AMLTEST", 0x00000001)
{
    External (\_SB.PCI0.SSDM, MethodObj)    // defined by ssdt.aml, 2 arguments

    Name (OSYS, 0x07DF)
    Name (STR1, "hello")
    Name (BUF1, Buffer (0x06) { 0x01, 0x02, 0x03 })
    Name (PKG1, Package (0x03) { One, "two", Package () { 0x03 } })
    Mutex (MUT0, 0x03)
    Event (EVT0)
    OperationRegion (GNVS, SystemMemory, 0x7FFF0000, 0x0100)
    Field (GNVS, AnyAcc, Lock, Preserve)
    {
        OSYF,   16,
        Offset (0x04),
        ECON,   8,
        AccessAs (ByteAcc),
        FLG0,   1,
        FLG1,   1
    }
    OperationRegion (CMS1, SystemIO, 0x72, 0x02)
    Field (CMS1, ByteAcc, NoLock, Preserve)
    {
        CMSI,   8,
        CMSD,   8
    }
    IndexField (CMSI, CMSD, ByteAcc, NoLock, Preserve)
    {
        Offset (0x40),
        CM40,   8
    }
    BankField (GNVS, ECON, 0x01, ByteAcc, NoLock, Preserve)
    {
        Offset (0x10),
        BNK0,   8
    }
    Alias (OSYS, OSY2)

    Scope (\_PR)
    {
        Processor (CPU0, 0x01, 0x00000410, 0x06) {}
    }

    If ((OSYS >= 0x07DC))
    {
        Name (NEWO, One)
    }
    Else
    {
        Name (NEWO, Zero)
    }

    Scope (\_SB)
    {
        Device (PCI0)
        {
            Name (_HID, EisaId ("PNP0A08"))
            Name (_CID, EisaId ("PNP0A03"))
            Name (_UID, Zero)
            Name (_PRT, Package () { Package () { 0xFFFF, Zero, LNKA, Zero } })
            Method (_STA, 0, NotSerialized)
            {
                Return (HELP (0x0F, 0x01))
            }
            Method (_OSC, 4, Serialized)
            {
                CreateDWordField (Arg3, Zero, CDW1)
                If ((Arg0 == ToUUID ("33db4d5b-1ff7-401c-9657-7441c03dd766")))
                {
                    CDW1 |= 0x04
                }
                SSDM (Arg0, Arg1)
                Return (Arg3)
            }
            Method (HELP, 2, Serialized, 5)
            {
                Local0 = (Arg0 & Arg1)
                If (CondRefOf (\_SB.NONE))
                {
                    \_SB.NONE ()
                }
                Return (Local0)
            }
            Device (LPCB)
            {
                Name (_ADR, 0x001F0000)
                Method (_INI, 0, NotSerialized)
                {
                    ^^HELP (One, 0x02)
                    Notify (^^^LNKA, 0x00)
                    Local1 = Zero
                    While ((Local1 < 0x03))
                    {
                        Local1++
                    }
                }
            }
        }
        Device (LNKA)
        {
            Name (_HID, EisaId ("PNP0C0F"))
            Name (_UID, "A")
        }
        PowerResource (PUB0, 0x00, 0x0000)
        {
            Method (_STA, 0, NotSerialized) { Return (One) }
            Method (_ON, 0, NotSerialized) {}
            Method (_OFF, 0, NotSerialized) {}
        }
    }

    Scope (\_TZ)
    {
        ThermalZone (TZ00)
        {
            Method (_TMP, 0, Serialized) { Return (0x0BB8) }
        }
    }

    Method (\_PTS, 1, NotSerialized)
    {
        \_SB.PCI0.HELP (Arg0, 0xFF)
        MISS (Arg0)
    }
}
