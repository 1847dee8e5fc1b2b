package objects

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiserver/pkg/cel/common"
)

// schemaTree is a structural schema as CEL values read it, with its children built once: the apiextensions
// adapter builds a new map of every property on each field access, which made an evaluation of a CRD object
// cost its schema's size.
type schemaTree struct {
	common.Schema
	items common.Schema
	props map[string]common.Schema
	extra common.SchemaOrBool
}

func newSchemaTree(s *structuralschema.Structural) *schemaTree {
	t := &schemaTree{Schema: &model.Structural{Structural: s}}
	if s.Items != nil {
		t.items = newSchemaTree(s.Items)
	}
	if s.Properties != nil {
		t.props = make(map[string]common.Schema, len(s.Properties))
		for name, p := range s.Properties {
			t.props[name] = newSchemaTree(&p)
		}
	}
	if a := s.AdditionalProperties; a != nil {
		var sub common.Schema
		if a.Structural != nil {
			sub = newSchemaTree(a.Structural)
		}
		t.extra = schemaOrBool{schema: sub, allows: a.Bool}
	}
	return t
}

func (t *schemaTree) Items() common.Schema                      { return t.items }
func (t *schemaTree) Properties() map[string]common.Schema      { return t.props }
func (t *schemaTree) AdditionalProperties() common.SchemaOrBool { return t.extra }

type schemaOrBool struct {
	schema common.Schema
	allows bool
}

func (s schemaOrBool) Schema() common.Schema { return s.schema }
func (s schemaOrBool) Allows() bool          { return s.allows }
