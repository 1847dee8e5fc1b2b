package results

// AB is an A/B comparison's set-up, as run.
type AB struct {
	// Strategy is the scenario's strategy both sides ran; Baseline and Candidate name their entries
	// in Strategies.
	Strategy  string `json:"strategy"`
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
	// Repeats is the number of runs per side; Order is the order they ran in, by strategy name.
	Repeats int      `json:"repeats"`
	Order   []string `json:"order,omitempty"`
	// Alpha is the family-wise false-alarm rate over Metrics (Holm–Bonferroni).
	Alpha          float64    `json:"alpha"`
	Metrics        []ABMetric `json:"metrics"`
	BaselineBuild  Build      `json:"baselineBuild"`
	CandidateBuild Build      `json:"candidateBuild"`

	// Sequential sampling: after Repeats runs per side the gate looks, and adds Block runs per side
	// while a check is inconclusive, up to MaxRepeats and within BudgetSeconds of wall time (0 in
	// results written before it: one look at Repeats).
	Block         int     `json:"block,omitempty"`
	MaxRepeats    int     `json:"maxRepeats,omitempty"`
	BudgetSeconds float64 `json:"budgetSeconds,omitempty"`
	// RunSeconds is each run's wall time, in Order; Stopped says why sampling stopped: decided,
	// max (the plan's last look), saturated (no further run could bring a pass), budget, error.
	RunSeconds []float64 `json:"runSeconds,omitempty"`
	Stopped    string    `json:"stopped,omitempty"`
	// Parallel is how many runs ran side by side (0 or 1: one after another); StarvedRuns counts
	// the runs made again because their machine was saturated (SaturationRule), which are not
	// judged.
	Parallel    int `json:"parallel,omitempty"`
	StarvedRuns int `json:"starvedRuns,omitempty"`
}

// ABMetric is one compared figure with its minimum effect (see scenario.ABMetric).
type ABMetric struct {
	Metric    string  `json:"metric"`
	MinEffect float64 `json:"minEffect"`
	MinDelta  float64 `json:"minDelta,omitempty"`
	// AbsEffect is a regression that matters whatever its relative size (0: none).
	AbsEffect float64 `json:"absEffect,omitempty"`
	// Weight is the metric's share of the family-wise alpha (weighted Holm); 0, in results written
	// before weights, counts as 1.
	Weight float64 `json:"weight,omitempty"`
}

// AlphaWeight is the metric's weight, 1 when unset.
func (m ABMetric) AlphaWeight() float64 {
	if m.Weight <= 0 {
		return 1
	}
	return m.Weight
}

// Build identifies what one side ran.
type Build struct {
	Binary string   `json:"binary,omitempty"`
	Args   []string `json:"args,omitempty"`
	// Version is the binary's own report (`<binary> version`, else its Go build info).
	Version string `json:"version,omitempty"`
	// SHA256 is the hex SHA-256 of the file Binary resolves to (a wrapper script is hashed as the
	// script, not what it runs).
	SHA256 string `json:"sha256,omitempty"`
}
