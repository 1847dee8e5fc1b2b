package scenario

import (
	"strings"
	"testing"
)

func TestHostedZoneNames(t *testing.T) {
	cases := []struct {
		name    string
		zones   HostedZones
		want    []string
		wantErr string
	}{
		{"indexed", HostedZones{Count: 3, Name: "zone-{{.Index}}.example.com"}, []string{"zone-0.example.com", "zone-1.example.com", "zone-2.example.com"}, ""},
		{"trailing dot dropped", HostedZones{Count: 1, Name: "z{{.Index}}.example.com."}, []string{"z0.example.com"}, ""},
		{"duplicate", HostedZones{Count: 2, Name: "example.com"}, nil, `zones 0 and 1 are both named "example.com"`},
		{"upper case", HostedZones{Count: 1, Name: "Zone{{.Index}}.example.com"}, nil, "is not a domain name"},
		{"one label", HostedZones{Count: 1, Name: "zone{{.Index}}"}, nil, "is not a domain name"},
		{"empty label", HostedZones{Count: 1, Name: "z{{.Index}}..com"}, nil, "is not a domain name"},
		{"long label", HostedZones{Count: 1, Name: strings.Repeat("a", 64) + "{{.Index}}.com"}, nil, "is not a domain name"},
		{"unknown field", HostedZones{Count: 1, Name: "{{.Nope}}.com"}, nil, "can't evaluate field Nope"},
		{"bad template", HostedZones{Count: 1, Name: "{{.Index"}, nil, "unclosed action"},
		// Huge renders stop at the limit instead of filling memory, and the error stays short.
		{"endless name", HostedZones{Count: 1, Name: "{{range 300000}}a{{end}}.example.com"}, nil, "longer than 1024 bytes"},
		{"endless loop", HostedZones{Count: 1, Name: "z{{range 300000000}}{{end}}.example.com"}, nil, "ranges over more than"},
		{"long name quoted short", HostedZones{Count: 1, Name: strings.Repeat("a.", 400) + "com"}, nil, "…(803 bytes)…"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.zones.Names()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("names = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestParseHostedZones: aws.hostedZones is decoded, and its mistakes name the file, line and field.
func TestParseHostedZones(t *testing.T) {
	with := func(zones string) string {
		return strings.Replace(base, "  warmupProfile: unlimited\n", "  warmupProfile: unlimited\n  hostedZones: "+zones+"\n", 1)
	}
	s, err := Parse("t.yaml", []byte(with("{count: 20, name: 'zone-{{.Index}}.example.com'}")))
	if err != nil {
		t.Fatal(err)
	}
	if h := s.AWS.HostedZones; h == nil || h.Count != 20 || h.Name != "zone-{{.Index}}.example.com" {
		t.Fatalf("hostedZones = %+v", s.AWS.HostedZones)
	}
	for _, tc := range []struct{ zones, want string }{
		{"{count: 0, name: 'z{{.Index}}.com'}", "t.yaml:9:17: aws.hostedZones.count: must be between 1 and 500, got 0"},
		{"{count: 501, name: 'z{{.Index}}.com'}", "aws.hostedZones.count: must be between 1 and 500"},
		{"{count: 2}", "aws.hostedZones.name: required"},
		{"{count: 2, name: example.com}", `aws.hostedZones.name: zones 0 and 1 are both named "example.com"`},
		{"{count: 2, name: 'z{{.Index}}.com', ttl: 3}", `aws.hostedZones.ttl: unknown field`},
	} {
		_, err := Parse("t.yaml", []byte(with(tc.zones)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.zones, err, tc.want)
			continue
		}
		assertPlaced(t, err)
	}
}

// FuzzHostedZoneNames: any template either fails or yields count distinct domain names.
func FuzzHostedZoneNames(f *testing.F) {
	for _, s := range []string{"zone-{{.Index}}.example.com", "example.com", "{{.Index}}.{{.Index}}.io.", "{{if .Index}}a{{end}}.b", "{{.Index"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, name string, count int) {
		if count < 1 || count > 50 {
			return
		}
		names, err := (&HostedZones{Count: count, Name: name}).Names()
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, n := range names {
			if !dnsName.MatchString(n) || seen[n] {
				t.Fatalf("template %q gave %q (names %v)", name, n, names)
			}
			seen[n] = true
		}
		if len(names) != count {
			t.Fatalf("%d names, want %d", len(names), count)
		}
	})
}
