package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
	"github.com/sakemcp/sake-go/sake/proxy"
)

// listResources lists and publishes the resources of the remote as the
// session cl sees them (templates and subscriptions are not served):
// none when it offers none, or fails to list them (logged).
func (pu *perUser) listResources(ctx context.Context, cl *client.Client) map[string]bool {
	if !offers(cl, "resources") {
		return nil
	}
	list, err := cl.ListResources(ctx)
	if err == nil && len(list) > proxy.DefaultMaxListItems {
		err = fmt.Errorf("it lists %d resources, more than the %d the gateway takes", len(list), proxy.DefaultMaxListItems)
	}
	if err != nil {
		pu.r.logger.Warn("gateway: a user's session did not list its server's resources; its tools are served", "server", pu.r.key, "err", upstreamDetail(err))
		return nil
	}
	listed := make(map[string]bool, len(list))
	pu.mu.Lock()
	defer pu.mu.Unlock()
	for _, res := range list {
		listed[res.URI] = true
		if pu.res[res.URI] {
			continue
		}
		def := sake.NewResource(res.URI, pu.readResource(res.URI)).Name(res.Name).Title(res.Title).Description(res.Description).MIMEType(res.MIMEType)
		if err := pu.hub.AddResource(def); err != nil {
			delete(listed, res.URI)
			pu.r.logger.Warn("gateway: a component the gateway cannot serve is left out; the rest of its server is served", "server", pu.r.key, "kind", "resource", "uri", res.URI, "err", err)
			pu.r.leaveOut("resource "+res.URI, err.Error())
			continue
		}
		pu.res[res.URI] = true
	}
	return listed
}

// readResource is the handler of remote resource uri: it reads it in
// the caller's own session.
func (pu *perUser) readResource(uri string) func(c *sake.Context) ([]sake.ResourceContents, error) {
	return func(c *sake.Context) ([]sake.ResourceContents, error) {
		return inSession(pu, c, "resource", uri, (*userSession).offersResource,
			func(ctx context.Context, s *userSession) ([]sake.ResourceContents, error) {
				return s.cl.ReadResource(ctx, uri)
			})
	}
}

// inSession runs do in the caller's own session, for a component
// (a "resource" or a "prompt" named name) the session offers, within
// the entry's bounds on calls in flight and on their time.
func inSession[T any](pu *perUser, c *sake.Context, kind, name string, offers func(*userSession, string) bool, do func(context.Context, *userSession) (T, error)) (T, error) {
	var none T
	s, err := pu.signedIn(c)
	if err != nil {
		return none, err
	}
	if !offers(s, name) {
		return none, sake.NewError(sake.CodeInvalidParams, "Unknown %s: %s does not offer %q to you", kind, pu.r.key, name)
	}
	release, err := pu.slot()
	if err != nil {
		return none, err
	}
	defer release()
	c.WaitsOutside()
	ctx, cancel := context.WithTimeout(c, pu.callTimeout)
	defer cancel()
	res, err := do(ctx, s)
	if err != nil {
		return none, pu.failed(c, s, err)
	}
	return res, nil
}

// signedIn is the caller's open session; a caller not signed in is told
// to sign in (a prompt or a read asks nobody).
func (pu *perUser) signedIn(c *sake.Context) (*userSession, error) {
	user, err := pu.userOf(c)
	if err != nil {
		return nil, err
	}
	s, err := pu.session(c, user)
	if errors.Is(err, errNoToken) {
		return nil, sake.NewError(sake.CodeInvalidRequest, "you are not signed in to %s: call its tool %s_%s first", pu.r.key, pu.r.ns, signInTool)
	}
	return s, err
}

// slot takes one of the entry's requests in flight, or says it is busy.
func (pu *perUser) slot() (release func(), err error) {
	select {
	case pu.inFlight <- struct{}{}:
		return func() { <-pu.inFlight }, nil
	default:
		return nil, sake.NewError(sake.CodeInternalError, "the upstream server %q has %d requests in flight, the most it is sent; retry later", pu.r.key, cap(pu.inFlight))
	}
}

