package route53

import (
	"encoding/xml"
	"errors"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// errorDoc is Route53's error document. InvalidChangeBatch lists every reason in Messages as well.
type errorDoc struct {
	XMLName xml.Name `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ErrorResponse"`
	Error   struct {
		Type     string   `xml:"Type"`
		Code     string   `xml:"Code"`
		Message  string   `xml:"Message"`
		Messages []string `xml:"Messages>Message"`
	} `xml:"Error"`
	RequestID string `xml:"RequestId"`
}

// Failure is an error as Route53 answers it.
type Failure struct {
	Status  int
	Code    string
	Message string
	Body    []byte
}

// EncodeError turns err into Route53's error answer: a *query.Error keeps its code (its status from the one
// table), a *state.BatchError is InvalidChangeBatch, anything else InternalFailure.
func EncodeError(err error, requestID string) Failure {
	var d errorDoc
	var be *state.BatchError
	var qe *query.Error
	switch {
	case errors.As(err, &be):
		d.Error.Code, d.Error.Messages = "InvalidChangeBatch", be.Messages
		d.Error.Message = "[" + strings.Join(be.Messages, ", ") + "]"
	case errors.As(err, &qe):
		d.Error.Code, d.Error.Message = qe.Code, qe.Message
	default:
		d.Error.Code, d.Error.Message = "InternalFailure", err.Error()
	}
	d.Error.Type = "Sender"
	if query.IsServerFault(d.Error.Code) {
		d.Error.Type = "Receiver"
	}
	d.RequestID = requestID
	body, mErr := Encode(d)
	if mErr != nil { // strings only: cannot fail, but an answer must go out
		body = []byte(xml.Header)
	}
	return Failure{Status: query.StatusOf(d.Error.Code), Code: d.Error.Code, Message: d.Error.Message, Body: body}
}
