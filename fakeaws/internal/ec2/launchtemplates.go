package ec2

import (
	"encoding/base64"
	"regexp"
	"slices"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

var ltName = regexp.MustCompile(`^[a-zA-Z0-9().\-/_]{3,128}$`)

// tagSpecs returns the tags of the TagSpecification.N entries for one resource type.
func tagSpecs(f *query.Form, prefix, resourceType string) []state.Tag {
	var out []state.Tag
	for _, p := range f.Members(prefix) {
		if f.Get(p+".ResourceType") == resourceType {
			out = append(out, ec2Tags(f, p+".Tag")...)
		}
	}
	return out
}

// createLaunchTemplate stores the template's data: the fields an instance launches with typed, every
// member of LaunchTemplateData kept as sent.
func (s *Service) createLaunchTemplate(now time.Time, f *query.Form) (any, error) {
	name := f.Get("LaunchTemplateName")
	if name == "" {
		return nil, query.Errorf("MissingParameter", "The request must contain the parameter LaunchTemplateName")
	}
	if !ltName.MatchString(name) {
		return nil, query.Errorf("InvalidLaunchTemplateName.MalformedException", "A launch template name must be between 3 and 128 characters, and may contain letters, numbers, and the following characters: - ( ) . / _.'")
	}
	if !f.Has("LaunchTemplateData") {
		return nil, query.Errorf("MissingParameter", "The request must contain the parameter LaunchTemplateData")
	}
	d := state.LTData{ImageID: f.Get("LaunchTemplateData.ImageId"), InstanceType: f.Get("LaunchTemplateData.InstanceType"),
		UserData: f.Get("LaunchTemplateData.UserData"), SecurityGroupIDs: f.Strings("LaunchTemplateData.SecurityGroupId"),
		IAMInstanceProfileARN: f.Get("LaunchTemplateData.IamInstanceProfile.Arn"),
		IAMInstanceProfile:    f.Get("LaunchTemplateData.IamInstanceProfile.Name"), Members: f.Below("LaunchTemplateData")}
	if len(d.SecurityGroupIDs) == 0 { // groups may come with the primary network interface instead
		d.SecurityGroupIDs = f.Strings("LaunchTemplateData.NetworkInterface.1.SecurityGroupId")
	}
	if d.UserData != "" {
		if _, err := base64.StdEncoding.DecodeString(d.UserData); err != nil {
			return nil, query.Errorf("InvalidUserData.Malformed", "Invalid BASE64 encoding of user data.")
		}
	}
	if d.ImageID != "" {
		if _, ok := ImageByID(d.ImageID); !ok {
			return nil, query.Errorf("InvalidAMIID.NotFound", "The image id '[%s]' does not exist", d.ImageID)
		}
	}
	tags := tagSpecs(f, "TagSpecification", "launch-template")
	if err := validateTags(tags); err != nil {
		return nil, err
	}
	t, err := s.st.CreateLaunchTemplate(state.LaunchTemplate{Name: name, CreatedAt: now, Data: d, Tags: tags,
		CreatedBy: "arn:aws:iam::" + s.st.AccountID() + ":root"})
	if err != nil {
		return nil, err
	}
	return &launchTemplateResponse{LaunchTemplate: wireLT(t)}, nil
}

func wireLT(t state.LaunchTemplate) xLaunchTemplate {
	return xLaunchTemplate{ID: t.ID, Name: t.Name, CreateTime: t.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z"),
		CreatedBy: t.CreatedBy, DefaultVersion: 1, LatestVersion: 1, TagSet: wireTags(t.Tags)}
}

func ltAttrs(t state.LaunchTemplate) attrs {
	return func(name string) ([]string, bool) {
		switch name {
		case "launch-template-name":
			return []string{t.Name}, true
		case "create-time":
			return []string{t.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z")}, true
		}
		return tagAttrs(t.Tags, name)
	}
}

// describeLaunchTemplates lists templates by LaunchTemplateId.N or LaunchTemplateName.N (each must exist)
// and filters (launch-template-name, tag:*, tag-key), paginated by MaxResults (1-200).
func (s *Service) describeLaunchTemplates(_ time.Time, f *query.Form) (any, error) {
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	ids, names := f.Strings("LaunchTemplateId"), f.Strings("LaunchTemplateName")
	for _, id := range ids {
		if _, err := s.st.LaunchTemplate(id, ""); err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		if _, err := s.st.LaunchTemplate("", n); err != nil {
			return nil, query.Errorf("InvalidLaunchTemplateName.NotFoundException", "At least one of the launch templates specified in the request does not exist.")
		}
	}
	var matched []state.LaunchTemplate
	for _, t := range s.st.LaunchTemplates() {
		if (len(ids) > 0 && !slices.Contains(ids, t.ID)) || (len(names) > 0 && !slices.Contains(names, t.Name)) {
			continue
		}
		if ok, err := match(fs, ltAttrs(t)); err != nil {
			return nil, err
		} else if ok {
			matched = append(matched, t)
		}
	}
	start, end, next, err := pageRange(f, len(matched), 1, 200)
	if err != nil {
		return nil, err
	}
	res := &describeLaunchTemplatesResponse{NextToken: next, LaunchTemplates: make([]xLaunchTemplate, 0, end-start)}
	for _, t := range matched[start:end] {
		res.LaunchTemplates = append(res.LaunchTemplates, wireLT(t))
	}
	return res, nil
}

func (s *Service) deleteLaunchTemplate(_ time.Time, f *query.Form) (any, error) {
	id, name := f.Get("LaunchTemplateId"), f.Get("LaunchTemplateName")
	if id == "" && name == "" {
		return nil, query.Errorf("MissingParameter", "The request must contain the parameter launchTemplateName or launchTemplateId")
	}
	t, err := s.st.DeleteLaunchTemplate(id, name)
	if err != nil {
		return nil, err
	}
	return &launchTemplateResponse{LaunchTemplate: wireLT(t)}, nil
}

type xLaunchTemplate struct {
	ID             string `xml:"launchTemplateId"`
	Name           string `xml:"launchTemplateName"`
	CreateTime     string `xml:"createTime"`
	CreatedBy      string `xml:"createdBy"`
	DefaultVersion int64  `xml:"defaultVersionNumber"`
	LatestVersion  int64  `xml:"latestVersionNumber"`
	TagSet         []xTag `xml:"tagSet>item"`
}

type launchTemplateResponse struct {
	query.EC2Meta
	LaunchTemplate xLaunchTemplate `xml:"launchTemplate"`
}

type describeLaunchTemplatesResponse struct {
	query.EC2Meta
	LaunchTemplates []xLaunchTemplate `xml:"launchTemplates>item"`
	NextToken       string            `xml:"nextToken,omitempty"`
}
