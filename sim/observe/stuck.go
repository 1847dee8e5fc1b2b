package observe

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

// Conditions watches the objects' error conditions for a controller that gave up: every object that
// carries one carries the same message, and no object changed for Window.
type Conditions struct {
	Window time.Duration

	rvs     map[k8stypes.UID]string
	changed time.Time // when an object last changed (or appeared or went)
}

// Observe takes every watched object at now. It returns the message every object carrying an error
// condition carries and how many carry it, once none changed for Window; "" otherwise.
func (d *Conditions) Observe(now time.Time, objs []*unstructured.Unstructured) (string, int) {
	if d.rvs == nil {
		d.rvs, d.changed = map[k8stypes.UID]string{}, now
	}
	seen := make(map[k8stypes.UID]bool, len(objs))
	msg, n := "", 0
	for _, o := range objs {
		seen[o.GetUID()] = true
		if d.rvs[o.GetUID()] != o.GetResourceVersion() {
			d.rvs[o.GetUID()], d.changed = o.GetResourceVersion(), now
		}
		m := errorCondition(o)
		switch {
		case n < 0 || m == "":
		case msg == "" || m == msg:
			msg, n = m, n+1
		default:
			msg, n = "", -1 // two messages: not one cause
		}
	}
	for uid := range d.rvs {
		if !seen[uid] {
			delete(d.rvs, uid)
			d.changed = now
		}
	}
	if n <= 0 || now.Sub(d.changed) < d.Window {
		return "", 0
	}
	return msg, n
}

// errorCondition is "Type: message" of an object's first True condition that reports an error (ACK's
// ACK.Terminal and ACK.Recoverable, or a type naming an error or failure), "" when none does.
func errorCondition(o *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		typ, _ := m["type"].(string)
		status, _ := m["status"].(string)
		msg, _ := m["message"].(string)
		if status == "True" && msg != "" && errorType(typ) {
			return typ + ": " + msg
		}
	}
	return ""
}

func errorType(t string) bool {
	l := strings.ToLower(t)
	return strings.HasSuffix(l, "terminal") || strings.HasSuffix(l, "recoverable") || strings.Contains(l, "error") || strings.Contains(l, "fail")
}

// StuckError says that every object the controller has not made ready carries the same error, unchanged,
// while the controller made no AWS call that succeeded or was throttled.
type StuckError struct {
	Message  string
	Objects  int
	Window   time.Duration
	Refusals *RefusedError // the refusals meanwhile, if any
}

func (e *StuckError) Error() string {
	msg := fmt.Sprintf("the controller makes no progress: all %d objects it has not made ready carry the condition %q, "+
		"unchanged for %s, and none of its AWS calls meanwhile succeeded", e.Objects, e.Message, e.Window.Round(time.Second))
	if e.Refusals != nil {
		msg += "; " + e.Refusals.Error()
	}
	return msg
}
