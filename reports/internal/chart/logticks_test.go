package chart

import "testing"

// A one-decade axis gets labels at 1, 2 and 5 of each decade, not only at the powers of ten.
func TestLogTicksLabelEveryDecadeStep(t *testing.T) {
	var labels []string
	for _, tk := range (logTicks{}).Ticks(0.3, 20) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	want := []string{"0.5", "1", "2", "5", "10", "20"}
	if len(labels) != len(want) {
		t.Fatalf("labels %v, want %v", labels, want)
	}
	for i := range want {
		if labels[i] != want[i] {
			t.Fatalf("labels %v, want %v", labels, want)
		}
	}
}
