package scenario

import (
	"fmt"

	"github.com/restartsim/restartsim/predict"
)

// Predict is the scenario's request for forecasts at larger fleets.
type Predict struct {
	// Sizes are the fleet sizes to forecast, in the fleet's terms (TargetGroupBindings, or the
	// largest object group). Required: 1 to 16 sizes, each 1 to 10,000,000.
	Sizes []int `json:"sizes"`
}

// Bounds of a predict section: a size within what a forecast computes (predict.MaxSize, the bound
// `restartsim predict --size` applies), and a list within what a reader compares.
const (
	maxPredictSizes = 16
	maxPredictSize  = predict.MaxSize
)

func (v *validator) validatePredict(p *Predict) {
	if p == nil {
		return
	}
	switch n := len(p.Sizes); {
	case n == 0:
		v.addf("predict.sizes", "required: at least one fleet size, e.g. [10000]")
	case n > maxPredictSizes:
		v.addf("predict.sizes", "at most %d sizes, got %d", maxPredictSizes, n)
	}
	for i, n := range p.Sizes {
		if n < 1 || n > maxPredictSize {
			v.addf(fmt.Sprintf("predict.sizes[%d]", i), "must be 1 to %d, got %d", maxPredictSize, n)
		}
	}
}
