// Package tpmeventlog checks the TPM event log the firmware hands the OS:
// it parses it (tpm.Parse), replays it bank by bank and compares each
// replayed PCR with the value the TPM holds (read through go-tpm, recorded
// in snapshots so the replay also runs offline). A PCR that does not replay
// means the firmware measured something it did not log, or logged what it
// did not measure, and remote attestation and sealed secrets (BitLocker,
// systemd-cryptenroll --tpm2-pcrs) cannot be trusted to work.
package tpmeventlog

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fwcheck/fwcheck/input"
	"github.com/fwcheck/fwcheck/tests"
	"github.com/fwcheck/fwcheck/tpm"
)

const (
	pfpSpec = "TCG PC Client Platform Firmware Profile 1.05 §10 (Event Logging)"
	sepSpec = "TCG PC Client Platform Firmware Profile 1.05 §3.3.4.1 (Separators)"
)

var (
	labelMismatch = tests.NewLabel("TPMPCRReplayMismatch", tests.High, pfpSpec,
		"Replaying the event log does not give the value the TPM holds in this PCR bank: the "+
			"firmware extended the PCR with something it did not log, logged a digest it did not "+
			"extend, or extended only some banks. Attestation fails and secrets sealed to this PCR "+
			"cannot be predicted. Log every extend, with a digest for every active bank, in order.")
	labelTruncated = tests.NewLabel("TPMEventLogTruncated", tests.High, pfpSpec,
		"The event log ends inside an event: the log area the firmware reserved (the TPM2 table's "+
			"LASA/LAML or the EFI configuration table) is too small for what it logged, or its "+
			"length is wrong. Later events are lost and the PCRs cannot be replayed. Reserve a "+
			"larger log area and report its real length.")
	labelMalformed = tests.NewLabel("TPMEventLogMalformed", tests.High, pfpSpec,
		"The event log cannot be parsed as a TCG event log (the header or the Spec ID event is "+
			"wrong, or an event names a PCR that does not exist). Write the crypto-agile format the "+
			"PC Client profile defines.")
	labelUnknown = tests.NewLabel("TPMEventLogUnknownEvent", tests.Low, pfpSpec,
		"The log holds events of a type the PC Client profile does not define. Verifiers that "+
			"check each event reject the log; use a defined event type (EV_EFI_ACTION, "+
			"EV_NONHOST_INFO, EV_EVENT_TAG for vendor data).")
	labelNoSeparator = tests.NewLabel("TPMEventLogNoSeparator", tests.Medium, sepSpec,
		"A PCR among 0-7 has no EV_SEPARATOR event: the firmware must extend a separator into "+
			"each of PCRs 0-7 before handing over to the boot loader, so that pre-OS and OS "+
			"measurements cannot be confused. Measure the separators.")
	labelNoSHA256 = tests.NewLabel("TPMEventLogNoSHA256", tests.Medium, pfpSpec,
		"The event log has no SHA-256 digests: only SHA-1, which is broken for collisions, backs "+
			"the measurements. Use the crypto-agile log format with a SHA-256 bank.")
	labelBanks = tests.NewLabel("TPMEventLogBankMismatch", tests.Medium, pfpSpec,
		"The event log and the TPM disagree on which PCR banks exist: the firmware must log a "+
			"digest for every bank the TPM has active, and the log must not declare banks the TPM "+
			"does not have. A bank left unlogged cannot be verified.")
	labelData = tests.NewLabel("TPMEventLogDataMismatch", tests.Medium, pfpSpec,
		"An event's digest is not the hash of its data, though the profile defines it so for this "+
			"event type (EV_SEPARATOR, EV_EFI_ACTION, EV_EFI_VARIABLE_DRIVER_CONFIG and others). "+
			"Verifiers that read the machine's state from the log (the Secure Boot variables, the "+
			"separators) cannot trust what it says. Hash exactly the event data that is logged.")
	labelMissingDigest = tests.NewLabel("TPMEventLogMissingDigest", tests.Medium, pfpSpec,
		"Events lack a digest for a bank that the log's header declares; those events cannot be "+
			"replayed in that bank. Give each event a digest for every declared algorithm.")
)

