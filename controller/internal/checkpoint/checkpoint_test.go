package checkpoint

import (
	"testing"
	"time"
)

type spec struct {
	ARN  string `json:"arn"`
	Port int    `json:"port"`
}

func TestHashEndpoints(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_123)
	a := IPEndpointID("10.0.0.1", 80, t0)
	b := IPEndpointID("10.0.0.2", 80, t0)
	base := HashEndpoints([]string{a, b})
	if got := HashEndpoints([]string{b, a}); got != base {
		t.Fatalf("order-dependent hash: %s != %s", got, base)
	}
	for name, ids := range map[string][]string{
		"ip":            {IPEndpointID("10.0.0.3", 80, t0), b},
		"port":          {IPEndpointID("10.0.0.1", 81, t0), b},
		"pod creation":  {IPEndpointID("10.0.0.1", 80, t0.Add(time.Millisecond)), b},
		"endpoint gone": {b},
		"instance":      {InstanceEndpointID("i-1", 80, t0), b},
	} {
		if got := HashEndpoints(ids); got == base {
			t.Errorf("%s: hash did not change", name)
		}
	}
	if len(base) != 43 {
		t.Errorf("hash %q: want 43 chars of unpadded base64url", base)
	}
}

func TestComputeSpec(t *testing.T) {
	ids := []string{"10.0.0.1:80:1"}
	a, err := Compute(ids, spec{ARN: "arn:a", Port: 80})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Compute(ids, spec{ARN: "arn:a", Port: 80})
	c, _ := Compute(ids, spec{ARN: "arn:a", Port: 81})
	if a != b {
		t.Fatal("same input, different checkpoints")
	}
	if a.SpecHash == c.SpecHash || a.EndpointsHash != c.EndpointsHash {
		t.Fatalf("spec change: %v vs %v", a, c)
	}
}

func apply(a map[string]string, patch map[string]*string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range patch {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	return out
}

func TestCodecs(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	cp, _ := Compute([]string{"x"}, spec{})
	other, _ := Compute([]string{"y"}, spec{})
	for name, c := range map[string]Codec{"upstream": Upstream{}, "compact": Compact{}} {
		t.Run(name, func(t *testing.T) {
			a := apply(nil, c.Save(cp, now))
			if !c.Matches(a, cp) || c.Matches(a, other) || !IsSet(a) {
				t.Fatalf("saved %v: match wrong", a)
			}
			if ts, ok := c.Timestamp(a); !ok || !ts.Equal(now) {
				t.Fatalf("timestamp %v %v", ts, ok)
			}
			r := apply(a, c.Reset(now))
			if c.Matches(r, cp) || IsSet(r) || r[AnnotationCheckpoint] != "" {
				t.Fatalf("reset %v still matches", r)
			}
		})
	}
	// compact reads the upstream form.
	up := apply(nil, Upstream{}.Save(cp, now))
	if !(Compact{}).Matches(up, cp) {
		t.Fatal("compact does not read the upstream form")
	}
	// and writing compact over upstream drops the timestamp annotation.
	co := apply(up, Compact{}.Save(cp, now))
	if _, ok := co[AnnotationTimestamp]; ok || len(co) != 1 {
		t.Fatalf("compact save left %v", co)
	}
	if (Upstream{}).Matches(co, cp) {
		t.Fatal("upstream must not match the compact form")
	}
}
