package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The expected values below were computed with Python 3.11: the statistics
// module (median, quantiles(method="inclusive"), linear_regression) and
// mpmath.betainc(…, regularized=True) at 30 digits for the p-values.

func TestSummarize(t *testing.T) {
	d := []float64{3.1, 0.4, 2.2, 9.8, 5.5, 1.0, 7.3, 4.4, 6.6, 8.1, 2.9, 0.2, 5.0, 3.3, 7.7, 9.1, 1.8, 6.0, 4.2, 8.8, 0.9}
	s := Summarize(d)
	assert.Equal(t, 21, s.N)
	assert.Equal(t, 0.2, s.Min)
	assert.Equal(t, 9.8, s.Max)
	assert.InDelta(t, 4.4, s.Median, 1e-12)
	assert.InDelta(t, 9.1, s.P95, 1e-12)
	assert.InDelta(t, 4.680952380952381, s.Mean, 1e-12)
	assert.Equal(t, 3.1, d[0], "the input is not reordered")

	two := Summarize([]float64{5.11, math.NaN(), 0.15})
	assert.Equal(t, 2, two.N)
	assert.InDelta(t, 4.862, two.P95, 1e-12)
	assert.InDelta(t, 2.63, two.Median, 1e-12)

	one := Summarize([]float64{7})
	assert.Equal(t, Summary{N: 1, Min: 7, Median: 7, P95: 7, Max: 7, Mean: 7}, one)

	empty := Summarize(nil)
	assert.Zero(t, empty.N)
	assert.True(t, math.IsNaN(empty.Median) && math.IsNaN(empty.P95) && math.IsNaN(empty.Min))
}

func TestQuantile(t *testing.T) {
	s := []float64{1, 2, 3, 4}
	assert.Equal(t, 1.0, Quantile(s, 0))
	assert.Equal(t, 4.0, Quantile(s, 1))
	assert.InDelta(t, 2.5, Quantile(s, 0.5), 1e-12)
	assert.InDelta(t, 3.85, Quantile(s, 0.95), 1e-12)
	assert.True(t, math.IsNaN(Quantile(s, 1.5)))
	assert.True(t, math.IsNaN(Quantile(s, math.NaN())))
	assert.True(t, math.IsNaN(Quantile(nil, 0.5)))
}

func TestStudentTwoSided(t *testing.T) {
	for _, c := range []struct{ t, df, p float64 }{
		{2.228138851986, 10, 0.050000000000023297}, // the 5% critical value
		{1, 1, 0.5},
		{0.5, 3, 0.65144796484815099},
		{3.5, 5, 0.017284431785293355},
		{-2, 28, 0.055285237641956908},
		{0.1, 1000, 0.92036436902360413},
		{1.2, 0.5, 0.55925792613136458},
	} {
		assert.InDelta(t, c.p, StudentTwoSided(c.t, c.df), 1e-12, "t=%v df=%v", c.t, c.df)
	}
	// Tiny p-values: relative accuracy.
	for _, c := range []struct{ t, df, p float64 }{
		{10, 100, 9.9016889845941392e-17},
		{40, 4, 2.3340163226012686e-6},
	} {
		assert.InEpsilon(t, c.p, StudentTwoSided(c.t, c.df), 1e-9, "t=%v df=%v", c.t, c.df)
	}
	// Closed forms: df=1 is the Cauchy distribution, df=2 has
	// p = 1 - |t|/sqrt(2+t²).
	for _, tv := range []float64{0, 0.3, 1.7, 6.3, 120} {
		assert.InDelta(t, 1-2/math.Pi*math.Atan(tv), StudentTwoSided(tv, 1), 1e-12)
		assert.InDelta(t, 1-tv/math.Sqrt(2+tv*tv), StudentTwoSided(tv, 2), 1e-12)
	}
	assert.Equal(t, 0.0, StudentTwoSided(math.Inf(1), 3))
	assert.True(t, math.IsNaN(StudentTwoSided(1, 0)))
	assert.True(t, math.IsNaN(StudentTwoSided(math.NaN(), 3)))
}

