// Package query is the AWS Query wire codec shared by the ELBv2, EC2 and STS handlers: form decoding, XML response
// envelopes, and the one table that maps every AWS error code fakeaws returns to its HTTP status.
package query
