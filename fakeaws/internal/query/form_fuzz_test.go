package query

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseForm: ParseForm never panics, accepts only forms within its limits and valid UTF-8, and after
// CheckLists every list reads back whole through Members.
func FuzzParseForm(f *testing.F) {
	for _, s := range []string{
		"Action=DescribeTargetGroups&Version=2015-12-01&TargetGroupArns.member.1=arn",
		"Targets.member.1.Id=10.0.0.1&Targets.member.1.Port=80&Targets.member.2.Id=10.0.0.2",
		"IpPermissions.1.IpRanges.1.Description=%E2%9C%93&IpPermissions.1.IpRanges.2.CidrIp=10.0.0.0%2F8",
		"TargetGroupArns.member.999999999=x",
		"a.b.c.d.e.f.g.h.i.j.k=1",
		"GroupDescription=%FF",
		"a=1;b=2",
		"%zz=1",
	} {
		f.Add(s, "")
	}
	f.Add("Action=DescribeVpcs", "Version=2016-11-15&VpcId.1=vpc-1")
	lim := Limits{MaxParams: 64, MaxKeyBytes: 64, MaxDepth: 6}
	f.Fuzz(func(t *testing.T, body, rawQuery string) {
		form, err := ParseForm([]byte(body), rawQuery, lim)
		if err != nil {
			var fe *FormError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FormError", err)
			}
			return
		}
		if form.Len() > lim.MaxParams {
			t.Fatalf("%d keys accepted, limit %d", form.Len(), lim.MaxParams)
		}
		for k, vs := range form.values {
			if len(k) > lim.MaxKeyBytes || strings.Count(k, ".") >= lim.MaxDepth || !utf8.ValidString(k) {
				t.Fatalf("key %q accepted", k)
			}
			for _, v := range vs {
				if !utf8.ValidString(v) {
					t.Fatalf("value %q accepted", v)
				}
			}
		}
		if form.CheckLists() != nil {
			return
		}
		for k := range form.values {
			for i := strings.LastIndexByte(k, '.'); i > 0; i = strings.LastIndexByte(k[:i], '.') {
				seg := k[i+1:]
				if j := strings.IndexByte(seg, '.'); j >= 0 {
					seg = seg[:j]
				}
				n, err := strconv.Atoi(seg)
				if err != nil {
					continue
				}
				if got := len(form.Members(k[:i])); got < n {
					t.Fatalf("%q present but Members(%q) has %d elements", k, k[:i], got)
				}
			}
		}
	})
}
