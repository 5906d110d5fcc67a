// The evaluation budget's cases (budget_test.go): loops that allocate,
// polling a region field, and methods that end.
DefinitionBlock ("", "DSDT", 2, "FWCHK", "BUDGET", 1)
{
    Method (BUFL, 0, NotSerialized)
    {
        While (One)
        {
            Local0 = Buffer (0x00100000) {}
        }
    }

    Method (HEXL, 0, NotSerialized)
    {
        Local0 = Buffer (0x00010000) {}
        While (One)
        {
            Local1 = ToHexString (Local0)
        }
    }

    Name (PKG, Package (0x00010000) {})
    Method (PKGL, 0, NotSerialized)
    {
        Local0 = Buffer (0x00100000) {}
        Local1 = Zero
        While ((Local1 < 0x00010000))
        {
            PKG [Local1] = Local0
            Local1++
        }
    }

    OperationRegion (ECR, EmbeddedControl, Zero, 0x10)
    Field (ECR, ByteAcc, NoLock, Preserve)
    {
        STS,   8
    }

    Method (POLL, 0, NotSerialized)
    {
        While ((STS == Zero)) {}
        Return (One)
    }

    Method (SPIN, 0, NotSerialized)
    {
        While (One) {}
    }

    Method (FAST, 0, NotSerialized)
    {
        Return (0x2A)
    }
}
