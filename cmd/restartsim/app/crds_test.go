package app

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// `restartsim crds` prints a stream kubectl apply takes: the IngressClassParams and
// TargetGroupBinding CRDs, from any working directory.
func TestCRDsCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	root := NewRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"crds"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewYAMLOrJSONDecoder(&out, 4096)
	var names []string
	for {
		var c apiextensionsv1.CustomResourceDefinition
		if err := dec.Decode(&c); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if c.Kind == "CustomResourceDefinition" {
			names = append(names, c.Name)
		}
	}
	if !slices.Equal(names, []string{"ingressclassparams.elbv2.k8s.aws", "targetgroupbindings.elbv2.k8s.aws"}) {
		t.Errorf("CRDs printed: %v", names)
	}
}
