package objects

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
)

// CostLimit bounds one evaluation of one expression, in CEL cost units: the Kubernetes per-call limit of
// validation rules (about 0.1 s); an expression over it fails as a condition that does not hold.
const CostLimit = celconfig.PerCallLimit

// The CEL variables of every expression.
const (
	ObjectVar = "object"
	AWSVar    = "aws"
)

// celEnv compiles the expressions of one object kind and one AWS kind.
type celEnv struct {
	env *cel.Env
	// object is the object's CEL type.
	object *kindType
}

// kindType is a kind's objects as CEL reads them: the declared type and the schema of a CRD kind (with
// metadata), nil for a built-in kind, whose objects are dynamic.
type kindType struct {
	decl *apiservercel.DeclType
	tree *schemaTree
}

// newKindType types a kind's objects; each kind's type has its own name, so that the objects of several kinds
// (a group's own and those its conditions reach by reference) share one environment.
func newKindType(k *Kind) (*kindType, error) {
	if k.schema == nil {
		return &kindType{}, nil
	}
	s := withObjectMeta(k.schema)
	dt := model.SchemaDeclType(s, false)
	if dt == nil {
		return nil, fmt.Errorf("the schema of %s has no fields CEL can read", k.GVK.Kind)
	}
	name := strings.NewReplacer(".", "_", "-", "_").Replace(k.GVK.Group)
	dt = dt.MaybeAssignTypeName(fmt.Sprintf("restartsim.object.%s.%s.%s", name, k.GVK.Version, k.GVK.Kind))
	return &kindType{decl: dt, tree: newSchemaTree(s)}, nil
}

func (t *kindType) celType() *cel.Type {
	if t.decl == nil {
		return cel.DynType
	}
	return t.decl.CelType()
}

// val is an object's CEL value.
func (t *kindType) val(u map[string]any) ref.Val {
	if u == nil {
		return types.NullValue
	}
	if t.tree == nil {
		return types.DefaultTypeAdapter.NativeToValue(u)
	}
	return common.UnstructuredToVal(u, t.tree)
}

// newCELEnv builds the environment of Kubernetes CEL (the libraries of CRD validation rules) with `object`
// typed by its kind, `aws` by the AWS kind's state type ("" = no AWS resource: always null) and the reference
// functions of refs (nil: none).
func newCELEnv(obj *kindType, awsKind string, refs *refSet) (*celEnv, error) {
	compilations.Add(1)
	e := &celEnv{object: obj}
	var decls []*apiservercel.DeclType
	seen := map[string]bool{}
	addDecl := func(t *kindType) {
		if t.decl != nil && !seen[t.decl.TypeName()] {
			seen[t.decl.TypeName()] = true
			decls = append(decls, t.decl)
		}
	}
	addDecl(obj)
	awsType := cel.NullType
	if awsKind != "" {
		k, ok := awsKinds.lookup(awsKind)
		if !ok {
			return nil, fmt.Errorf("unknown AWS kind %q", awsKind)
		}
		dt := k.schemas().decl
		decls, awsType = append(decls, dt), dt.CelType()
	}
	opts := []cel.EnvOption{cel.Variable(ObjectVar, obj.celType()), cel.Variable(AWSVar, awsType)}
	if refs != nil {
		for _, name := range slices.Sorted(maps.Keys(refs.targets)) {
			addDecl(refs.targets[name].typ)
		}
		opts = append(opts, refs.envOptions()...)
	}
	set, err := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        opts,
		DeclTypes:         decls,
	})
	if err != nil {
		return nil, err
	}
	// StoredExpressions: every library this Kubernetes version knows, as for expressions read from files.
	e.env = set.StoredExpressionsEnv()
	return e, nil
}

// objectVal is an object's CEL value.
func (e *celEnv) objectVal(u map[string]any) ref.Val { return e.object.val(u) }

// withObjectMeta is a CRD's schema with apiVersion, kind and the metadata a condition may read (CRD schemas
// leave metadata out).
func withObjectMeta(s *structuralschema.Structural) *structuralschema.Structural {
	out := *s
	out.Properties = maps.Clone(s.Properties)
	if out.Properties == nil {
		out.Properties = map[string]structuralschema.Structural{}
	}
	out.Properties["apiVersion"] = typedSchema("string")
	out.Properties["kind"] = typedSchema("string")
	out.Properties["metadata"] = objectMetaSchema
	return &out
}

func typedSchema(t string) structuralschema.Structural {
	return structuralschema.Structural{Generic: structuralschema.Generic{Type: t}}
}

// objectMetaSchema is metav1.ObjectMeta's readable part.
var objectMetaSchema = func() structuralschema.Structural {
	str, date := typedSchema("string"), typedSchema("string")
	date.ValueValidation = &structuralschema.ValueValidation{Format: "date-time"}
	stringMap := typedSchema("object")
	stringMap.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: &str, Bool: true}
	owner := typedSchema("object")
	owner.Properties = map[string]structuralschema.Structural{
		"apiVersion": str, "kind": str, "name": str, "uid": str,
		"controller": typedSchema("boolean"), "blockOwnerDeletion": typedSchema("boolean"),
	}
	owners, finalizers := typedSchema("array"), typedSchema("array")
	owners.Items, finalizers.Items = &owner, &str
	m := typedSchema("object")
	m.Properties = map[string]structuralschema.Structural{
		"name": str, "generateName": str, "namespace": str, "uid": str, "resourceVersion": str,
		"generation": typedSchema("integer"), "creationTimestamp": date, "deletionTimestamp": date,
		"labels": stringMap, "annotations": stringMap, "finalizers": finalizers, "ownerReferences": owners,
	}
	return m
}()
