package openapi

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Kind is what an operation becomes.
type Kind int

const (
	// Tool makes the operation a tool (the default for every operation).
	Tool Kind = iota
	// Resource makes a GET operation a resource, read at
	// scheme://name; one with path parameters becomes a template instead,
	// since a resource has one fixed URI.
	Resource
	// ResourceTemplate makes a GET operation a resource template,
	// scheme://name/{p1}/{p2} with one variable per path parameter (in
	// the order of the path); one without path parameters becomes a
	// resource.
	ResourceTemplate
	// Exclude leaves the operation out.
	Exclude
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Tool:
		return "tool"
	case Resource:
		return "resource"
	case ResourceTemplate:
		return "resource template"
	case Exclude:
		return "excluded"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// RouteMap says what the operations it matches become. An operation
// matches when every condition that is set holds: its method is one of
// Methods, its path template (as written in the document, such as
// "/pets/{petId}") matches Pattern, and it carries every tag of Tags.
// A zero condition matches anything.
type RouteMap struct {
	// Methods are HTTP methods, in any case ("GET", "post").
	Methods []string
	// Pattern is matched against the path template (unanchored: use ^
	// and $ to match the whole path).
	Pattern *regexp.Regexp
	// Tags must all be among the operation's tags.
	Tags []string
	// Kind is what a matching operation becomes.
	Kind Kind
	// ComponentTags are added to the component's tags (beside the
	// operation's own), for sake.Server.Enable and Disable.
	ComponentTags []string
}

// matches reports whether the route map applies to an operation.
func (r *RouteMap) matches(method, path string, tags []string) bool {
	if len(r.Methods) > 0 && !slices.ContainsFunc(r.Methods, func(m string) bool { return strings.EqualFold(m, method) }) {
		return false
	}
	if r.Pattern != nil && !r.Pattern.MatchString(path) {
		return false
	}
	for _, t := range r.Tags {
		if !slices.Contains(tags, t) {
			return false
		}
	}
	return true
}

// route finds the route map of an operation: the first that matches, or
// the default (a tool).
func route(maps []RouteMap, method, path string, tags []string) RouteMap {
	for _, r := range maps {
		if r.matches(method, path, tags) {
			return r
		}
	}
	return RouteMap{Kind: Tool}
}
