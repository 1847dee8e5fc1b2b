package state

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// LaunchTemplate is an EC2 launch template with its one version's data.
type LaunchTemplate struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
	CreatedBy string    `json:"createdBy"`
	Data      LTData    `json:"data"`
	Tags      []Tag     `json:"tags,omitempty"`
}

// LTData is a launch template's LaunchTemplateData: the fields an instance launches with, and every
// other member as the request sent it (block devices, network interfaces, metadata options, tag
// specifications), keyed by its path under LaunchTemplateData.
type LTData struct {
	ImageID               string            `json:"imageId,omitempty"`
	InstanceType          string            `json:"instanceType,omitempty"`
	UserData              string            `json:"userData,omitempty"`
	SecurityGroupIDs      []string          `json:"securityGroupIds,omitempty"`
	IAMInstanceProfileARN string            `json:"iamInstanceProfileArn,omitempty"`
	IAMInstanceProfile    string            `json:"iamInstanceProfileName,omitempty"`
	Members               map[string]string `json:"members,omitempty"`
}

func cloneLaunchTemplate(t *LaunchTemplate) LaunchTemplate {
	c := *t
	c.Tags = cloneTags(t.Tags)
	c.Data.SecurityGroupIDs = slices.Clone(t.Data.SecurityGroupIDs)
	c.Data.Members = maps.Clone(t.Data.Members)
	return c
}

// CreateLaunchTemplate stores a new template; names are unique in the region.
func (s *Store) CreateLaunchTemplate(t LaunchTemplate) (LaunchTemplate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.lts {
		if o.Name == t.Name {
			return LaunchTemplate{}, query.Errorf("InvalidLaunchTemplateName.AlreadyExistsException",
				"Launch template name already in use.")
		}
	}
	t.ID = s.newID("lt-", 17)
	s.lts[t.ID] = &t
	return cloneLaunchTemplate(&t), nil
}

// LaunchTemplates returns every template sorted by ID.
func (s *Store) LaunchTemplates() []LaunchTemplate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return inOrder(s.lts, sortedKeys(s.lts), cloneLaunchTemplate)
}

// LaunchTemplate finds a template by ID or, when id is empty, by name. The error is AWS's for a
// template that does not exist.
func (s *Store) LaunchTemplate(id, name string) (LaunchTemplate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.findLT(id, name)
	if err != nil {
		return LaunchTemplate{}, err
	}
	return cloneLaunchTemplate(t), nil
}

func (s *Store) findLT(id, name string) (*LaunchTemplate, error) {
	if id != "" {
		if t, ok := s.lts[id]; ok {
			return t, nil
		}
		if !strings.HasPrefix(id, "lt-") {
			return nil, query.Errorf("InvalidLaunchTemplateId.Malformed", "The specified ID for the launch template (%s) is not valid.", id)
		}
		return nil, query.Errorf("InvalidLaunchTemplateId.NotFound", "The specified launch template, with template ID %s, does not exist.", id)
	}
	for _, t := range s.lts {
		if t.Name == name {
			return t, nil
		}
	}
	return nil, query.Errorf("InvalidLaunchTemplateName.NotFoundException", "The specified launch template, with template name %s, does not exist.", name)
}

// DeleteLaunchTemplate removes a template by ID or name and returns it.
func (s *Store) DeleteLaunchTemplate(id, name string) (LaunchTemplate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.findLT(id, name)
	if err != nil {
		return LaunchTemplate{}, err
	}
	delete(s.lts, t.ID)
	return cloneLaunchTemplate(t), nil
}
