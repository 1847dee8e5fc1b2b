package objects

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// Kind is an object kind a group may use.
type Kind struct {
	GVK        schema.GroupVersionKind
	Namespaced bool
	// Source is the CRD file the kind came from; "" for a built-in kind.
	Source string
	// schema is the version's OpenAPI schema; nil for a built-in kind, whose `object` is dynamic.
	schema *structuralschema.Structural
	// validator checks values against the schema as the API server does on create; nil for a built-in kind.
	validator validation.SchemaValidator
}

// Catalog is the kinds a scenario may use: the built-in kinds of client-go's scheme and the CRDs it was given.
type Catalog struct {
	kinds map[schema.GroupVersionKind]*Kind
}

// NewCatalog returns a catalog of the built-in kinds.
func NewCatalog() *Catalog {
	c := &Catalog{kinds: map[schema.GroupVersionKind]*Kind{}}
	object := reflect.TypeFor[metav1.Object]()
	for gvk, t := range clientgoscheme.Scheme.AllKnownTypes() {
		if gvk.Version == "__internal" || !reflect.PointerTo(t).Implements(object) {
			continue // list, options and event types
		}
		c.kinds[gvk] = &Kind{GVK: gvk, Namespaced: !clusterScoped[gvk.GroupKind()]}
	}
	return c
}

// AddCRD adds the served versions of a CRD; a kind already known (a CRD of the same name, or a built-in) is
// replaced.
func (c *Catalog) AddCRD(crd *apiextensionsv1.CustomResourceDefinition, source string) error {
	if crd.Spec.Names.Kind == "" || crd.Spec.Group == "" {
		return fmt.Errorf("CRD %q has no spec.group or spec.names.kind", crd.Name)
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		k := &Kind{
			GVK:        schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind},
			Namespaced: crd.Spec.Scope != apiextensionsv1.ClusterScoped,
			Source:     source,
		}
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			if err := k.setSchema(v.Schema.OpenAPIV3Schema); err != nil {
				return fmt.Errorf("CRD %s version %s: %w", crd.Name, v.Name, err)
			}
		}
		c.kinds[k.GVK] = k
	}
	return nil
}

func (k *Kind) setSchema(props *apiextensionsv1.JSONSchemaProps) error {
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(props, &internal, nil); err != nil {
		return err
	}
	s, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return fmt.Errorf("schema is not structural: %w", err)
	}
	v, _, err := validation.NewSchemaValidator(&internal)
	if err != nil {
		return err
	}
	k.schema, k.validator = s, v
	return nil
}

// Lookup finds the kind of an object's apiVersion and kind.
func (c *Catalog) Lookup(apiVersion, kind string) (*Kind, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("apiVersion %q: %w", apiVersion, err)
	}
	gvk := gv.WithKind(kind)
	if k, ok := c.kinds[gvk]; ok {
		return k, nil
	}
	var versions []string
	for g := range c.kinds {
		if g.GroupKind() == gvk.GroupKind() {
			versions = append(versions, g.GroupVersion().String())
		}
	}
	if len(versions) > 0 {
		slices.Sort(versions)
		return nil, fmt.Errorf("kind %s is not served in %s (served: %s)", kind, apiVersion, strings.Join(versions, ", "))
	}
	return nil, fmt.Errorf("unknown kind %s in %s: neither a built-in kind nor one of the CRDs given (cluster.crds)", kind, apiVersion)
}

// clusterScoped are the built-in kinds that are not namespaced (the scheme does not record scope).
var clusterScoped = func() map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for group, kinds := range map[string][]string{
		"":                             {"Namespace", "Node", "PersistentVolume", "ComponentStatus"},
		"rbac.authorization.k8s.io":    {"ClusterRole", "ClusterRoleBinding"},
		"storage.k8s.io":               {"StorageClass", "CSIDriver", "CSINode", "VolumeAttachment", "VolumeAttributesClass"},
		"networking.k8s.io":            {"IngressClass", "IPAddress", "ServiceCIDR"},
		"scheduling.k8s.io":            {"PriorityClass"},
		"node.k8s.io":                  {"RuntimeClass"},
		"certificates.k8s.io":          {"CertificateSigningRequest", "ClusterTrustBundle"},
		"flowcontrol.apiserver.k8s.io": {"FlowSchema", "PriorityLevelConfiguration"},
		"resource.k8s.io":              {"DeviceClass", "ResourceSlice", "DeviceTaintRule"},
		"storagemigration.k8s.io":      {"StorageVersionMigration"},
		"internal.apiserver.k8s.io":    {"StorageVersion"},
		"apiextensions.k8s.io":         {"CustomResourceDefinition"},
		"apiregistration.k8s.io":       {"APIService"},
		"admissionregistration.k8s.io": {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
			"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"},
	} {
		for _, k := range kinds {
			out[schema.GroupKind{Group: group, Kind: k}] = true
		}
	}
	return out
}()
