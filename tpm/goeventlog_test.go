package tpm

import (
	"fmt"
	"testing"

	"github.com/google/go-eventlog/register"
	"github.com/google/go-eventlog/tcg"
	eltestdata "github.com/google/go-eventlog/testdata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realLogs are event logs of real machines and cloud VMs that go-eventlog
// ships as test data.
var realLogs = map[string][]byte{
	"arch-linux-workstation":     eltestdata.ArchLinuxWorkstationEventLog,
	"debian-10":                  eltestdata.Debian10EventLog,
	"glinux-alex":                eltestdata.GlinuxAlexEventLog,
	"rhel8-uefi":                 eltestdata.Rhel8EventLog,
	"ubuntu-1804-amd-sev":        eltestdata.Ubuntu1804AmdSevEventLog,
	"ubuntu-2104-no-dbx":         eltestdata.Ubuntu2104NoDbxEventLog,
	"ubuntu-2104-no-secure-boot": eltestdata.Ubuntu2104NoSecureBootEventLog,
	"ubuntu-2404-amd-sevsnp":     eltestdata.Ubuntu2404AmdSevSnpEventLog,
	"cos-85-amd-sev":             eltestdata.Cos85AmdSevEventLog,
	"cos-93-amd-sev":             eltestdata.Cos93AmdSevEventLog,
	"cos-101-amd-sev":            eltestdata.Cos101AmdSevEventLog,
}

// TestAgainstGoEventlog parses real logs with this package and with
// go-eventlog: both must see the same events (PCR, type, data, digest per
// bank), and the PCR values this package's replay computes must verify
// under go-eventlog's own replay.
func TestAgainstGoEventlog(t *testing.T) {
	for name, raw := range realLogs {
		t.Run(name, func(t *testing.T) {
			ours, err := Parse(raw)
			require.NoError(t, err)
			assert.False(t, ours.Truncated, ours.Problems)
			theirs, err := tcg.ParseEventLog(raw, tcg.ParseOpts{AllowPadding: true})
			require.NoError(t, err)
			for _, ra := range theirs.Algs {
				a := Alg(ra.GoTPMAlg())
				evs := theirs.Events(ra)
				require.Len(t, ours.Events, len(evs), "events in the %s view", a)
				for i, e := range evs {
					o := ours.Events[i]
					assert.Equal(t, uint32(e.Index), o.PCR, "event %d", o.Seq)
					assert.Equal(t, uint32(e.Type), o.Type, "event %d", o.Seq)
					assert.Equal(t, e.Data, o.Data, "event %d", o.Seq)
					assert.Equal(t, fmt.Sprintf("%x", e.Digest), fmt.Sprintf("%x", o.Digests[a]), "event %d %s digest", o.Seq, a)
				}
				replayed, missing, err := ours.Replay(a)
				require.NoError(t, err)
				if len(missing) > 0 {
					continue // go-eventlog cannot replay this bank either
				}
				var mrs []register.MR
				for pcr, v := range replayed {
					mrs = append(mrs, register.PCR{Index: int(pcr), Digest: v, DigestAlg: ra.CryptoHash()})
				}
				_, err = theirs.Verify(mrs)
				assert.NoError(t, err, "go-eventlog verifies our %s replay", a)
				t.Logf("%s: %d events, %s bank replays %d PCRs", name, len(ours.Events), a, len(replayed))
			}
		})
	}
}

// TestDataDigests: in every real log, each event whose digest is defined as
// the hash of its data has that digest in every bank.
func TestDataDigests(t *testing.T) {
	n := 0
	for name, raw := range realLogs {
		l, err := Parse(raw)
		require.NoError(t, err)
		for _, e := range l.Events {
			if DataDigested(e.Type) {
				n++
				assert.Empty(t, e.DataMismatch(), "%s event %d (%s)", name, e.Seq, EventTypeName(e.Type))
			}
		}
	}
	t.Logf("%d events checked", n)
	l, err := Parse(newLog().event(0, EvSeparator, []byte{0, 0, 0, 0}).bytes())
	require.NoError(t, err)
	l.Events[0].Data[0] = 1
	assert.Equal(t, []Alg{SHA1, SHA256}, l.Events[0].DataMismatch())
}