// failed is the error of a prompt or read that failed in session s: a
// refused token is forgotten (the user signs in anew).
func (pu *perUser) failed(c *sake.Context, s *userSession, err error) error {
	if authFailed(err) {
		pu.drop(s.user, s)
		_ = pu.store(s.user).Delete(c, pu.key)
		return sake.NewError(sake.CodeInternalError, "%s does not accept your sign-in: call %s_%s to sign in anew", pu.r.key, pu.r.ns, signInTool)
	}
	return sake.NewError(sake.CodeInternalError, "%s failed: %v", pu.r.key, upstreamDetail(err))
}

// listPrompts lists and publishes the prompts of the remote as the
// session cl sees them: none when it offers none, or fails to list them
// (logged: the tools are served all the same).
func (pu *perUser) listPrompts(ctx context.Context, cl *client.Client) map[string]bool {
	if !offers(cl, "prompts") {
		return nil
	}
	prompts, err := cl.ListPrompts(ctx)
	if err == nil && len(prompts) > proxy.DefaultMaxListItems {
		err = fmt.Errorf("it lists %d prompts, more than the %d the gateway takes", len(prompts), proxy.DefaultMaxListItems)
	}
	if err != nil {
		pu.r.logger.Warn("gateway: a user's session did not list its server's prompts; its tools are served", "server", pu.r.key, "err", upstreamDetail(err))
		return nil
	}
	return pu.publishPrompts(prompts)
}

// offers reports whether the server of cl declared capability what
// ("prompts", "resources").
func offers(cl *client.Client, what string) bool {
	var caps map[string]json.RawMessage
	if json.Unmarshal(cl.Info().Capabilities, &caps) != nil {
		return false
	}
	c := caps[what]
	return len(c) > 0 && string(c) != "null"
}

// publishPrompts adds to the hub the prompts not yet there, under names
// every client accepts, and returns the names listed; one that cannot be
// published is left out, logged and shown by the probes.
func (pu *perUser) publishPrompts(prompts []protocol.PromptInfo) map[string]bool {
	listed := make(map[string]bool, len(prompts))
	pu.mu.Lock()
	defer pu.mu.Unlock()
	r := pu.r
	for _, pr := range prompts {
		listed[pr.Name] = true
		if pu.prompts[pr.Name] {
			continue
		}
		local := publishedName(r.ns, pr.Name)
		if local != pr.Name {
			r.logger.Info("gateway: a name clients refuse is published under another", "server", r.key, "kind", "prompt", "name", pr.Name, "published", local)
		}
		def := sake.NewPrompt(local, pu.getPrompt(pr.Name)).Title(pr.Title).Description(pr.Description).Arguments(pr.Arguments...)
		if err := pu.hub.AddPrompt(def); err != nil {
			delete(listed, pr.Name)
			r.logger.Warn("gateway: a component the gateway cannot serve is left out; the rest of its server is served", "server", r.key, "kind", "prompt", "name", pr.Name, "err", err)
			r.leaveOut("prompt "+pr.Name, err.Error())
			continue
		}
		pu.prompts[pr.Name] = true
		pu.localPr[local] = pr.Name
	}
	return listed
}

// getPrompt is the handler of remote prompt name: it gets it in the
// caller's own session. A caller not signed in is told to sign in (a
// prompt asks nobody).
func (pu *perUser) getPrompt(name string) func(c *sake.Context, args map[string]string) (*sake.PromptResult, error) {
	return func(c *sake.Context, args map[string]string) (*sake.PromptResult, error) {
		return inSession(pu, c, "prompt", name, (*userSession).offersPrompt,
			func(ctx context.Context, s *userSession) (*sake.PromptResult, error) {
				return s.cl.GetPrompt(ctx, name, args)
			})
	}
}
