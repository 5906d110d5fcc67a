DefinitionBlock ("", "DSDT", 2, "FWCHK", "SLP", 1)
{
    Name (_S0, Package () { Zero, Zero, Zero, Zero })
    Name (_S3, Package () { 0x05, 0x05, Zero, Zero })
    Name (_S4, "six")
    Name (_S5, Package () { 0x09 })
}
