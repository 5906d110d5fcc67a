package tablecheck

import (
	"fmt"
	"sort"

	"github.com/fwcheck/fwcheck/acpi"
	"github.com/fwcheck/fwcheck/tests"
)

// DistanceLabels are the labels of a locality distance matrix (the SLIT's
// and AMD's CDIT, which has the SLIT's layout and meaning).
type DistanceLabels struct {
	// Length: the table does not hold its N×N matrix, or holds more.
	Length *tests.Label
	// Self: a diagonal entry (a locality's distance to itself) is not 10.
	Self *tests.Label
	// Reserved: an entry between two localities is one of the reserved
	// values 0-9.
	Reserved *tests.Label
	// Outside: a proximity domain of the affinity table (SRAT, CRAT) has
	// no row in the matrix.
	Outside *tests.Label
}

// maxListed bounds the matrix positions one finding lists.
const maxListed = 8

// Distances checks a distance matrix. domains are the proximity domains
// the affinity table named affinity uses (nil when the run has none).
// Asymmetric distances are reported as information: the specification
// stores each distance twice so that the two directions may differ.
func Distances(r *T, d *acpi.Distances, l DistanceLabels, domains map[uint32]bool, affinity string) {
	if d.Missing > 0 || d.Trailing > 0 {
		r.Fail(l.Length, "%d localities need %s matrix bytes; the table is %d bytes (%d missing, %d after the matrix)",
			d.N, square(d.N), d.Header.Length, d.Missing, d.Trailing)
	}
	if d.Matrix != nil {
		var self, reserved []string
		nself, nres, asym := 0, 0, 0
		for i := range d.N {
			for j := range d.N {
				v := d.At(i, j)
				switch {
				case i == j && v != 10:
					if nself++; nself <= maxListed {
						self = append(self, fmt.Sprintf("[%d][%d]=%d", i, j, v))
					}
				case i != j && v < 10:
					if nres++; nres <= maxListed {
						reserved = append(reserved, fmt.Sprintf("[%d][%d]=%d", i, j, v))
					}
				case i < j && v != d.At(j, i):
					asym++
				}
			}
		}
		if nself > 0 {
			r.Fail(l.Self, "%d diagonal entries are not 10: %s%s", nself, join(self), more(nself))
		}
		if nres > 0 {
			r.Fail(l.Reserved, "%d entries between localities hold reserved distances 0-9: %s%s", nres, join(reserved), more(nres))
		}
		if asym > 0 {
			r.Info("%d pairs of localities have different distances in the two directions (the specification allows it)", asym)
		}
	}
	if domains == nil {
		return
	}
	var outside []int
	for dom := range domains {
		if uint64(dom) >= d.N {
			outside = append(outside, int(dom))
		}
	}
	sort.Ints(outside)
	if len(outside) > 0 {
		r.Fail(l.Outside, "%s proximity domains %v have no row among the %d localities", affinity, outside[:min(len(outside), maxListed)], d.N)
	}
}

func square(n uint64) string {
	if n >= 1<<32 {
		return "more than 2^64"
	}
	return fmt.Sprint(n * n)
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

func more(n int) string {
	if n > maxListed {
		return fmt.Sprintf(" and %d more", n-maxListed)
	}
	return ""
}
