package client

import (
	"context"

	"github.com/sakemcp/sake-go/sake/protocol"
)

type versionKey struct{}

// WithVersion returns a context whose tools/call, prompts/get and
// resources/read ask for version v of the component instead of the
// highest the server lists: the request's _meta carries
// protocol.MetaComponentVersion, in both eras. A server that has no such
// version answers as for an unknown component. Calls with a version skip
// the response cache.
func WithVersion(ctx context.Context, v string) context.Context {
	return context.WithValue(ctx, versionKey{}, v)
}

// versionOf returns the version WithVersion gave ctx, or "".
func versionOf(ctx context.Context) string {
	v, _ := ctx.Value(versionKey{}).(string)
	return v
}

// versionMeta is the _meta member asking for the version WithVersion gave
// ctx, or nil.
func versionMeta(ctx context.Context) []byte {
	v := versionOf(ctx)
	if v == "" {
		return nil
	}
	b := protocol.AppendString(nil, protocol.MetaComponentVersion)
	b = append(b, ':')
	return protocol.AppendString(b, v)
}
