// Package stats holds the few statistics the suspend/resume and reboot
// summaries need: order statistics of a series (min, median, 95th
// percentile, max) and a least-squares trend with a test of whether its
// slope differs from zero (Student's t). It is not a general statistics
// library: no weighting, no robust regression, no multiple testing.
package stats

import (
	"errors"
	"math"
	"slices"
)

// Summary holds the order statistics of a series.
type Summary struct {
	N      int
	Min    float64
	Median float64
	P95    float64
	Max    float64
	Mean   float64
}

// Summarize returns the order statistics of xs, leaving NaNs out (N counts
// the values used). The median and 95th percentile interpolate linearly
// between order statistics (Hyndman and Fan's definition 7, the default of
// R and NumPy). For an empty series every field but N is NaN.
func Summarize(xs []float64) Summary {
	s := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		nan := math.NaN()
		return Summary{Min: nan, Median: nan, P95: nan, Max: nan, Mean: nan}
	}
	slices.Sort(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return Summary{
		N:      len(s),
		Min:    s[0],
		Median: Quantile(s, 0.5),
		P95:    Quantile(s, 0.95),
		Max:    s[len(s)-1],
		Mean:   sum / float64(len(s)),
	}
}

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of sorted, which must be in
// ascending order and free of NaNs, interpolating linearly between the
// order statistics at ranks ⌊h⌋ and ⌈h⌉ with h = (n-1)q. It returns NaN
// for an empty slice or q outside [0, 1].
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 || !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	h := float64(n-1) * q
	lo := int(math.Floor(h))
	hi := min(lo+1, n-1)
	return sorted[lo] + (h-float64(lo))*(sorted[hi]-sorted[lo])
}

// Trend is an ordinary least-squares fit y = Intercept + Slope·x with the
// t test of the null hypothesis that the slope is zero.
type Trend struct {
	N         int
	Slope     float64
	Intercept float64
	// StdErr is the standard error of the slope.
	StdErr float64
	// T is Slope/StdErr, ±Inf when the points lie exactly on a sloped line.
	T float64
	// DF is the residual degrees of freedom, N-2.
	DF int
	// P is the two-sided p-value of T under Student's t distribution with
	// DF degrees of freedom: the probability of a slope at least this steep
	// if there were no trend. 0 for a perfect fit with a non-zero slope, 1
	// for a perfectly flat series.
	P float64
}

// Significant reports whether the slope differs from zero at level alpha
// (e.g. 0.05).
func (t Trend) Significant(alpha float64) bool { return t.P < alpha }

// ErrTooFew is returned for a fit with fewer than three points or with all
// x equal: no slope, or no residual to judge it by.
var ErrTooFew = errors.New("stats: a trend needs at least three points at two or more x values")

// Series fits a trend to y against its index (0, 1, 2, …): the drift of a
// per-cycle measurement over the cycles. NaNs are left out together with
// their index.
func Series(y []float64) (Trend, error) {
	xs := make([]float64, 0, len(y))
	ys := make([]float64, 0, len(y))
	for i, v := range y {
		if !math.IsNaN(v) {
			xs = append(xs, float64(i))
			ys = append(ys, v)
		}
	}
	return Fit(xs, ys)
}

// Fit fits y = a + b·x by least squares and tests b = 0. x and y must have
// the same length; pairs with a NaN are left out.
func Fit(x, y []float64) (Trend, error) {
	if len(x) != len(y) {
		return Trend{}, errors.New("stats: x and y differ in length")
	}
	var xs, ys []float64
	for i := range x {
		if !math.IsNaN(x[i]) && !math.IsNaN(y[i]) {
			xs = append(xs, x[i])
			ys = append(ys, y[i])
		}
	}
	n := len(xs)
	if n < 3 {
		return Trend{N: n}, ErrTooFew
	}
	// Centre first: sums of squares of deviations lose nothing to
	// cancellation when x is a large offset (timestamps).
	mx, my := mean(xs), mean(ys)
	var sxx, sxy, syy float64
	for i := range xs {
		dx, dy := xs[i]-mx, ys[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return Trend{N: n}, ErrTooFew
	}
	b := sxy / sxx
	tr := Trend{N: n, Slope: b, Intercept: my - b*mx, DF: n - 2}
	sse := 0.0
	for i := range xs {
		r := ys[i] - tr.Intercept - b*xs[i]
		sse += r * r
	}
	if sse <= syy*1e-24 {
		sse = 0 // an exact fit up to rounding
	}
	tr.StdErr = math.Sqrt(sse / float64(tr.DF) / sxx)
	switch {
	case tr.StdErr > 0:
		tr.T = b / tr.StdErr
		tr.P = StudentTwoSided(tr.T, float64(tr.DF))
	case b == 0:
		tr.T, tr.P = 0, 1
	default:
		tr.T, tr.P = math.Inf(int(math.Copysign(1, b))), 0
	}
	return tr, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// StudentTwoSided returns P(|T| ≥ |t|) for T following Student's t
// distribution with df > 0 degrees of freedom, through the regularised
// incomplete beta function: I_{df/(df+t²)}(df/2, 1/2). Accurate to about
// 1e-12 absolute. NaN for df ≤ 0 or a NaN t.
func StudentTwoSided(t, df float64) float64 {
	if !(df > 0) || math.IsNaN(t) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		return 0
	}
	x := df / (df + t*t)
	return RegIncBeta(df/2, 0.5, x)
}

// RegIncBeta is the regularised incomplete beta function I_x(a, b) for
// a, b > 0 and 0 ≤ x ≤ 1, evaluated by its continued fraction (modified
// Lentz's method) on whichever of x and 1-x makes it converge fast. NaN
// outside that domain.
func RegIncBeta(a, b, x float64) float64 {
	if !(a > 0) || !(b > 0) || !(x >= 0 && x <= 1) {
		return math.NaN()
	}
	if x == 0 || x == 1 {
		return x
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	// front = x^a (1-x)^b / B(a, b)
	front := math.Exp(a*math.Log(x) + b*math.Log1p(-x) - (la + lb - lab))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

// betaCF evaluates the continued fraction of the incomplete beta function
// 1/(1+ d1/(1+ d2/(1+ …))) with d_{2m+1} = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1))
// and d_{2m} = m(b-m)x / ((a+2m-1)(a+2m)).
func betaCF(a, b, x float64) float64 {
	const (
		tiny = 1e-300
		eps  = 1e-15
	)
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 10000; m++ {
		fm := float64(m)
		// even step
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		// odd step
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
