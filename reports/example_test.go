package reports_test

import (
	"fmt"
	"log"
	"os"

	"github.com/restartsim/restartsim/reports"
	"github.com/restartsim/restartsim/results"
)

// Render the committed golden run: the simulation does the same after each run.
func ExampleRender() {
	r, err := results.Load("testdata/results.json")
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.Open("testdata/timeseries.csv")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ts, err := results.ReadCSV(f)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "report")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	files, err := reports.Render(r, ts, dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, fig := range files.Figures {
		fmt.Printf("%s %dx%d\n", fig.ID, fig.Width, fig.Height)
	}
	// Output:
	// event-timeline 1400x1260
	// aws-calls 1400x720
	// change-latency-cdf 1400x620
	// queue-depths 1400x720
	// controller-memory 1400x720
	// restart-cost 1400x560
	// ttfmr-sweep 1400x620
}
