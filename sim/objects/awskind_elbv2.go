package objects

import "reflect"

// elbv2Kind is what the four ELBv2 kinds share: calls name a resource by its ARN, and a name finds one
// through the snapshot.
type elbv2Kind struct{ kindInfo }

// byArnOrName finds an ELBv2 resource by its ARN or its name.
var byArnOrName = waysOf("arn", "name")

func elbv2(name string, view reflect.Type, ways refWays) elbv2Kind {
	return elbv2Kind{kindInfo{kind: name, viewType: view, ways: ways}}
}

// elbv2Keys are an ELBv2 resource's keys: its ARN and, when it has one, its name.
func elbv2Keys(arn, name string) []resourceKey {
	keys := []resourceKey{byKey("arn", arn)}
	if name != "" {
		keys = append(keys, byKey("name", name))
	}
	return keys
}

// arnView is the `aws` value of an ELBv2 kind.
type arnView interface{ resourceARN() string }

// callName is the ARN the key gives, or that of the resource its name finds in s.
func (k elbv2Kind) callName(s *Snapshot, key resourceKey) string {
	if key.by == "arn" {
		return key.value
	}
	if e := s.lookup(k.kind, key); e != nil {
		if v, ok := e.view.(arnView); ok {
			return v.resourceARN()
		}
	}
	return ""
}
