package objects

import (
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/fielderr"
)

// refWay is a set of AWSRef fields that together find a resource.
type refWay []string

// refWays are, by kind, the ways to find a resource (exactly one must be given) and the fields that may
// accompany any of them.
var refWays = map[string]struct {
	ways     []refWay
	optional []string
}{
	AWSTargetGroup:   {ways: []refWay{{"arn"}, {"name"}}},
	AWSLoadBalancer:  {ways: []refWay{{"arn"}, {"name"}}},
	AWSListener:      {ways: []refWay{{"arn"}}},
	AWSRule:          {ways: []refWay{{"arn"}}},
	AWSHostedZone:    {ways: []refWay{{"id"}, {"name"}}},
	AWSSecurityGroup: {ways: []refWay{{"id"}, {"name"}}},
	AWSS3Bucket:      {ways: []refWay{{"name"}}},
	AWSEC2Instance:   {ways: []refWay{{"id"}, {"name"}}},
	AWSRecordSet:     {ways: []refWay{{"zone", "name", "type"}}, optional: []string{"setIdentifier"}},
}

// refFieldOrder is every AWSRef field that holds an expression, in the order of the reference.
var refFieldOrder = []string{"arn", "id", "zone", "name", "type", "setIdentifier"}

func (r *AWSRef) field(name string) string {
	switch name {
	case "arn":
		return r.ARN
	case "name":
		return r.Name
	case "id":
		return r.ID
	case "zone":
		return r.Zone
	case "type":
		return r.Type
	case "setIdentifier":
		return r.SetIdentifier
	}
	return ""
}

// awsRef is a compiled AWSRef: the way it finds its resource and the expressions of that way's fields (and
// optional ones), in refFieldOrder.
type awsRef struct {
	kind   string
	way    string // the way's first field: "arn", "name", "id" or "zone"
	fields []string
	exprs  []*expr
}

// checkRef validates ref's fields for its kind, reporting at path (fleet.objects[i].aws), and returns the way
// it finds its resource.
func checkRef(ref *AWSRef, path string, errs *fielderr.List) (refWay, bool) {
	rules, ok := refWays[ref.Kind]
	if !ok {
		errs.Addf(fieldPath(path, "kind"), "%q is not one of %s", ref.Kind, strings.Join(AWSKinds, ", "))
		return nil, false
	}
	var given []string
	for _, f := range refFieldOrder {
		if ref.field(f) != "" {
			given = append(given, f)
		}
	}
	bad := false
	for _, f := range given {
		if !slices.Contains(rules.optional, f) && !slices.ContainsFunc(rules.ways, func(w refWay) bool { return slices.Contains(w, f) }) {
			errs.Addf(fieldPath(path, f), "a %s is not found by %s; give %s", ref.Kind, f, describeWays(rules.ways))
			bad = true
		}
	}
	if bad {
		return nil, false
	}
	var full []refWay
	for _, w := range rules.ways {
		if !slices.ContainsFunc(w, func(f string) bool { return ref.field(f) == "" }) {
			full = append(full, w)
		}
	}
	switch {
	case len(full) == 1:
		return full[0], true
	case len(rules.ways) == 1:
		for _, f := range rules.ways[0] {
			if ref.field(f) == "" {
				errs.Addf(fieldPath(path, f), "required: a %s is found by %s", ref.Kind, describeWays(rules.ways))
			}
		}
	default:
		errs.Addf(path, "give %s", describeWays(rules.ways))
	}
	return nil, false
}

