package fakeaws

import "context"

type bodyKey struct{}

func withBody(ctx context.Context, b []byte) context.Context {
	return context.WithValue(ctx, bodyKey{}, b)
}
