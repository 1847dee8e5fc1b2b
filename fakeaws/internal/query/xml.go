package query

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"strconv"
	"sync"
)

// Namespaces of the Query APIs.
const (
	ELBv2Namespace = "http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/"
	EC2Namespace   = "http://ec2.amazonaws.com/doc/2016-11-15/"
	STSNamespace   = "https://sts.amazonaws.com/doc/2011-06-15/"
	IAMNamespace   = "https://iam.amazonaws.com/doc/2010-05-08/"
)

// Dialect selects the envelope and error document of a Query service.
type Dialect int

const (
	// AWSQuery is the classic Query dialect (ELBv2): <OpResponse><OpResult/><ResponseMetadata/></OpResponse>,
	// errors as <ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/></ErrorResponse>.
	AWSQuery Dialect = iota
	// EC2Query is EC2's dialect: <OpResponse><requestId/>fields</OpResponse>, errors as
	// <Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>.
	EC2Query
	// STSQuery is the classic Query dialect in STS's namespace.
	STSQuery
	// IAMQuery is the classic Query dialect in IAM's namespace.
	IAMQuery
)

// namespace is the xmlns of a classic Query dialect's documents.
func (d Dialect) namespace() string {
	switch d {
	case STSQuery:
		return STSNamespace
	case IAMQuery:
		return IAMNamespace
	}
	return ELBv2Namespace
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// EC2Meta is embedded in every EC2 response body so the envelope can carry the request ID.
type EC2Meta struct {
	RequestID string `xml:"requestId"`
}

// SetRequestID implements requestIDSetter.
func (m *EC2Meta) SetRequestID(id string) { m.RequestID = id }

type requestIDSetter interface{ SetRequestID(string) }

type responseMetadata struct {
	RequestID string `xml:"RequestId"`
}

// EncodeResponse renders a successful response body for op.
func EncodeResponse(d Dialect, op, requestID string, body any) ([]byte, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	enc := xml.NewEncoder(buf)
	switch d {
	case EC2Query:
		if s, ok := body.(requestIDSetter); ok {
			s.SetRequestID(requestID)
		}
		start := xml.StartElement{Name: xml.Name{Local: op + "Response"}, Attr: []xml.Attr{{Name: xml.Name{Local: "xmlns"}, Value: EC2Namespace}}}
		if err := enc.EncodeElement(body, start); err != nil {
			return nil, err
		}
	default:
		start := xml.StartElement{Name: xml.Name{Local: op + "Response"}, Attr: []xml.Attr{{Name: xml.Name{Local: "xmlns"}, Value: d.namespace()}}}
		if err := enc.EncodeToken(start); err != nil {
			return nil, err
		}
		if body == nil {
			body = struct{}{}
		}
		if err := enc.EncodeElement(body, xml.StartElement{Name: xml.Name{Local: op + "Result"}}); err != nil {
			return nil, err
		}
		if err := enc.EncodeElement(responseMetadata{RequestID: requestID}, xml.StartElement{Name: xml.Name{Local: "ResponseMetadata"}}); err != nil {
			return nil, err
		}
		if err := enc.EncodeToken(start.End()); err != nil {
			return nil, err
		}
	}
	if err := enc.Flush(); err != nil {
		return nil, err
	}
	out := make([]byte, 0, buf.Len()+len(xml.Header))
	out = append(out, xml.Header...)
	return append(out, buf.Bytes()...), nil
}

type elbErrorDoc struct {
	XMLName   xml.Name `xml:"ErrorResponse"`
	Xmlns     string   `xml:"xmlns,attr"`
	Type      string   `xml:"Error>Type"`
	Code      string   `xml:"Error>Code"`
	Message   string   `xml:"Error>Message"`
	RequestID string   `xml:"RequestId"`
}

type ec2ErrorDoc struct {
	XMLName   xml.Name `xml:"Response"`
	Code      string   `xml:"Errors>Error>Code"`
	Message   string   `xml:"Errors>Error>Message"`
	RequestID string   `xml:"RequestID"`
}

// EncodeError renders the error document for e.
func EncodeError(d Dialect, e *Error, requestID string) []byte {
	var doc any
	if d == EC2Query {
		doc = ec2ErrorDoc{Code: e.Code, Message: e.Message, RequestID: requestID}
	} else {
		typ := "Sender"
		if IsServerFault(e.Code) {
			typ = "Receiver"
		}
		doc = elbErrorDoc{Xmlns: d.namespace(), Type: typ, Code: e.Code, Message: e.Message, RequestID: requestID}
	}
	b, err := xml.Marshal(doc)
	if err != nil { // cannot happen for string fields; keep a valid document anyway
		b = []byte("<ErrorResponse><Error><Code>InternalFailure</Code></Error></ErrorResponse>")
	}
	return append([]byte(xml.Header), b...)
}

// WriteXML writes an XML response with the request ID headers.
func WriteXML(w http.ResponseWriter, status int, requestID string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/xml;charset=UTF-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("x-amzn-RequestId", requestID)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
