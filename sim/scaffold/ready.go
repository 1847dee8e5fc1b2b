package scaffold

import (
	"fmt"
	"regexp"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// conditionTypes are the Kubernetes condition types that say an object is done, most telling first.
var conditionTypes = []string{"Ready", "Synced", "Available"}

// columnType finds a condition type a printer column selects: .status.conditions[?(@.type=="Ready")].status.
var columnType = regexp.MustCompile(`@\.type\s*==\s*["']([A-Za-z0-9_.-]+)["']`)

// ready is the group's ready condition and why it was chosen; "" when the schema has no status
// conditions (then the object counts as ready once it exists).
func ready(c *CRD) (expr, why string) {
	conds := statusConditions(c)
	if conds == nil {
		return "", "The schema has no status.conditions list, so an object counts as ready once it exists."
	}
	typ, why := conditionType(c, conds)
	expr = fmt.Sprintf(`has(object.status.conditions) && object.status.conditions.exists(c, c.type == %q && c.status == "True")`, typ)
	return expr, why
}

// statusConditions is the schema of status.conditions when it is a list of Kubernetes conditions
// (items with type and status), else nil.
func statusConditions(c *CRD) *apiextensionsv1.JSONSchemaProps {
	if c.Schema == nil {
		return nil
	}
	status, ok := c.Schema.Properties["status"]
	if !ok {
		return nil
	}
	conds, ok := status.Properties["conditions"]
	if !ok || conds.Type != "array" || conds.Items == nil || conds.Items.Schema == nil {
		return nil
	}
	item := conds.Items.Schema
	if _, ok := item.Properties["type"]; !ok {
		return nil
	}
	if _, ok := item.Properties["status"]; !ok {
		return nil
	}
	return &conds
}

// conditionType picks the condition that says the object is ready: ACK's ACK.ResourceSynced for an
// ACK kind, else the one a printer column or the schema's descriptions name, else Ready.
func conditionType(c *CRD, conds *apiextensionsv1.JSONSchemaProps) (string, string) {
	if isACK(c.Group) {
		return ackConditionType, "ACK sets ACK.ResourceSynced once AWS matches the spec."
	}
	for _, col := range c.Columns {
		if m := columnType.FindStringSubmatch(col.JSONPath); m != nil {
			return m[1], fmt.Sprintf("The printer column %s shows the %s condition.", col.Name, m[1])
		}
	}
	item := conds.Items.Schema
	texts := []string{conds.Description, item.Description, item.Properties["type"].Description}
	if status, ok := c.Schema.Properties["status"]; ok {
		texts = append(texts, status.Description)
	}
	for _, e := range item.Properties["type"].Enum {
		texts = append(texts, string(e.Raw))
	}
	text := strings.Join(texts, " ")
	for _, t := range conditionTypes {
		if regexp.MustCompile(`\b` + t + `\b`).MatchString(text) {
			return t, fmt.Sprintf("The schema's description of status.conditions names the %s condition.", t)
		}
	}
	return "Ready", "Assumed: the Kubernetes convention's Ready condition (the schema names none); change it if the controller sets another."
}
