package scenario

import (
	"strings"
	"testing"
)

// An A/B scenario whose compared strategy runs ${RS_GATE_BIN}: both builds' binaries given stand
// for it, so it need not be set; one alone does not (the other side still runs the command), nor
// do they excuse the command's other references.
func TestBothBuildBinariesStandForTheCommandsBinary(t *testing.T) {
	crds := t.TempDir()
	withEnv(t, map[string]string{"RS_TEST_BIN": "/opt/lbc"})
	doc := strings.NewReplacer("CRDS", crds, `"${RS_TEST_BIN}", "--kubeconfig`, `"${RS_GATE_BIN}", "--kubeconfig`,
		"    - {name: checkpoint}\n", "", "timeline:", "ab: {strategy: lbc}\ntimeline:").Replace(sideBySide)
	unset := "controller.strategies[0].external.command[0]: environment variable RS_GATE_BIN is not set"
	for _, tc := range []struct {
		name string
		bins Binaries
		want string // "" for none
	}{
		{"no binaries", Binaries{}, unset},
		{"the baseline's only", Binaries{Baseline: "/opt/base"}, unset},
		{"both", Binaries{Baseline: "/opt/base", Candidate: "/opt/pr"}, ""},
	} {
		s, err := ParseWithBinaries("t.yaml", []byte(doc), tc.bins)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		case tc.want == "" && (s.AB.Baseline.Binary != "/opt/base" || s.AB.Candidate.Binary != "/opt/pr" || s.Controller.Strategies[0].External.Env["EXTRA"] != "x-/opt/lbc"):
			t.Errorf("%s: builds %+v %+v, env %v: want the binaries set and the other references expanded", tc.name, s.AB.Baseline, s.AB.Candidate, s.Controller.Strategies[0].External.Env)
		}
	}
}
