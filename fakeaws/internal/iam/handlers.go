package iam

import (
	"sort"
	"strconv"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

type roleResult struct {
	Role Role `xml:"Role"`
}

type profileResult struct {
	InstanceProfile InstanceProfile `xml:"InstanceProfile"`
}

type listResult struct {
	InstanceProfiles []InstanceProfile `xml:"InstanceProfiles>member"`
	IsTruncated      bool              `xml:"IsTruncated"`
	Marker           string            `xml:"Marker,omitempty"`
}

func noSuchProfile(name string) *query.Error {
	return query.Errorf("NoSuchEntity", "Instance Profile %s cannot be found.", name)
}

func noSuchRole(name string) *query.Error {
	return query.Errorf("NoSuchEntity", "The role with name %s cannot be found.", name)
}

// required reads a name parameter IAM requires, checked against its name pattern.
func required(f *query.Form, key, field string) (string, *query.Error) {
	v := f.Get(key)
	if v == "" {
		return "", query.Errorf("ValidationError", "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	return v, checkName(field, v)
}

func (s *Service) getRole(_ time.Time, f *query.Form) (any, error) {
	name, e := required(f, "RoleName", "roleName")
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.roles[name]
	if !ok {
		return nil, noSuchRole(name)
	}
	return roleResult{Role: *r}, nil
}

func (s *Service) getInstanceProfile(_ time.Time, f *query.Form) (any, error) {
	name, e := required(f, "InstanceProfileName", "instanceProfileName")
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.profiles[name]
	if !ok {
		return nil, noSuchProfile(name)
	}
	return profileResult{InstanceProfile: clone(p)}, nil
}

func (s *Service) createInstanceProfile(now time.Time, f *query.Form) (any, error) {
	name, e := required(f, "InstanceProfileName", "instanceProfileName")
	if e != nil {
		return nil, e
	}
	path := f.Get("Path")
	if path == "" {
		path = "/"
	}
	if e := checkPath(path); e != nil {
		return nil, e
	}
	tags, e := formTags(f)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.profiles[name]; ok {
		return nil, query.Errorf("EntityAlreadyExists", "Instance Profile %s already exists.", name)
	}
	if len(s.profiles) >= MaxInstanceProfiles {
		return nil, query.Errorf("LimitExceeded", "Cannot exceed quota for InstanceProfilesPerAccount: %d", MaxInstanceProfiles)
	}
	p := &InstanceProfile{Path: path, InstanceProfileName: name,
		InstanceProfileId: uniqueID("AIPA", s.accountID, "instance-profile/"+name+"@"+now.String()),
		Arn:               "arn:aws:iam::" + s.accountID + ":instance-profile" + path + name,
		CreateDate:        now.UTC().Truncate(time.Second), Roles: []Role{}, Tags: tags}
	s.profiles[name] = p
	return profileResult{InstanceProfile: clone(p)}, nil
}

func (s *Service) deleteInstanceProfile(_ time.Time, f *query.Form) (any, error) {
	name, e := required(f, "InstanceProfileName", "instanceProfileName")
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.profiles[name]
	switch {
	case !ok:
		return nil, noSuchProfile(name)
	case len(p.Roles) > 0:
		return nil, query.Errorf("DeleteConflict", "Cannot delete entity, must remove roles from instance profile first.")
	}
	delete(s.profiles, name)
	return nil, nil
}

// profileAndRole resolves the two names AddRoleToInstanceProfile and RemoveRoleFromInstanceProfile take; the
// caller holds s.mu.
func (s *Service) profileAndRole(f *query.Form) (*InstanceProfile, string, *query.Error) {
	name, e := required(f, "InstanceProfileName", "instanceProfileName")
	if e != nil {
		return nil, "", e
	}
	role, e := required(f, "RoleName", "roleName")
	if e != nil {
		return nil, "", e
	}
	p, ok := s.profiles[name]
	if !ok {
		return nil, "", noSuchProfile(name)
	}
	return p, role, nil
}

func (s *Service) addRole(_ time.Time, f *query.Form) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, role, e := s.profileAndRole(f)
	if e != nil {
		return nil, e
	}
	r, ok := s.roles[role]
	switch {
	case !ok:
		return nil, noSuchRole(role)
	case len(p.Roles) >= rolesPerProfile:
		return nil, query.Errorf("LimitExceeded", "Cannot exceed quota for InstanceSessionsPerInstanceProfile: %d", rolesPerProfile)
	}
	p.Roles = append(p.Roles, *r)
	return nil, nil
}

func (s *Service) removeRole(_ time.Time, f *query.Form) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, role, e := s.profileAndRole(f)
	if e != nil {
		return nil, e
	}
	for i, r := range p.Roles {
		if r.RoleName == role {
			p.Roles = append(p.Roles[:i], p.Roles[i+1:]...)
			return nil, nil
		}
	}
	if _, ok := s.roles[role]; !ok {
		return nil, noSuchRole(role)
	}
	return nil, query.Errorf("NoSuchEntity", "The role with name %s cannot be found in instance profile %s.", role, p.InstanceProfileName)
}

func (s *Service) tagInstanceProfile(_ time.Time, f *query.Form) (any, error) {
	name, e := required(f, "InstanceProfileName", "instanceProfileName")
	if e != nil {
		return nil, e
	}
	tags, e := formTags(f)
	if e != nil {
		return nil, e
	}
	if len(tags) == 0 {
		return nil, query.Errorf("ValidationError", "1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.profiles[name]
	if !ok {
		return nil, noSuchProfile(name)
	}
	merged := mergeTags(p.Tags, tags)
	if len(merged) > MaxTags {
		return nil, query.Errorf("LimitExceeded", "Cannot exceed quota for TagsPerInstanceProfile: %d", MaxTags)
	}
	p.Tags = merged
	return nil, nil
}

// listInstanceProfiles pages by MaxItems (default 100, at most 1,000) in name order; the marker is the last
// name of the page before.
func (s *Service) listInstanceProfiles(_ time.Time, f *query.Form) (any, error) {
	prefix := f.Get("PathPrefix")
	if prefix == "" {
		prefix = "/"
	}
	maxItems := 100
	if v := f.Get("MaxItems"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return nil, query.Errorf("ValidationError", "1 validation error detected: Value '%s' at 'maxItems' failed to satisfy constraint: Member must have value between 1 and 1000", v)
		}
		maxItems = n
	}
	s.mu.Lock()
	all := s.sortedProfiles(prefix)
	s.mu.Unlock()
	marker := f.Get("Marker")
	start := sort.Search(len(all), func(i int) bool { return marker == "" || all[i].InstanceProfileName > marker })
	out := listResult{InstanceProfiles: all[start:min(len(all), start+maxItems)]}
	if start+maxItems < len(all) {
		out.IsTruncated, out.Marker = true, out.InstanceProfiles[len(out.InstanceProfiles)-1].InstanceProfileName
	}
	return out, nil
}

// formTags reads Tags.member.N.Key/Value: keys of 1 to 128 characters, values of at most 256, at most 50.
func formTags(f *query.Form) ([]Tag, *query.Error) {
	var tags []Tag
	for _, m := range f.Members("Tags.member") {
		t := Tag{Key: f.Get(m + ".Key"), Value: f.Get(m + ".Value")}
		if t.Key == "" || len(t.Key) > 128 || len(t.Value) > 256 {
			return nil, query.Errorf("ValidationError", "Tag key must be 1 to 128 characters and its value at most 256: '%s'", t.Key)
		}
		tags = mergeTags(tags, []Tag{t})
	}
	if len(tags) > MaxTags {
		return nil, query.Errorf("LimitExceeded", "Cannot exceed quota for TagsPerInstanceProfile: %d", MaxTags)
	}
	return tags, nil
}

// mergeTags sets each of add on tags, replacing the value of a key already there.
func mergeTags(tags, add []Tag) []Tag {
	out := append([]Tag(nil), tags...)
	for _, t := range add {
		replaced := false
		for i := range out {
			if out[i].Key == t.Key {
				out[i].Value, replaced = t.Value, true
			}
		}
		if !replaced {
			out = append(out, t)
		}
	}
	return out
}
