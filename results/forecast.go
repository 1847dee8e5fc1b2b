package results

import "fmt"

// maxForecasts bounds a strategy's forecasts, as a scenario's predict section does.
const maxForecasts = 16

func (c *checker) forecasts(p string, fs []Forecast) {
	if !c.length(p+".forecasts", len(fs), maxForecasts) {
		return
	}
	for i, f := range fs {
		q := fmt.Sprintf("%s.forecasts[%d]", p, i)
		c.count(q+".size", f.Size)
		for _, s := range []struct {
			field  string
			spread *Spread
		}{{"blindP50Seconds", f.BlindP50}, {"blindP95Seconds", f.BlindP95}, {"ttfmrSeconds", f.TTFMR}} {
			if s.spread != nil {
				c.seconds(q+"."+s.field+".median", s.spread.Median)
				c.seconds(q+"."+s.field+".low", s.spread.Low)
				c.seconds(q+"."+s.field+".high", s.spread.High)
			}
		}
		c.optSeconds(q+".steadyStateSeconds", f.SteadyStateSeconds)
		if len(f.Refused) > maxDetailBytes {
			c.addf(q+".refused", "%d bytes, more than %d", len(f.Refused), maxDetailBytes)
		}
	}
}
