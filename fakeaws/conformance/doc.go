// Package conformance holds table-driven tests, one file per AWS service, that drive a started fakeaws through
// the real aws-sdk-go-v2 clients and compare each answer with what AWS documents: every case cites the API
// reference page (or published SDK example) its expected answer comes from.
package conformance