// Check is the tpm-eventlog check.
var Check = &tests.Check{
	ID:       "tpm-eventlog",
	Title:    "TPM event log: parse, replay per PCR bank against the TPM's PCRs",
	Category: tests.TPM,
	Inputs:   []input.Decl{input.TPMEventLog},
	Optional: []input.Decl{input.PCRs},
	Spec:     pfpSpec,
	Labels: []*tests.Label{labelMismatch, labelTruncated, labelMalformed, labelUnknown, labelNoSeparator,
		labelNoSHA256, labelBanks, labelMissingDigest, labelData},
	Run: run,
}

// firmwarePCRs are the PCRs the firmware alone extends before the OS; the
// OS and its boot loaders go on extending the others (IMA, systemd), in
// ways this log does not record.
const firmwarePCRs = 8

func run(p *tests.Pass) error {
	tl := tests.Input(p, input.TPMEventLog)
	switch {
	case !tl.TPM:
		p.NotApplicable("the machine has no TPM (no /sys/class/tpm/tpm0)")
		return nil
	case tl.Raw == nil:
		p.NotChecked("the event log", tl.Missing, "mount securityfs on /sys/kernel/security")
		return nil
	case tl.ParseErr != "":
		p.Fail(labelMalformed, "%s", tl.ParseErr)
		return nil
	}
	l := tl.Log
	format := "SHA-1 (TCG 1.2) format"
	if l.CryptoAgile {
		format = "crypto-agile format, spec " + l.SpecVersion
	}
	var algNames []string
	for _, a := range l.Algs {
		algNames = append(algNames, a.String())
	}
	p.Info(nil, "%d events in %d bytes, %s, banks %s", len(l.Events), len(tl.Raw), format, strings.Join(algNames, ", "))

	if l.Truncated {
		p.Fail(labelTruncated, "%s; %d events before it", l.Problems[0], len(l.Events))
	} else {
		for _, pr := range l.Problems {
			p.Fail(labelMalformed, "%s", pr)
		}
	}
	checkEvents(p, l)

	if !slices.Contains(l.Algs, tpm.SHA256) {
		p.Fail(labelNoSHA256, "the log's banks are %s", strings.Join(algNames, ", "))
	}

	pcrs, err := tests.Load(p, input.PCRs)
	switch {
	case err != nil:
		p.NotChecked("the replay against the TPM's PCRs", err.Error(), p.Machine().Remedy(err, "run as root, with /dev/tpmrm0"))
		return nil
	case pcrs.Error != "":
		p.NotChecked("the replay against the TPM's PCRs", pcrs.Error, "run as root on a machine with a TPM 2.0 and its kernel driver")
		return nil
	}
	tpmAlgs := pcrs.Algs()
	var tpmNames []string
	for _, a := range tpmAlgs {
		tpmNames = append(tpmNames, a.String())
	}
	banksBefore := p.Failures()
	for _, a := range tpmAlgs {
		if !slices.Contains(l.Algs, a) {
			p.Fail(labelBanks, "the TPM has a %s bank, but the log has no %s digests (log banks %s)", a, a, strings.Join(algNames, ", "))
		}
	}
	for _, a := range l.Algs {
		if !slices.Contains(tpmAlgs, a) {
			p.Fail(labelBanks, "the log declares a %s bank, but the TPM has none (TPM banks %s)", a, strings.Join(tpmNames, ", "))
		}
	}
	if p.Failures() == banksBefore {
		p.Passed("the log and the TPM have the same banks: %s", strings.Join(tpmNames, ", "))
	}
	for _, a := range l.Algs {
		if !slices.Contains(tpmAlgs, a) {
			continue
		}
		replayBank(p, l, pcrs, a)
	}
	return nil
}

