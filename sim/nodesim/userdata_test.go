package nodesim

import (
	"encoding/base64"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func encoded(t testing.TB, file string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

var unregistered = corev1.Taint{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute}

func TestParseUserData(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   string
		labels map[string]string
		taints []corev1.Taint
		pods   int32
	}{
		{name: "AL2023 NodeConfig", data: encoded(t, "al2023.mime"),
			labels: map[string]string{"karpenter.k8s.aws/ec2nodeclass": "default", "karpenter.sh/capacity-type": "on-demand",
				"karpenter.sh/do-not-sync-taints": "true", "karpenter.sh/nodepool": "default"},
			taints: []corev1.Taint{unregistered, {Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule}},
			pods:   110},
		{name: "AL2 bootstrap.sh", data: encoded(t, "al2.sh"),
			labels: map[string]string{"karpenter.sh/capacity-type": "spot", "karpenter.sh/nodepool": "batch"},
			taints: []corev1.Taint{unregistered}, pods: 58},
		{name: "AL2 in MIME parts", data: encoded(t, "al2.mime"),
			labels: map[string]string{"team": "web"}, taints: []corev1.Taint{unregistered}},
		{name: "none", data: "", labels: map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ParseUserData(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(k.Labels, tc.labels) {
				t.Errorf("labels %v, want %v", k.Labels, tc.labels)
			}
			if !slices.Equal(k.Taints, tc.taints) {
				t.Errorf("taints %v, want %v", k.Taints, tc.taints)
			}
			if k.MaxPods != tc.pods {
				t.Errorf("max pods %d, want %d", k.MaxPods, tc.pods)
			}
		})
	}
}

func TestParseUserDataRejects(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct{ name, data, want string }{
		{"not base64", "%%%", "not base64"},
		{"bad effect", b64("/etc/eks/bootstrap.sh c --kubelet-extra-args '--register-with-taints=a=b:Sometimes'"), "NoExecute"},
		{"label without value", b64("/etc/eks/bootstrap.sh c --kubelet-extra-args '--node-labels=a'"), "key=value"},
		{"open quote", b64("/etc/eks/bootstrap.sh c --kubelet-extra-args '--node-labels=a=b"), "unterminated"},
		{"bad max pods", b64("/etc/eks/bootstrap.sh c --kubelet-extra-args --max-pods=lots"), "positive"},
		{"not a NodeConfig", b64("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"x\"\n\n--x\nContent-Type: application/node.eks.aws\n\nkind: Pod\n--x--\n"), "not a NodeConfig"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseUserData(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestShellWords(t *testing.T) {
	got, err := shellWords(`a 'b c' "d \"e\" $f" g\ h --x="y,z"`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "b c", `d "e" $f`, "g h", "--x=y,z"}
	if !slices.Equal(got, want) {
		t.Fatalf("words %q, want %q", got, want)
	}
}

// FuzzParseUserData feeds arbitrary documents (the seeds in testdata/fuzz are Karpenter's AL2023
// and AL2 forms): the parser never panics, and what it accepts is registrable.
func FuzzParseUserData(f *testing.F) {
	f.Fuzz(func(t *testing.T, doc []byte) {
		k, err := ParseUserData(base64.StdEncoding.EncodeToString(doc))
		if err != nil {
			return
		}
		for key := range k.Labels {
			if key == "" {
				t.Fatalf("accepted an empty label key from %q", doc)
			}
		}
		for _, tn := range k.Taints {
			if tn.Key == "" || (tn.Effect != corev1.TaintEffectNoSchedule && tn.Effect != corev1.TaintEffectPreferNoSchedule && tn.Effect != corev1.TaintEffectNoExecute) {
				t.Fatalf("accepted taint %+v from %q", tn, doc)
			}
		}
		if k.MaxPods < 0 {
			t.Fatalf("max pods %d from %q", k.MaxPods, doc)
		}
	})
}