func TestRegIncBeta(t *testing.T) {
	for _, c := range []struct{ a, b, x, want float64 }{
		{0.5, 0.5, 0.3, 0.36901011956554538},
		{2, 3, 0.4, 0.52480000000000004},
		{10, 0.5, 0.9, 0.15164090963470997},
		{50, 0.5, 0.99, 0.31730439787419737},
		{0.5, 50, 0.01, 0.68269560212580242},
		{1, 1, 0.25, 0.25},
		{3, 2, 0, 0},
		{3, 2, 1, 1},
	} {
		assert.InDelta(t, c.want, RegIncBeta(c.a, c.b, c.x), 1e-12, "I_%v(%v,%v)", c.x, c.a, c.b)
	}
	assert.True(t, math.IsNaN(RegIncBeta(0, 1, 0.5)))
	assert.True(t, math.IsNaN(RegIncBeta(1, 1, 1.5)))
}

func TestSeriesDrift(t *testing.T) {
	// A resume time that grows by about 0.73 per cycle, with noise.
	y := []float64{101.2, 99.8, 103.5, 102.1, 104.9, 103.3, 106.0, 105.2, 107.7, 106.4}
	tr, err := Series(y)
	require.NoError(t, err)
	assert.Equal(t, 10, tr.N)
	assert.Equal(t, 8, tr.DF)
	assert.InDelta(t, 0.731515151515152, tr.Slope, 1e-12)
	assert.InDelta(t, 100.71818181818183, tr.Intercept, 1e-12)
	assert.InDelta(t, 0.13132229960223493, tr.StdErr, 1e-12)
	assert.InDelta(t, 5.570380306550028, tr.T, 1e-9)
	assert.InDelta(t, 0.00052821023384579145, tr.P, 1e-12)
	assert.True(t, tr.Significant(0.05))

	// A flat, noisy series: no significant drift.
	tr, err = Series([]float64{5.0, 5.3, 4.9, 5.1, 5.2, 4.8, 5.0, 5.1})
	require.NoError(t, err)
	assert.InDelta(t, -0.011904761904761937, tr.Slope, 1e-12)
	assert.InDelta(t, 0.0262805090314261, tr.StdErr, 1e-12)
	assert.InDelta(t, 0.66647684940990023, tr.P, 1e-12)
	assert.False(t, tr.Significant(0.05))
}

func TestFitEdgeCases(t *testing.T) {
	_, err := Series([]float64{1, 2})
	require.ErrorIs(t, err, ErrTooFew)
	_, err = Fit([]float64{3, 3, 3}, []float64{1, 2, 3})
	require.ErrorIs(t, err, ErrTooFew)
	_, err = Fit([]float64{1}, []float64{1, 2})
	require.Error(t, err)

	// NaNs drop out with their index: the remaining points lie on y = 2x+1.
	tr, err := Series([]float64{1, math.NaN(), 5, 7})
	require.NoError(t, err)
	assert.Equal(t, 3, tr.N)
	assert.InDelta(t, 2, tr.Slope, 1e-12)
	assert.InDelta(t, 1, tr.Intercept, 1e-12)
	assert.True(t, math.IsInf(tr.T, 1))
	assert.Equal(t, 0.0, tr.P)

	flat, err := Series([]float64{4, 4, 4, 4})
	require.NoError(t, err)
	assert.Equal(t, 0.0, flat.Slope)
	assert.Equal(t, 1.0, flat.P)
	assert.False(t, flat.Significant(0.05))

	// A large x offset (timestamps) loses no precision.
	x := []float64{1e9, 1e9 + 1, 1e9 + 2, 1e9 + 3}
	tr, err = Fit(x, []float64{0, 1, 2, 3.5})
	require.NoError(t, err)
	assert.InDelta(t, 1.15, tr.Slope, 1e-9)
}

func BenchmarkSummarizeAndSeries300(b *testing.B) {
	y := make([]float64, 300)
	for i := range y {
		y[i] = 100 + 0.01*float64(i) + float64((i*7919)%13)
	}
	for b.Loop() {
		_ = Summarize(y)
		if _, err := Series(y); err != nil {
			b.Fatal(err)
		}
	}
}
