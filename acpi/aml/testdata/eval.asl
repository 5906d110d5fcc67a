DefinitionBlock ("", "DSDT", 2, "FWCHK", "EVAL", 1)
{
    OperationRegion (GNVS, SystemMemory, 0x7FFF0000, 0x10)
    Field (GNVS, AnyAcc, Lock, Preserve)
    {
        OSYS, 16,
        FLG0, 8
    }
    Name (CNT0, 5)
    Name (STR0, "abc")
    Name (PKG0, Package () { 1, "two", Buffer () { 3 }, Package () { 4 } })
    Name (HPTB, 0xFED00000)
    Device (HPET)
    {
        Name (_HID, EisaId ("PNP0103"))
        Name (_UID, Zero)
        Name (CRS0, ResourceTemplate ()
        {
            IRQNoFlags () {0}
            IRQNoFlags () {8}
            Memory32Fixed (ReadOnly, 0x00000000, 0x00000400, _Y00)
        })
        Method (_STA, 0, NotSerialized)
        {
            If (_OSI ("Windows 2009")) { Return (0x0F) }
            Return (Zero)
        }
        Method (_CRS, 0, Serialized)
        {
            CreateDWordField (CRS0, \HPET._Y00._BAS, HPT0)
            HPT0 = HPTB
            Return (CRS0)
        }
    }
    Device (DEV1)
    {
        Name (_HID, "ACPI0003")
        Method (_UID, 0, NotSerialized) { Return (ToInteger ("0x1F")) }
        Method (_STA, 0, NotSerialized)
        {
            If (FLG0) { Return (0x0F) }
            Return (0x0B)
        }
    }
    Method (ARIT, 2, NotSerialized)
    {
        Local0 = (Arg0 + Arg1)
        Local1 = (Local0 * 3)
        Local2 = (Local1 - 1)
        Divide (Local2, 4, Local3, Local4)
        Local5 = ((Local4 << 4) | Local3)
        Return (Local5)
    }
    Method (LOOP, 1, NotSerialized)
    {
        Local0 = Zero
        Local1 = Zero
        While ((Local0 < Arg0))
        {
            Local0++
            If ((Local0 == 3)) { Continue }
            Local1 += Local0
            If ((Local0 >= 10)) { Break }
        }
        Return (Local1)
    }
    Method (SPIN, 0, NotSerialized)
    {
        While (One) { Noop }
    }
    Method (RECU, 1, NotSerialized)
    {
        Return (RECU (Arg0))
    }
    Method (STRS, 0, NotSerialized)
    {
        Local0 = Concatenate (STR0, "def")
        Local1 = ToHexString (0x1A)
        Local2 = ToDecimalString (42)
        Local3 = Concatenate (Local0, Local2)
        Return (Concatenate (Local3, Local1))
    }
    Method (PKGS, 0, Serialized)
    {
        Local0 = DerefOf (PKG0 [1])
        Local1 = SizeOf (PKG0)
        PKG0 [0] = 0x10
        Local2 = DerefOf (PKG0 [0])
        Local3 = DerefOf (DerefOf (PKG0 [3]) [0])
        Name (RES0, Package (5) {})
        RES0 [0] = Local0
        RES0 [1] = Local1
        RES0 [2] = Local2
        RES0 [3] = Local3
        RES0 [4] = Match (PKG0, MEQ, 0x10, MTR, 0, 0)
        Return (RES0)
    }
    Method (BUFS, 0, NotSerialized)
    {
        Local0 = Buffer (4) { 1, 2 }
        CreateWordField (Local0, 1, WRD0)
        WRD0 = 0xBEEF
        CreateBitField (Local0, 31, BIT0)
        BIT0 = One
        Local1 = ToBuffer (0x0102)
        Local2 = Mid (Local1, 0, 2)
        Return (Concatenate (Local0, Local2))
    }
    Method (RDHW, 0, NotSerialized)
    {
        Return (OSYS)
    }
    Method (WRHW, 0, NotSerialized)
    {
        OSYS = 0x07DF
        Return (One)
    }
    Method (TIMR, 0, NotSerialized)
    {
        Return (Timer)
    }
    Method (LNXO, 0, NotSerialized)
    {
        If (_OSI ("Linux")) { Return (One) }
        Return (Zero)
    }
    Method (UNIN, 0, Serialized)
    {
        Name (EPK0, Package (2) { One })
        Return (DerefOf (EPK0 [1]))
    }
    Method (DIV0, 1, NotSerialized)
    {
        Return ((One / Arg0))
    }
    Method (CONV, 0, Serialized)
    {
        Local0 = Buffer () { 0x34, 0x12 }
        Local1 = (Local0 + 1)
        Local2 = ("0x10" + 1)
        Local3 = ToInteger ("123")
        Local4 = FromBCD (0x1234)
        Local5 = ToBCD (99)
        Name (RES1, Package (8) {})
        RES1 [0] = Local1
        RES1 [1] = Local2
        RES1 [2] = Local3
        RES1 [3] = Local4
        RES1 [4] = Local5
        RES1 [5] = ObjectType (STR0)
        RES1 [6] = (STR0 == "abc")
        RES1 [7] = (0x10 > 0x20)
        Return (RES1)
    }
    Method (CRT2, 0, NotSerialized)
    {
        Local0 = ResourceTemplate () { IO (Decode16, 0x60, 0x60, 0x01, 0x01) }
        Local1 = ResourceTemplate () { Interrupt (ResourceConsumer, Level, ActiveLow, Shared, ,, ) {0x11, 0x12} }
        Return (ConcatenateResTemplate (Local0, Local1))
    }
    Name (RT2, ResourceTemplate ()
    {
        IO (Decode16, 0x0070, 0x0070, 0x01, 0x08)
        FixedIO (0x0080, 0x10)
        DMA (Compatibility, NotBusMaster, Transfer8_16, ) {4}
        Memory32 (ReadWrite, 0x10000000, 0x1FFFF000, 0x1000, 0x2000)
        WordBusNumber (ResourceProducer, MinFixed, MaxFixed, PosDecode, 0x0000, 0x0000, 0x00FF, 0x0000, 0x0100,,,)
        DWordIO (ResourceProducer, MinFixed, MaxFixed, PosDecode, EntireRange, 0x0000, 0x0D00, 0xFFFF, 0x0000, 0xF300,,,, TypeStatic, DenseTranslation)
        QWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed, Cacheable, ReadWrite, 0x0, 0x100000000, 0x1FFFFFFFF, 0x0, 0x100000000,,,, AddressRangeMemory, TypeStatic)
        Interrupt (ResourceConsumer, Edge, ActiveHigh, Exclusive, 0x05, "\\_SB.PCI0", ) {0x20}
        GpioInt (Edge, ActiveLow, ExclusiveAndWake, PullUp, 0x0000, "\\_SB.GPO0", 0x00, ResourceConsumer, ,) {0x0012}
        GpioIo (Exclusive, PullDefault, 0x0000, 0x0000, IoRestrictionOutputOnly, "\\_SB.GPO1", 0x00, ResourceConsumer, ,) {0x0005, 0x0006}
        I2cSerialBusV2 (0x0015, ControllerInitiated, 0x00061A80, AddressingMode7Bit, "\\_SB.I2C1", 0x00, ResourceConsumer, , Exclusive,)
        SpiSerialBusV2 (0x0001, PolarityLow, FourWireMode, 0x08, ControllerInitiated, 0x00989680, ClockPolarityLow, ClockPhaseFirst, "\\_SB.SPI0", 0x00, ResourceConsumer, , Exclusive,)
        UartSerialBusV2 (0x0001C200, DataBitsEight, StopBitsOne, 0xC0, LittleEndian, ParityTypeNone, FlowControlHardware, 0x0020, 0x0020, "\\_SB.URT0", 0x00, ResourceConsumer, , Exclusive,)
        FixedDMA (0x0018, 0x0004, Width32bit, )
        ExtendedMemory (ResourceConsumer, PosDecode, MinFixed, MaxFixed, NonCacheable, ReadWrite, 0x0, 0xFE000000, 0xFE000FFF, 0x0, 0x1000, 0x0, , AddressRangeMemory, TypeStatic)
    })
}
