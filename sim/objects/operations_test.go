package objects

import (
	"strings"
	"testing"

	"github.com/restartsim/restartsim/sim/fielderr"
)

func TestCheckMutation(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"ModifyTargetGroup", ""},
		{"AuthorizeSecurityGroupIngress", ""},
		{"", "empty operation name"},
		{"ModifyTargetGroups", `"ModifyTargetGroups" is not an operation fakeaws serves (did you mean ModifyTargetGroup?); it serves acm: `},
		{"NoSuchOperation", `"NoSuchOperation" is not an operation fakeaws serves; it serves acm: `},
	} {
		got := checkMutation(tc.name)
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: got %q, want prefix %q", tc.name, got, tc.want)
		}
		if tc.want != "" && tc.name != "" && !strings.Contains(got, "elbv2: AddListenerCertificates") {
			t.Errorf("%q: does not list the operations: %q", tc.name, got)
		}
	}
}

// A render that outgrows MaxValueBytes stops there, at its field.
func TestRenderBounded(t *testing.T) {
	var errs fielderr.List
	vt := parseValueTemplate([]byte(`{"big": "{{range 300000}}a{{end}}", "ok": "{{range 1000}}a{{end}}"}`), "t", parseFuncs(), &errs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	_, err := vt.render(parseFuncs(), struct{}{})
	if err == nil || !strings.Contains(err.Error(), "t.big") || !strings.Contains(err.Error(), "longer than 262144 bytes") {
		t.Fatalf("got %v", err)
	}
	vt = parseValueTemplate([]byte(`{"ok": "{{range 1000}}a{{end}}"}`), "t", parseFuncs(), &errs)
	v, err := vt.render(parseFuncs(), struct{}{})
	if err != nil || len(v.(map[string]any)["ok"].(string)) != 1000 {
		t.Fatalf("got %v, %v", v, err)
	}
}