// checkEvents reports unknown event types, impossible PCR indices, and
// PCRs 0-7 without a separator.
func checkEvents(p *tests.Pass, l *tpm.Log) {
	unknown := map[uint32]int{}
	sep := map[uint32]bool{}
	checked, before := 0, p.Failures()
	for _, e := range l.Events {
		if !tpm.KnownEventType(e.Type) {
			unknown[e.Type]++
		}
		if e.PCR >= tpm.NumPCRs && e.Type != tpm.EvNoAction {
			p.Fail(labelMalformed, "event %d (%s) extends PCR %d; a PC Client TPM has PCRs 0-23", e.Seq, tpm.EventTypeName(e.Type), e.PCR)
		}
		if e.Type == tpm.EvSeparator {
			sep[e.PCR] = true
		}
		if tpm.DataDigested(e.Type) {
			checked++
			for _, a := range e.DataMismatch() {
				p.Fail(labelData, "event %d (%s, PCR %d): its %s digest %x is not the hash of its %d bytes of data",
					e.Seq, tpm.EventTypeName(e.Type), e.PCR, a, e.Digests[a], len(e.Data))
			}
		}
	}
	types := make([]uint32, 0, len(unknown))
	for t := range unknown {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		p.Fail(labelUnknown, "%d events of undefined type 0x%08x", unknown[t], t)
	}
	if checked > 0 && p.Failures() == before {
		p.Passed("%d events whose digest is the hash of their data match it", checked)
	}
	if l.Truncated {
		return // the separators may be in the part that was lost
	}
	var missing []string
	for i := uint32(0); i < firmwarePCRs; i++ {
		if !sep[i] {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		p.Fail(labelNoSeparator, "no EV_SEPARATOR in PCR %s", strings.Join(missing, ", "))
	} else {
		p.Passed("every PCR 0-7 has its EV_SEPARATOR")
	}
}

func replayBank(p *tests.Pass, l *tpm.Log, pcrs *tpm.PCRs, a tpm.Alg) {
	have, err := pcrs.Bank(a)
	if err != nil {
		p.NotChecked(fmt.Sprintf("the %s bank", a), err.Error(), "capture the PCRs again")
		return
	}
	replayed, missing, err := l.Replay(a)
	if err != nil {
		p.NotChecked(fmt.Sprintf("the %s bank", a), err.Error(), "")
		return
	}
	if len(missing) > 0 {
		p.Fail(labelMissingDigest, "%d events have no %s digest (first: event %d)", len(missing), a, missing[0])
	}
	var idx []uint32
	for i := range replayed {
		idx = append(idx, i)
	}
	for i := uint32(0); i < firmwarePCRs; i++ {
		if _, ok := replayed[i]; !ok {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(i, j int) bool { return idx[i] < idx[j] })
	var ok, osPCRs []string
	before := p.Failures()
	for _, i := range idx {
		tv, inTPM := have[i]
		if !inTPM {
			continue
		}
		rv, logged := replayed[i]
		if !logged {
			rv = make([]byte, len(tv))
		}
		if bytes.Equal(rv, tv) {
			ok = append(ok, fmt.Sprint(i))
			continue
		}
		if i >= firmwarePCRs {
			// The OS goes on extending these after the firmware's log ends.
			osPCRs = append(osPCRs, fmt.Sprint(i))
			continue
		}
		if !logged {
			p.Fail(labelMismatch, "PCR %d, %s bank: the log has no event for it, but the TPM holds %x", i, a, tv)
		} else {
			p.Fail(labelMismatch, "PCR %d, %s bank: the log replays to %x, the TPM holds %x", i, a, rv, tv)
		}
	}
	if len(osPCRs) > 0 {
		p.Info(nil, "%s bank: PCR %s differ from the log's replay; not judged, as the OS extends PCRs 8 and above after boot",
			a, strings.Join(osPCRs, ", "))
	}
	if p.Failures() == before && len(ok) > 0 {
		p.Passed("%s bank: PCR %s replay to the TPM's values", a, strings.Join(ok, ", "))
	}
}
