// Package uefiboot checks the UEFI boot variables: BootOrder and the
// Boot#### load options it lists (attributes, description, a device path
// that decodes and ends), BootCurrent, and the attributes of the
// architectural variables the UEFI specification defines.
package uefiboot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fwcheck/fwcheck/efi"
	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
)

const (
	bootSpec  = "UEFI 2.10 §3.1.1 (Boot Manager), §3.1.3 (Load Options)"
	varSpec   = "UEFI 2.10 §3.3 Table 3.1 (Global Variables)"
	dpathSpec = "UEFI 2.10 §10.3 (Device Path Nodes)"
)

var (
	labelOrderMissing = tests.NewLabel("UEFIBootOrderMissingOption", tests.High, bootSpec,
		"BootOrder lists a boot option for which no Boot#### variable exists. The boot manager skips "+
			"it, and OS installers that edit BootOrder can be confused by it. Remove stale entries "+
			"from BootOrder when an option is deleted.")
	labelOrderDup = tests.NewLabel("UEFIBootOrderDuplicate", tests.Medium, bootSpec,
		"BootOrder lists the same boot option more than once. Each option should appear once; "+
			"de-duplicate the list when options are added or moved.")
	labelOrderMalformed = tests.NewLabel("UEFIBootOrderMalformed", tests.High, bootSpec,
		"BootOrder is not an array of 16-bit option numbers (its size is odd, or it is empty). "+
			"Write it as a UINT16 array.")
	labelOptionMalformed = tests.NewLabel("UEFILoadOptionMalformed", tests.High, bootSpec+"; "+dpathSpec,
		"A Boot#### load option does not decode: its description is not terminated, its "+
			"FilePathListLength does not fit, or its device path has a node with a bad length or no "+
			"end node. Boot managers and OS tools (efibootmgr) cannot use it. Write complete "+
			"EFI_LOAD_OPTION structures ending the device path with an End Entire node.")
	labelCurrentNotInOrder = tests.NewLabel("UEFIBootCurrentNotInOrder", tests.Low, bootSpec,
		"The option the machine booted from (BootCurrent) is not in BootOrder and was not a "+
			"one-time BootNext boot. OS installers expect the running option in BootOrder; add it, "+
			"or boot from a listed option.")
	labelCurrentMissing = tests.NewLabel("UEFIBootCurrentMissingOption", tests.Medium, bootSpec,
		"BootCurrent names an option for which no Boot#### variable exists. Keep the option's "+
			"variable while it is the one that booted.")
	labelAttributes = tests.NewLabel("UEFIVariableAttributes", tests.Medium, varSpec,
		"An architectural variable carries attributes other than the ones the UEFI specification "+
			"gives it (for instance BootOrder must be NV+BS+RT, SecureBoot BS+RT and not "+
			"non-volatile). OS tools that rewrite the variable with the specified attributes fail, "+
			"and a volatile variable that is stored non-volatile can be forged across reboots. Create "+
			"the variable with the attributes Table 3.1 lists.")
	labelVarMalformed = tests.NewLabel("UEFIVariableMalformed", tests.Medium, varSpec,
		"A file in efivarfs is not a well-formed variable (shorter than its attribute word, or "+
			"named without a vendor GUID). Check the variable store for corruption.")
)

// Check is the uefi-boot check.
var Check = &tests.Check{
	ID:       "uefi-boot",
	Title:    "UEFI boot variables: BootOrder, Boot#### load options, BootCurrent, variable attributes",
	Category: tests.UEFI,
	Inputs:   []input.Decl{input.EFIVars},
	Spec:     "UEFI 2.10 §3",
	Labels: []*tests.Label{labelOrderMissing, labelOrderDup, labelOrderMalformed, labelOptionMalformed,
		labelCurrentNotInOrder, labelCurrentMissing, labelAttributes, labelVarMalformed},
	Run: run,
}

const (
	nv = efi.NonVolatile
	bs = efi.BootserviceAccess
	rt = efi.RuntimeAccess
	at = efi.TimeBasedAuthenticatedWriteAccess
)

// archAttrs are the attributes Table 3.1 gives the global variables
// checked here (the NV, BS, RT and AT bits; others are compared too).
var archAttrs = map[string]efi.Attributes{
	"BootOrder": nv | bs | rt, "BootNext": nv | bs | rt, "Timeout": nv | bs | rt,
	"BootCurrent": bs | rt, "BootOptionSupport": bs | rt, "OsIndicationsSupported": bs | rt,
	"OsIndications": nv | bs | rt, "PlatformLang": nv | bs | rt, "PlatformLangCodes": bs | rt,
	"ConIn": nv | bs | rt, "ConOut": nv | bs | rt, "ErrOut": nv | bs | rt,
	"SecureBoot": bs | rt, "SetupMode": bs | rt, "AuditMode": bs | rt, "DeployedMode": bs | rt,
	"PK": nv | bs | rt | at, "KEK": nv | bs | rt | at,
	"SignatureSupport": bs | rt, "VendorKeys": bs | rt,
}

// BootName is the variable name of boot option n ("Boot000A").
func BootName(n uint16) string { return fmt.Sprintf("Boot%04X", n) }

