DefinitionBlock ("", "DSDT", 2, "FWCHK", "RES", 1)
{
    Scope (\_SB)
    {
        Device (MEM0) { Name (_HID, "PNP0C02") Name (_CRS, ResourceTemplate () { Memory32Fixed (ReadWrite, 0x00100000, 0x00010000) }) }
        Device (MEM1) { Name (_HID, "PNP0C01") Name (_UID, 1) Name (_CRS, ResourceTemplate () { Memory32Fixed (ReadWrite, 0xFED10000, 0x00001000) }) }
        Device (BAD0) { Name (_HID, "PNP0C01") Name (_UID, 2) Name (_CRS, Buffer () { 0x86, 0x09, 0x00, 0x01 }) }
    }
}
