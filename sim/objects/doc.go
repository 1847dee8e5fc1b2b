// Package objects describes fleets of any Kubernetes object, custom resources included, and says with CEL
// conditions when an object is ready and when a change to it shows in AWS (fakeaws's state).
//
// A scenario gives Groups (fleet.objects[]): a template, a count, the groups to wait for, and conditions.
// Compile checks them against a Catalog of kinds (client-go's built-in kinds plus the CRDs of cluster.crds)
// and returns CompiledGroups, which render and create the objects and evaluate the conditions; CompilePatch
// makes a Patcher for a churn step that patches chosen objects. Every problem found before a run is a fielderr.Error
// whose path extends the one the caller passed (fleet.objects[1].template.spec.name), so the scenario parser
// can place it in the file.
//
// # Templates
//
// Every string value of a template (and of a patch's merge patch; map keys are not templated) may hold Go
// text/template actions. The dot is Data: .Index (from 0), .Group, .Namespace (where the object goes), .RunID,
// .Region, .VpcID, .ClusterName, and .Seq (a patch's change number). Functions:
//
//	awsName "prefix"        a name AWS accepts for a target group or load balancer, unique per run and object
//	ref "group" index       metadata.name of that group's object at index
//	refNamespace "group" i  its namespace
//	add sub mul div mod     integer arithmetic
//	int float bool          conversions (see below)
//
// A template's result is a string: "{{.Index}}" gives "7". A value that is one action ending in a conversion
// gives a JSON number or boolean instead: "{{int (add 8000 .Index)}}" and "{{.Index | int}}" give 8007,
// "{{float ...}}" a number, "{{bool ...}}" true or false. Anything else around the action ("port-{{int
// .Index}}", a space) keeps the string. So a field the schema types as an integer takes "{{int ...}}".
//
// Object i of a group goes to the run's namespace i mod n (Env.Namespaces), so ref between groups of equal or
// proportional counts stays within a namespace; refNamespace names the namespace of a reference across them.
// metadata.name must be templated so that names differ and be a DNS subdomain; metadata.namespace is the
// harness's. Every object gets the labels GroupLabel and IndexLabel.
//
// Compile renders each group's first and last object with a stand-in run, and CompilePatch patches the first,
// so that what would fail for every object fails before the run: a missing field of Data, a ref out of range,
// repeated names, and for a CRD kind what its schema refuses — a field it does not know (which the API server
// would drop without a word), "{{.Index}}" where it wants an integer, a string over its maxLength.
//
// # Conditions
//
// Conditions are CEL, in the environment of Kubernetes' CRD validation rules (its libraries and cost limits),
// over two variables. `object` is the object, typed by its CRD's OpenAPI schema (an unknown field does not
// compile; metadata exposes name, namespace, labels, annotations, generation, finalizers...), dynamic for a
// built-in kind. `aws` is the object's AWS resource (AWSRef) as fakeaws's state types spell it in JSON —
// fakeaws.TargetGroup plus targets (with health), fakeaws.LoadBalancer plus state and listeners,
// fakeaws.Listener plus rules, fakeaws.ListenerRule — or null while it does not exist. A field that is absent
// at run time is an evaluation error, which counts as the condition not holding; CEL's has() and optional
// fields (object.?status.?arn.orValue("")) test for presence.
//
// Three functions reach other objects of the fleet from the same observation as `object`; their first argument
// is a group name or a kind in quotes, which types the result by that kind's schema:
//
//	ref('group', name)          the object of that name in object's namespace, or null
//	owners('group', obj)        the objects obj's ownerReferences name (by uid)
//	selected('group', selector) the objects in object's namespace a label selector (or a map of labels) selects
//
// Check takes them from the objects it is given; an ObjectChange's Applied from the objects a Snapshot carries
// (Snapshot.WithObjects).
//
// # AWS kinds
//
// Each AWS kind an AWSRef may name is one file (awskind_*.go) whose type says its name, the Go type of its
// `aws` value (whose JSON form's schema types the conditions), the ways a reference finds its resource, the
// snapshot keys those values give, how an AWS call names the resource, and how a Snapshot lists the kind
// from AWSState. The kinds are registered in one table, awsKinds; adding one is its file and one line there.
//
// # Creates and deletes
//
// CompileCreate makes a Creator, which makes new objects of a group at indexes after every one made so far;
// CompileDelete a Deleter, which deletes chosen ones. The group's size follows them: Check holds created
// objects to the group's conditions and deleted ones to being gone with their AWS resource.
package objects
