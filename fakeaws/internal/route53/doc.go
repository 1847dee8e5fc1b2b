// Package route53 is fakeaws's Route53 wire layer: the REST-XML API 2013-04-01 (paths under /2013-04-01/,
// XML bodies in Route53's namespace) over the account state in package state. It resolves a request's path
// to an operation, decodes its XML, calls the store, and encodes the answer or Route53's ErrorResponse.
package route53
