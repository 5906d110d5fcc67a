package report

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"
)

// plotValues is every value the plot code must survive.
var plotValues = []float64{0, -1, 1, 0.5, 1e-300, 5e-324, math.SmallestNonzeroFloat64, 1.797e308, math.MaxFloat64,
	math.Inf(1), math.Inf(-1), math.NaN(), 3e15, 123456.789}

// TestPlotHostileValues: a results document of 3 KB holding a kernel
// resume time of 1.797e308 made `fwcheck report` loop without end (the
// tick loop's value overflowed to +Inf). Every value, alone or with
// others, gives a plot of bounded size with finite coordinates.
func TestPlotHostileValues(t *testing.T) {
	for _, a := range plotValues {
		for _, b := range plotValues {
			svg := plotOf(t, a, b)
			if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
				t.Errorf("%g, %g: a non-finite coordinate: %.300s", a, b, svg)
			}
		}
	}
}

func plotOf(t testing.TB, vals ...float64) string {
	t.Helper()
	var cs []cycleRow
	for i, v := range vals {
		cs = append(cs, cycleRow{Cycle: i + 1, Status: "passed", Values: [len(measures)]float64{2: v}})
	}
	done := time.AfterFunc(10*time.Second, func() { panic("plotting takes over 10 s") })
	defer done.Stop()
	svg := string(plotSVG(measures[2], cs))
	if len(svg) > 200_000+200*len(vals) {
		t.Fatalf("%d values: a plot of %d bytes", len(vals), len(svg))
	}
	return svg
}

// TestPlotManyCycles: 300,000 cycles draw at most maxPlotPoints points
// and dots a plot.
func TestPlotManyCycles(t *testing.T) {
	vals := make([]float64, 300_000)
	for i := range vals {
		vals[i] = float64(i%997) + 1
	}
	svg := plotOf(t, vals...)
	if n := strings.Count(svg, "<circle"); n > maxPlotPoints {
		t.Errorf("%d dots", n)
	}
	if len(svg) > 100_000 {
		t.Errorf("a plot of %d bytes", len(svg))
	}
}

// FuzzPlot draws values read as float64 bits from the input: the plot
// ends, stays bounded, and holds no NaN or Inf.
func FuzzPlot(f *testing.F) {
	for _, v := range plotValues {
		f.Add(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var vals []float64
		for len(b) >= 8 && len(vals) < 5000 {
			vals = append(vals, math.Float64frombits(binary.LittleEndian.Uint64(b)))
			b = b[8:]
		}
		svg := plotOf(t, vals...)
		if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
			t.Fatalf("a non-finite coordinate: %.300s", svg)
		}
	})
}
