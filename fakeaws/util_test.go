package fakeaws_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

func readAll(t testing.TB, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rewriteBody edits the serialized form body before signing (to send actions the SDK cannot express).
func rewriteBody(old, new string) func(*middleware.Stack) error {
	return func(s *middleware.Stack) error {
		return s.Build.Add(middleware.BuildMiddlewareFunc("rewriteBody", func(ctx context.Context, in middleware.BuildInput, next middleware.BuildHandler) (middleware.BuildOutput, middleware.Metadata, error) {
			req := in.Request.(*smithyhttp.Request)
			if st := req.GetStream(); st != nil {
				b, _ := io.ReadAll(st)
				b = []byte(strings.Replace(string(b), old, new, 1))
				var err error
				if req, err = req.SetStream(bytes.NewReader(b)); err != nil {
					return middleware.BuildOutput{}, middleware.Metadata{}, err
				}
				req.ContentLength = int64(len(b))
				in.Request = req
			}
			return next.HandleBuild(ctx, in)
		}), middleware.After)
	}
}
