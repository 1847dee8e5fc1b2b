// Package ec2 implements the EC2 (2016-11-15) operations fakeaws serves, over the state store.
package ec2

import (
	"encoding/base64"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// Version is the API version whose response shapes this package writes.
const Version = "2016-11-15"

// Handler is query.Handler; it runs one operation at scenario time now and returns the response body (embedding query.EC2Meta).
type Handler = query.Handler

// Service is the EC2 API over a store.
type Service struct {
	st  *state.Store
	ops map[string]Handler
	// ProfileARN, when set, returns the ARN of an IAM instance profile by name ("" for none), so that an
	// instance launched with a profile's name carries its ARN with the profile's path.
	ProfileARN func(name string) string
}

// New returns the service.
func New(st *state.Store) *Service {
	s := &Service{st: st}
	s.ops = map[string]Handler{
		"CreateSecurityGroup":           s.createSecurityGroup,
		"DeleteSecurityGroup":           s.deleteSecurityGroup,
		"DescribeSecurityGroups":        s.describeSecurityGroups,
		"AuthorizeSecurityGroupIngress": s.authorizeIngress,
		"RevokeSecurityGroupIngress":    s.revokeIngress,
		"DescribeInstances":             s.describeInstances,
		"DescribeNetworkInterfaces":     s.describeNetworkInterfaces,
		"DescribeVpcs":                  s.describeVpcs,
		"DescribeSubnets":               s.describeSubnets,
		"DescribeAvailabilityZones":     s.describeAvailabilityZones,
		"CreateTags":                    s.createTags,
		"DeleteTags":                    s.deleteTags,
		"DescribeInstanceTypes":         s.describeInstanceTypes,
		"DescribeInstanceTypeOfferings": s.describeInstanceTypeOfferings,
		"DescribeSpotPriceHistory":      s.describeSpotPriceHistory,
		"DescribeImages":                s.describeImages,
		"CreateLaunchTemplate":          s.createLaunchTemplate,
		"DescribeLaunchTemplates":       s.describeLaunchTemplates,
		"DeleteLaunchTemplate":          s.deleteLaunchTemplate,
		"CreateFleet":                   s.createFleet,
		"RunInstances":                  s.runInstances,
		"TerminateInstances":            s.terminateInstances,
		"DescribeInstanceStatus":        s.describeInstanceStatus,
	}
	return s
}

// Lookup returns the handler of an action, wrapped with EC2's DryRun check.
func (s *Service) Lookup(action string) (Handler, bool) {
	h, ok := s.ops[action]
	if !ok {
		return nil, false
	}
	return func(now time.Time, f *query.Form) (any, error) {
		if dry, err := f.Bool("DryRun", false); err != nil {
			return nil, query.Errorf("InvalidParameterValue", "Value (%s) for parameter dryRun is invalid", f.Get("DryRun"))
		} else if dry {
			return nil, query.Errorf("DryRunOperation", "Request would have succeeded, but DryRun flag is set.")
		}
		return h(now, f)
	}, true
}

// Operations lists the supported actions, sorted.
func (s *Service) Operations() []string { return query.Operations(s.ops) }

// idLists are the parameters by which describe calls name resources.
var idLists = []string{"InstanceId", "NetworkInterfaceId", "GroupId", "GroupName", "VpcId", "SubnetId"}

// Unfiltered reports whether a describe call carries no filter, no ID list and no MaxResults (AWS charges those
// to a smaller bucket).
func Unfiltered(f *query.Form) bool {
	for _, k := range append([]string{"Filter", "MaxResults", "NextToken"}, idLists...) {
		if f.Has(k) || f.Has(k+".1") {
			return false
		}
	}
	return true
}

// ResourceTokens is how many resource tokens AWS charges a call, one per instance: RunInstances' MaxCount,
// TerminateInstances' instance IDs (CreateFleet has no resource bucket).
func ResourceTokens(action string, f *query.Form) int {
	var n int64
	switch action {
	case "RunInstances":
		n, _, _ = f.Int("MaxCount")
	case "TerminateInstances":
		n = int64(len(f.Members("InstanceId")))
	}
	return int(n)
}

// FilterNames are the names of a call's filters in request order, for the call log: which filters a
// controller sends decides what each call costs it and AWS.
func FilterNames(f *query.Form) []string {
	var out []string
	for _, p := range f.Members("Filter") {
		out = append(out, f.Get(p+".Name"))
	}
	return out
}

// ResourceIDs is how many resources a describe call names by ID (InstanceId.N, NetworkInterfaceId.N, ...).
func ResourceIDs(f *query.Form) int {
	n := 0
	for _, k := range idLists {
		n += len(f.Members(k))
	}
	return n
}

// filter is one Filter.N entry.
type filter struct {
	name   string
	values []string
}

func filters(f *query.Form) ([]filter, error) {
	var out []filter
	for _, p := range f.Members("Filter") {
		fl := filter{name: f.Get(p + ".Name"), values: f.Strings(p + ".Value")}
		if fl.name == "" {
			return nil, query.Errorf("InvalidParameterValue", "The filter name must not be empty")
		}
		out = append(out, fl)
	}
	return out, nil
}

// attrs returns the values of a filter name for one resource; known is false for unsupported names.
type attrs func(name string) (values []string, known bool)

func tagAttrs(tags []state.Tag, name string) ([]string, bool) {
	if k, ok := strings.CutPrefix(name, "tag:"); ok {
		for _, t := range tags {
			if t.Key == k {
				return []string{t.Value}, true
			}
		}
		return nil, true
	}
	if name == "tag-key" {
		out := make([]string, 0, len(tags))
		for _, t := range tags {
			out = append(out, t.Key)
		}
		return out, true
	}
	if name == "tag-value" {
		out := make([]string, 0, len(tags))
		for _, t := range tags {
			out = append(out, t.Value)
		}
		return out, true
	}
	return nil, false
}

// match applies all filters (AND across filters, OR across a filter's values, * and ? wildcards).
func match(fs []filter, a attrs) (bool, error) {
	for _, fl := range fs {
		have, known := a(fl.name)
		if !known {
			return false, query.Errorf("InvalidParameterValue", "The filter '%s' is invalid", fl.name)
		}
		ok := false
		for _, want := range fl.values {
			for _, h := range have {
				if m, err := path.Match(want, h); (err == nil && m) || want == h {
					ok = true
				}
			}
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// page validates MaxResults/NextToken (5-1000, and not with an ID list) and returns the [start, end)
// window over n items and the next token.
func page(f *query.Form, n int, ids bool) (start, end int, next string, err error) {
	if ids && f.Has("MaxResults") {
		return 0, 0, "", query.Errorf("InvalidParameterCombination", "The parameter IDs cannot be used with the parameter maxResults")
	}
	return pageRange(f, n, 5, 1000)
}

// pageRange is page with the operation's own MaxResults bounds.
func pageRange(f *query.Form, n, lo, hi int) (start, end int, next string, err error) {
	max, hasMax, perr := f.Int("MaxResults")
	if perr != nil || (hasMax && (max < int64(lo) || max > int64(hi))) {
		return 0, 0, "", query.Errorf("InvalidParameterValue", "Value ( %s ) for parameter maxResults is invalid. Parameter must be between %d and %d.", f.Get("MaxResults"), lo, hi)
	}
	if tok := f.Get("NextToken"); tok != "" {
		b, derr := base64.RawURLEncoding.DecodeString(tok)
		if derr != nil || len(b) < 2 || b[0] != 'o' {
			return 0, 0, "", query.Errorf("InvalidParameterValue", "Invalid value '%s' for nextToken", tok)
		}
		if start, derr = strconv.Atoi(string(b[1:])); derr != nil || start < 0 {
			return 0, 0, "", query.Errorf("InvalidParameterValue", "Invalid value '%s' for nextToken", tok)
		}
		start = min(start, n)
	}
	end = n
	if hasMax {
		end = min(start+int(max), n)
	}
	if end < n {
		next = base64.RawURLEncoding.EncodeToString([]byte("o" + strconv.Itoa(end)))
	}
	return start, end, next, nil
}

func ec2Tags(f *query.Form, prefix string) []state.Tag {
	var out []state.Tag
	for _, p := range f.Members(prefix) {
		out = append(out, state.Tag{Key: f.Get(p + ".Key"), Value: f.Get(p + ".Value")})
	}
	return out
}

func validateTags(ts []state.Tag) error {
	for _, t := range ts {
		if t.Key == "" || len(t.Key) > 128 || len(t.Value) > 256 {
			return query.Errorf("InvalidParameterValue", "Tag keys must be 1-128 characters and values at most 256")
		}
		if strings.HasPrefix(strings.ToLower(t.Key), "aws:") {
			return query.Errorf("InvalidParameterValue", "Tag keys starting with 'aws:' are reserved for internal use")
		}
	}
	return nil
}

func (s *Service) createTags(_ time.Time, f *query.Form) (any, error) {
	ids := f.Strings("ResourceId")
	if len(ids) == 0 {
		return nil, query.Errorf("MissingParameter", "The request must contain the parameter resourceIdSet")
	}
	ts := ec2Tags(f, "Tag")
	if len(ts) == 0 {
		return nil, query.Errorf("MissingParameter", "The request must contain the parameter tagSet")
	}
	if err := validateTags(ts); err != nil {
		return nil, err
	}
	if err := s.st.CreateTags(ids, ts); err != nil {
		return nil, err
	}
	return &returnResponse{Return: true}, nil
}

type returnResponse struct {
	query.EC2Meta
	Return bool `xml:"return"`
}
