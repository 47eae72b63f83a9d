package tables

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/nspda/nspda/experiment"
)

// MetricKind is what a table cell reads from a run's summary.
type MetricKind int

// The metrics of the paper's tables.
const (
	Epochs     MetricKind = iota // epochs to converge (converged runs only)
	Chars                        // input symbols presented until convergence (converged runs only)
	TrainError                   // % error on the training set at the end
	TestError                    // % error on the test set Metric.Set
	Seconds                      // wall-clock seconds of the whole run
)

// Metric is a MetricKind and, for TestError, the test set.
type Metric struct {
	Kind MetricKind
	Set  string
}

// Name describes the metric in a table header.
func (m Metric) Name() string {
	switch m.Kind {
	case Epochs:
		return "epochs to converge"
	case Chars:
		return "characters to converge"
	case TrainError:
		return "train % error"
	case Seconds:
		return "wall seconds"
	default:
		return m.Set + " % error"
	}
}

// Convergence reports whether the metric exists only for converged runs.
func (m Metric) Convergence() bool { return m.Kind == Epochs || m.Kind == Chars }

// Value reads the metric from s; ok is false when s has none (not
// converged, or the set was not evaluated).
func (m Metric) Value(s *experiment.Summary) (v float64, ok bool) {
	switch m.Kind {
	case Epochs:
		return float64(s.Epochs), s.Converged
	case Chars:
		if s.CharsToConverge == nil {
			return 0, false
		}
		return float64(*s.CharsToConverge), true
	case TrainError:
		return s.TrainErrorPct, true
	case Seconds:
		return s.WallSeconds, true
	}
	for _, r := range s.Sets {
		if r.Name == m.Set {
			return r.ErrorPct, true
		}
	}
	return 0, false
}

// Budget is what a run that did not converge spent: its epochs or characters.
func (m Metric) Budget(s *experiment.Summary) float64 {
	if m.Kind == Chars {
		return float64(s.Chars)
	}
	return float64(s.Epochs)
}

// Format prints a value of the metric with its fixed precision: epochs to
// one decimal, characters as integers, errors to two decimals.
func (m Metric) Format(v float64) string {
	switch m.Kind {
	case Epochs:
		return fmt.Sprintf("%.1f", v)
	case Chars:
		return fmt.Sprintf("%.0f", v)
	case Seconds:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Stats are the mean, the sample standard deviation and the 95% confidence
// interval of the mean (Student's t with N−1 degrees of freedom) of N values.
// With N = 1, SD, Low and High are NaN.
type Stats struct {
	N         int
	Mean, SD  float64
	Low, High float64
}

// Describe returns the Stats of xs (N = 0: all NaN).
func Describe(xs []float64) Stats {
	s := Stats{N: len(xs), Mean: math.NaN(), SD: math.NaN(), Low: math.NaN(), High: math.NaN()}
	if s.N == 0 {
		return s
	}
	s.Mean = stat.Mean(xs, nil)
	if s.N == 1 {
		return s
	}
	s.SD = stat.StdDev(xs, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(s.N - 1)}.Quantile(0.975)
	half := t * s.SD / math.Sqrt(float64(s.N))
	s.Low, s.High = s.Mean-half, s.Mean+half
	return s
}