func run(p *tests.Pass) error {
	st := tests.Input(p, input.EFIVars)
	if !st.UEFI {
		p.NotApplicable("the machine did not boot through UEFI (no /sys/firmware/efi)")
		return nil
	}
	vars := st.Vars
	for _, pr := range vars.Problems {
		p.Fail(labelVarMalformed, "%s", pr)
	}
	if len(vars.Unreadable) > 0 {
		p.NotChecked(fmt.Sprintf("%d variables (%s)", len(vars.Unreadable), vars.Unreadable[0]),
			"they could not be read", "run as root")
	}
	checkAttributes(p, vars)

	boBefore := p.Failures()
	bo := vars.Global("BootOrder")
	var order []uint16
	orderOK := false
	if bo == nil {
		p.Info(nil, "no BootOrder variable: the boot manager uses its default boot behaviour (removable media paths)")
	} else {
		var err error
		order, err = efi.Uint16s(bo.Data)
		switch {
		case err != nil:
			p.Fail(labelOrderMalformed, "BootOrder: %v", err)
		case len(order) == 0:
			p.Fail(labelOrderMalformed, "BootOrder is empty")
		default:
			orderOK = true
		}
	}
	seen := map[uint16]bool{}
	for _, n := range order {
		if seen[n] {
			p.Fail(labelOrderDup, "BootOrder lists %s more than once (BootOrder %s)", BootName(n), orderText(order))
			continue
		}
		seen[n] = true
		if vars.Global(BootName(n)) == nil {
			hint := ""
			if vars.Global(fmt.Sprintf("Boot%04x", n)) != nil {
				hint = fmt.Sprintf(" (there is a %s: the hex digits must be upper case)", fmt.Sprintf("Boot%04x", n))
			}
			p.Fail(labelOrderMissing, "BootOrder lists %s, but there is no %s variable%s", BootName(n), BootName(n), hint)
		}
	}
	if bo != nil && p.Failures() == boBefore {
		p.Passed("BootOrder %s: %d options, each with its Boot#### variable, none listed twice", orderText(order), len(order))
	}

	// Every Boot#### variable, listed or not, must decode.
	decoded := 0
	for _, v := range vars.List {
		if v.GUID != efi.GlobalVariable || !isBootOption(v.Name) {
			continue
		}
		o, err := efi.ParseLoadOption(v.Data)
		if err != nil {
			desc := ""
			if o != nil {
				desc = fmt.Sprintf(" %q", o.Description)
			}
			p.Fail(labelOptionMalformed, "%s%s: %v", v.Name, desc, err)
			continue
		}
		decoded++
		state := "active"
		if !o.Active() {
			state = "inactive"
		}
		if o.Attributes&efi.LoadOptionHidden != 0 {
			state += ", hidden"
		}
		path := o.FilePath.String()
		for _, m := range o.More {
			path += " + " + m.String()
		}
		p.Info(nil, "%s %q (%s): %s", v.Name, o.Description, state, path)
	}
	if decoded > 0 {
		p.Passed("%d Boot#### load options decode, each device path ending in an End Entire node", decoded)
	}

	if bc := vars.Global("BootCurrent"); bc != nil {
		cur, err := efi.Uint16s(bc.Data)
		switch {
		case err != nil || len(cur) != 1:
			p.Fail(labelVarMalformed, "BootCurrent is %d bytes, expected 2", len(bc.Data))
		case vars.Global(BootName(cur[0])) == nil:
			p.Fail(labelCurrentMissing, "BootCurrent is %s, but there is no %s variable", BootName(cur[0]), BootName(cur[0]))
		case orderOK && !slices.Contains(order, cur[0]):
			p.Fail(labelCurrentNotInOrder, "BootCurrent %s is not in BootOrder %s", BootName(cur[0]), orderText(order))
		default:
			p.Passed("BootCurrent %s has its variable%s", BootName(cur[0]), map[bool]string{true: " and is in BootOrder"}[orderOK])
		}
	} else {
		p.Info(nil, "no BootCurrent variable: the OS was not started through a boot option")
	}
	return nil
}

func isBootOption(name string) bool {
	if len(name) != 8 || !strings.HasPrefix(name, "Boot") {
		return false
	}
	for _, c := range name[4:] {
		if !strings.ContainsRune("0123456789ABCDEFabcdef", c) {
			return false
		}
	}
	return true
}

func orderText(order []uint16) string {
	var parts []string
	for _, n := range order {
		parts = append(parts, fmt.Sprintf("%04X", n))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// checkAttributes compares the attributes of the architectural variables
// present with Table 3.1, and of the load options (NV+BS+RT).
func checkAttributes(p *tests.Pass, vars *efi.Vars) {
	const mask = nv | bs | rt | efi.HardwareErrorRecord | efi.AuthenticatedWriteAccess | at
	n, before := 0, p.Failures()
	for _, v := range vars.List {
		var want efi.Attributes
		switch {
		case v.GUID == efi.GlobalVariable && isBootOption(v.Name):
			want = nv | bs | rt
		case v.GUID == efi.GlobalVariable:
			w, ok := archAttrs[v.Name]
			if !ok {
				continue
			}
			want = w
		case v.GUID == efi.ImageSecurityDatabase && (v.Name == "db" || v.Name == "dbx" || v.Name == "dbt" || v.Name == "dbr"):
			want = nv | bs | rt | at
		default:
			continue
		}
		n++
		if got := v.Attributes & mask; got != want {
			p.Fail(labelAttributes, "%s has attributes %s, expected %s", v.Name, v.Attributes, want)
		}
	}
	if n > 0 && p.Failures() == before {
		p.Passed("%d architectural variables carry the attributes the specification gives them", n)
	}
}