func describeWays(ways []refWay) string {
	alts := make([]string, len(ways))
	for i, w := range ways {
		alts[i] = joinAnd(w)
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return "one of " + strings.Join(alts[:len(alts)-1], ", ") + " and " + alts[len(alts)-1]
}

func joinAnd(fields []string) string {
	if len(fields) == 1 {
		return fields[0]
	}
	return strings.Join(fields[:len(fields)-1], ", ") + " and " + fields[len(fields)-1]
}

// compileRef compiles the expressions of ref's way (and its optional fields) in env, whose `aws` is null.
func compileRef(env *celEnv, ref *AWSRef, way refWay, path string, errs *fielderr.List) *awsRef {
	r := &awsRef{kind: ref.Kind, way: way[0]}
	ok := true
	for _, f := range refFieldOrder {
		if !slices.Contains(way, f) && !(ref.field(f) != "" && slices.Contains(refWays[ref.Kind].optional, f)) {
			continue
		}
		x := compileInto(env, ref.field(f), fieldPath(path, f), cel.StringType, errs)
		if x != nil && x.isLiteral && ref.Kind == AWSRecordSet && f == "type" && !slices.Contains(fakeaws.Route53RecordTypes(), x.literal) {
			errs.Addf(fieldPath(path, f), "%q is not a Route53 record type (%s)", x.literal, strings.Join(fakeaws.Route53RecordTypes(), ", "))
			x = nil
		}
		ok = ok && x != nil
		r.fields, r.exprs = append(r.fields, f), append(r.exprs, x)
	}
	if !ok {
		return nil
	}
	return r
}

// id evaluates the reference's expressions for act's object (with the objects its reference functions
// reach); false when one fails (e.g. the status does not hold the ARN yet).
func (r *awsRef) id(act *activation) (awsID, bool) {
	if r == nil {
		return awsID{}, false
	}
	v := make(map[string]string, len(r.exprs))
	vals := make([]string, 0, len(r.exprs))
	for i, x := range r.exprs {
		s, err := x.evalString(&activation{object: act.object, aws: types.NullValue, view: act.view})
		if err != nil {
			return awsID{}, false
		}
		v[r.fields[i]] = s
		vals = append(vals, s)
	}
	id := awsID{keys: r.keys(v), label: strings.Join(vals, " ")}
	switch {
	case r.way == "arn":
		id.arn = v["arn"]
	case r.kind == AWSTargetGroup || r.kind == AWSLoadBalancer:
		id.name = v["name"]
	}
	return id, true
}

// usesRefs reports whether one of the reference's expressions calls a reference function.
func (r *awsRef) usesRefs() bool {
	if r == nil {
		return false
	}
	return slices.ContainsFunc(r.exprs, func(x *expr) bool { return x.refs })
}

// awsID is what an object's reference found its AWS resource by: the snapshot keys, a label for messages,
// and the ARN or ELBv2 name when the reference gives one.
type awsID struct {
	keys      []string
	label     string
	arn, name string
}

// found reports whether snap holds a resource of kind under the id.
func (id awsID) found(kind string, snap *Snapshot) bool {
	return len(id.keys) > 0 && snap.lookup(kind, id.keys...) != nil
}

// resourceID is the identity of the id's resource as fakeaws.Call.Resources names it (resourceIDOf): the ARN
// it gives, an ELBv2 name's ARN through snap, else what its keys resolve to in snap; "" when none.
func (id awsID) resourceID(kind string, snap *Snapshot) string {
	switch {
	case id.arn != "":
		return id.arn
	case id.name != "":
		return snap.ARN(kind, id.name)
	case isELBv2(kind):
		return ""
	}
	return snap.resourceIDOf(kind, id.keys)
}

// keys are the snapshot keys the reference's values may be indexed under, tried in order.
func (r *awsRef) keys(v map[string]string) []string {
	switch {
	case r.way == "zone":
		rest := fakeaws.CanonicalDNSName(v["name"]) + "\x00" + strings.ToUpper(v["type"]) + "\x00" + v["setIdentifier"]
		return []string{recordKey(strings.TrimPrefix(v["zone"], "/hostedzone/"), rest), recordKey(fakeaws.CanonicalDNSName(v["zone"]), rest)}
	case r.kind == AWSHostedZone && r.way == "id":
		return []string{"id\x00" + strings.TrimPrefix(v["id"], "/hostedzone/")}
	case r.kind == AWSHostedZone:
		return []string{"name\x00" + fakeaws.CanonicalDNSName(v["name"])}
	}
	return []string{r.way + "\x00" + v[r.way]}
}

func recordKey(zone, rest string) string { return "record\x00" + zone + "\x00" + rest }

// recordKeyOf is the key of a record set in a zone known by zone (its ID or canonical name).
func recordKeyOf(zone string, rs fakeaws.RecordSet) string {
	return recordKey(zone, rs.Name+"\x00"+rs.Type+"\x00"+rs.SetIdentifier)
}
