// Package sts implements the STS (2011-06-15) operations fakeaws serves: GetCallerIdentity, which controllers
// call at start to learn their account.
package sts

import (
	"crypto/sha256"
	"encoding/base32"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// Version is the API version this package speaks.
const Version = "2011-06-15"

// UserName is the IAM user that owns fakeaws's one access key.
const UserName = "restartsim"

// Service is the STS API of one account whose only caller is the IAM user holding the configured key.
type Service struct {
	identity callerIdentity
	ops      map[string]query.Handler
}

// New returns the service for the account that owns every resource (the account in fakeaws's ARNs) and the
// access key every request is signed with.
func New(accountID, accessKeyID string) *Service {
	s := &Service{identity: callerIdentity{
		Arn:     "arn:aws:iam::" + accountID + ":user/" + UserName,
		UserId:  userID(accountID, accessKeyID),
		Account: accountID,
	}}
	s.ops = map[string]query.Handler{"GetCallerIdentity": s.getCallerIdentity}
	return s
}

// Lookup returns the handler of an action.
func (s *Service) Lookup(action string) (query.Handler, bool) {
	h, ok := s.ops[action]
	return h, ok
}

// Operations lists the supported actions, sorted.
func (s *Service) Operations() []string { return query.Operations(s.ops) }

type callerIdentity struct {
	Arn     string `xml:"Arn"`
	UserId  string `xml:"UserId"`
	Account string `xml:"Account"`
}

// getCallerIdentity takes no parameters; AWS ignores any it is sent.
func (s *Service) getCallerIdentity(time.Time, *query.Form) (any, error) {
	return s.identity, nil
}

// userID is a stable IAM user unique ID: IAM's "AIDA" prefix for users and 17 characters of [A-Z2-7] drawn from
// the account and key, so the same configuration always names the same user.
func userID(accountID, accessKeyID string) string {
	sum := sha256.Sum256([]byte(accountID + "/" + accessKeyID))
	return "AIDA" + base32.StdEncoding.EncodeToString(sum[:])[:17]
}
