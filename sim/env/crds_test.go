package env

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
)

const crdDoc = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: NAME}
spec:
  group: elbv2.k8s.aws
  names: {kind: KIND, plural: PLURAL}
  scope: Namespaced
  versions: [{name: VERSION, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`

func crd(name, kind, version string) string {
	plural, _, _ := strings.Cut(name, ".")
	return strings.NewReplacer("NAME", name, "KIND", kind, "PLURAL", plural, "VERSION", version).Replace(crdDoc)
}

// An extra CRD of the harness's kind replaces the harness's; the others are added, in order.
func TestLoadCRDsExtraReplacesSameName(t *testing.T) {
	own, extra := t.TempDir(), t.TempDir()
	write := func(path, data string) {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(own, "tgb.yaml"), crd("targetgroupbindings.elbv2.k8s.aws", "TargetGroupBinding", "v1beta1"))
	write(filepath.Join(extra, "a.yaml"), crd("targetgroupbindings.elbv2.k8s.aws", "TargetGroupBinding", "v1alpha1")+"---\n"+
		crd("ingressclassparams.elbv2.k8s.aws", "IngressClassParams", "v1beta1"))
	write(filepath.Join(extra, "notes.txt"), "not a CRD")
	file := filepath.Join(t.TempDir(), "one.yml")
	write(file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n"+crd("albtargetcontrolconfigs.elbv2.k8s.aws", "ALBTargetControlConfig", "v1beta1"))
	got, err := loadCRDs(own, []string{extra, file})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range got {
		names = append(names, c.Name+"/"+c.Spec.Versions[0].Name)
	}
	want := "targetgroupbindings.elbv2.k8s.aws/v1alpha1 ingressclassparams.elbv2.k8s.aws/v1beta1 albtargetcontrolconfigs.elbv2.k8s.aws/v1beta1"
	if strings.Join(names, " ") != want {
		t.Errorf("CRDs %v, want %s", names, want)
	}
	if _, err := loadCRDs(own, []string{filepath.Join(extra, "missing")}); err == nil {
		t.Error("a missing path was accepted")
	}
	if _, err := loadCRDs(own, []string{filepath.Join(extra, "notes.txt")}); err == nil {
		t.Error("a file that is no CRD was accepted")
	}
	empty := filepath.Join(t.TempDir(), "cm.yaml")
	write(empty, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	if _, err := loadCRDs(own, []string{empty}); err == nil || !strings.Contains(err.Error(), "no CustomResourceDefinition") {
		t.Errorf("a file without CRDs: %v, want an error", err)
	}
}

// Without a directory the CRDs come from the binary, whatever the working directory, and the
// built-in CRDs (IngressClassParams, TargetGroupBinding) match the repository's files.
func TestLoadCRDsBuiltIn(t *testing.T) {
	repo, err := loadCRDs("../../controller/config/crd", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	got, err := loadCRDs("", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	if want := []string{"ingressclassparams.elbv2.k8s.aws", "targetgroupbindings.elbv2.k8s.aws"}; !slices.Equal(names, want) || len(repo) != len(got) {
		t.Fatalf("built-in CRDs %v, want %v; repository's %d", names, want, len(repo))
	}
	if !equality.Semantic.DeepEqual(got, repo) {
		t.Error("the built-in CRDs differ from controller/config/crd")
	}
	// An extra CRD still replaces the built-in one of its name.
	extra := filepath.Join(t.TempDir(), "tgb.yaml")
	if err := os.WriteFile(extra, []byte(crd("targetgroupbindings.elbv2.k8s.aws", "TargetGroupBinding", "v1alpha1")), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := loadCRDs("", []string{extra}); err != nil || len(got) != 2 || got[1].Spec.Versions[0].Name != "v1alpha1" {
		t.Errorf("extra over built-in: %v, %v", got, err)
	}
}
