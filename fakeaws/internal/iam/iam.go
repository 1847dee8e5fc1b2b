// Package iam implements the IAM (2010-05-08) operations a node provisioner calls to give its nodes a role:
// instance profiles (create, get, list, tag, delete), the one role each may hold, and GetRole. Roles are
// seeded by the harness; IAM is global, so the state belongs to the account, not the region.
package iam

import (
	"crypto/sha256"
	"encoding/base32"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// Version is the API version this package speaks.
const Version = "2010-05-08"

// IAM's documented quotas that a caller can reach here.
const (
	MaxInstanceProfiles = 1000 // instance profiles per account
	MaxTags             = 50   // tags per IAM resource
	rolesPerProfile     = 1    // InstanceSessionsPerInstanceProfile
)

// namePattern is IAM's pattern for role and instance profile names: 1 to 128 of [\w+=,.@-].
var namePattern = regexp.MustCompile(`^[\w+=,.@-]{1,128}$`)

// Role is an IAM role as GetRole and instance profiles describe it.
type Role struct {
	Path                     string    `xml:"Path" json:"path"`
	RoleName                 string    `xml:"RoleName" json:"roleName"`
	RoleId                   string    `xml:"RoleId" json:"roleId"`
	Arn                      string    `xml:"Arn" json:"arn"`
	CreateDate               time.Time `xml:"CreateDate" json:"createDate"`
	AssumeRolePolicyDocument string    `xml:"AssumeRolePolicyDocument,omitempty" json:"assumeRolePolicyDocument,omitempty"`
}

// Tag is a key and value on an IAM resource.
type Tag struct {
	Key   string `xml:"Key" json:"key"`
	Value string `xml:"Value" json:"value"`
}

// InstanceProfile is an instance profile as IAM describes it.
type InstanceProfile struct {
	Path                string    `xml:"Path" json:"path"`
	InstanceProfileName string    `xml:"InstanceProfileName" json:"instanceProfileName"`
	InstanceProfileId   string    `xml:"InstanceProfileId" json:"instanceProfileId"`
	Arn                 string    `xml:"Arn" json:"arn"`
	CreateDate          time.Time `xml:"CreateDate" json:"createDate"`
	Roles               []Role    `xml:"Roles>member" json:"roles"`
	Tags                []Tag     `xml:"Tags>member,omitempty" json:"tags,omitempty"`
}

// Service holds the account's roles and instance profiles.
type Service struct {
	accountID string
	ops       map[string]query.Handler

	mu       sync.Mutex
	roles    map[string]*Role
	profiles map[string]*InstanceProfile
}

// New returns the IAM API of the account accountID, with no roles and no instance profiles.
func New(accountID string) *Service {
	s := &Service{accountID: accountID, roles: map[string]*Role{}, profiles: map[string]*InstanceProfile{}}
	s.ops = map[string]query.Handler{
		"GetRole": s.getRole, "GetInstanceProfile": s.getInstanceProfile, "CreateInstanceProfile": s.createInstanceProfile,
		"DeleteInstanceProfile": s.deleteInstanceProfile, "AddRoleToInstanceProfile": s.addRole,
		"RemoveRoleFromInstanceProfile": s.removeRole, "TagInstanceProfile": s.tagInstanceProfile,
		"ListInstanceProfiles": s.listInstanceProfiles,
	}
	return s
}

// Lookup returns the handler of an action.
func (s *Service) Lookup(action string) (query.Handler, bool) {
	h, ok := s.ops[action]
	return h, ok
}

// Operations lists the supported actions, sorted.
func (s *Service) Operations() []string { return query.Operations(s.ops) }

// SeedRole adds a role (path "/" unless given) and returns it as IAM describes it; an existing name is
// EntityAlreadyExists.
func (s *Service) SeedRole(name, path, assumeRolePolicy string, now time.Time) (Role, error) {
	if path == "" {
		path = "/"
	}
	if e := checkName("roleName", name); e != nil {
		return Role{}, e
	}
	if e := checkPath(path); e != nil {
		return Role{}, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.roles[name]; ok {
		return Role{}, query.Errorf("EntityAlreadyExists", "Role with name %s already exists.", name)
	}
	r := &Role{Path: path, RoleName: name, RoleId: uniqueID("AROA", s.accountID, "role/"+name),
		Arn: "arn:aws:iam::" + s.accountID + ":role" + path + name, CreateDate: now.UTC().Truncate(time.Second),
		AssumeRolePolicyDocument: assumeRolePolicy}
	s.roles[name] = r
	return *r, nil
}

// Roles lists the roles by name.
func (s *Service) Roles() []Role {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Role, 0, len(s.roles))
	for _, r := range s.roles {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RoleName < out[j].RoleName })
	return out
}

// ProfileARN returns the ARN of the instance profile name, or "".
func (s *Service) ProfileARN(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.profiles[name]; ok {
		return p.Arn
	}
	return ""
}

// InstanceProfiles lists the instance profiles by name.
func (s *Service) InstanceProfiles() []InstanceProfile {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sortedProfiles("/")
}

func (s *Service) sortedProfiles(pathPrefix string) []InstanceProfile {
	out := make([]InstanceProfile, 0, len(s.profiles))
	for _, p := range s.profiles {
		if strings.HasPrefix(p.Path, pathPrefix) {
			out = append(out, clone(p))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].InstanceProfileName < out[j].InstanceProfileName })
	return out
}

func clone(p *InstanceProfile) InstanceProfile {
	c := *p
	c.Roles = append([]Role{}, p.Roles...)
	c.Tags = append([]Tag(nil), p.Tags...)
	return c
}

func checkName(field, name string) *query.Error {
	if !namePattern.MatchString(name) {
		return query.Errorf("ValidationError", "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+ and have length between 1 and 128", name, field)
	}
	return nil
}

// checkPath applies IAM's path rule: a slash, or slash-separated segments that begin and end with one, at
// most 512 characters of printable ASCII.
func checkPath(path string) *query.Error {
	ok := len(path) <= 512 && strings.HasPrefix(path, "/") && strings.HasSuffix(path, "/") && !strings.Contains(path, "//")
	for _, c := range path {
		ok = ok && c > 0x20 && c < 0x7f
	}
	if !ok {
		return query.Errorf("ValidationError", "The specified value for path is invalid. It must begin and end with / and contain only alphanumeric characters and/or / characters.")
	}
	return nil
}

// uniqueID is an IAM unique ID: its kind's prefix and 17 characters of [A-Z2-7] drawn from what it names, so
// that a name always gets the same ID.
func uniqueID(prefix, accountID, name string) string {
	sum := sha256.Sum256([]byte(accountID + "/" + name))
	return prefix + base32.StdEncoding.EncodeToString(sum[:])[:17]
}
