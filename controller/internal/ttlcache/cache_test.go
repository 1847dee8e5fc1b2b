package ttlcache

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func TestExpiry(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(0, 0))
	c := New[string, int](time.Minute, clk)
	c.Set("a", 1)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatal("miss right after Set")
	}
	clk.SetTime(clk.Now().Add(59 * time.Second))
	if _, ok := c.Get("a"); !ok {
		t.Fatal("expired early")
	}
	clk.SetTime(clk.Now().Add(time.Second))
	if _, ok := c.Get("a"); ok {
		t.Fatal("not expired at TTL")
	}
	c.Set("b", 2)
	c.Delete("b")
	if _, ok := c.Get("b"); ok {
		t.Fatal("Delete kept entry")
	}
}

func TestGetFresh(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(0, 0))
	c := New[string, int](time.Minute, clk)
	c.Set("a", 1)
	clk.SetTime(clk.Now().Add(10 * time.Second))
	if _, ok := c.GetFresh("a", 20*time.Second); !ok {
		t.Fatal("10s-old entry not fresh within 20s")
	}
	if _, ok := c.GetFresh("a", 10*time.Second); ok {
		t.Fatal("10s-old entry fresh within 10s")
	}
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatal("GetFresh dropped a live entry")
	}
}
