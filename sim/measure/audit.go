package measure

import (
	"bufio"
	"encoding/json"
	"os"
	"time"
)

// auditLine is the part of an audit.k8s.io/v1 Event the measurements use.
type auditLine struct {
	Stage                    string                    `json:"stage"`
	Verb                     string                    `json:"verb"`
	User                     struct{ Username string } `json:"user"`
	RequestReceivedTimestamp time.Time                 `json:"requestReceivedTimestamp"`
	ObjectRef                *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// ReadAudit reads a JSON-lines audit log and returns user's requests, any status, with times
// converted by toScenario: a request once it completed, a watch once it started (ResponseStarted:
// a watch still open when the log is read has not completed, and is counted all the same).
func ReadAudit(path, user string, toScenario func(time.Time) float64) ([]AuditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l auditLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.User.Username != user || l.ObjectRef == nil {
			continue
		}
		stage := "ResponseComplete"
		if l.Verb == "watch" {
			stage = "ResponseStarted"
		}
		if l.Stage != stage {
			continue
		}
		code := 0
		if l.ResponseStatus != nil {
			code = l.ResponseStatus.Code
		}
		out = append(out, AuditEvent{At: toScenario(l.RequestReceivedTimestamp), Verb: l.Verb, Resource: l.ObjectRef.Resource,
			Subresource: l.ObjectRef.Subresource, Namespace: l.ObjectRef.Namespace, Name: l.ObjectRef.Name, Code: code})
	}
	return out, sc.Err()
}
