package sake

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
)

// shaping is what a server does to its components before publishing
// them: transforms by name and the enable/disable rules. It is guarded by
// components.mu; a server that never reshapes has none and publishes its
// registry as it is.
type shaping struct {
	logger    *slog.Logger
	tools     map[string]*Transform // by the source name
	prompts   map[string]*Transform
	resources map[string]*Transform // by URI or template text
	rules     map[ruleKey]rule
	seq       uint64
	versions  *versionRange // FilterVersions; nil passes every version

	// What transforms made of each source component, kept from one
	// publication to the next so that schemas are reshaped once.
	builtTools     map[*tool]built[*tool]
	builtPrompts   map[*prompt]*prompt
	builtResources map[*resource]*resource
	// The entries of several versions published last, by source entry.
	groupedTools     map[*tool]grouped[*tool]
	groupedPrompts   map[*prompt]grouped[*prompt]
	groupedResources map[*resource]grouped[*resource]
	reported         string // the problems logged last, so each is logged once
}

type built[T any] struct {
	v   T
	err error
}

func newShaping(logger *slog.Logger) *shaping {
	return &shaping{logger: logger, tools: map[string]*Transform{}, prompts: map[string]*Transform{},
		resources: map[string]*Transform{}, rules: map[ruleKey]rule{}}
}

// reshape changes the server's shaping with fn and publishes the result
// at once. It returns the published registry before and after; when fn
// fails, nothing changes.
func (c *components) reshape(logger *slog.Logger, fn func(sh *shaping, src *registry) error) (before, after *registry, err error) {
	before = c.current()
	c.mu.Lock()
	defer c.mu.Unlock()
	src := c.base.apply(c.pending)
	c.base, c.pending = src, nil
	if c.shape == nil {
		c.shape = newShaping(logger)
	}
	err = fn(c.shape, src)
	after = c.shape.publish(src)
	c.snap.Store(after)
	return before, after, err
}

// announceChanges tells clients following list changes about each list
// that differs between two published registries.
func (s *Server) announceChanges(before, after *registry) {
	if !slices.Equal(before.tools, after.tools) {
		s.broadcast(Broadcast{List: ListTools})
	}
	if !slices.Equal(before.prompts, after.prompts) {
		s.broadcast(Broadcast{List: ListPrompts})
	}
	if !slices.Equal(before.resources, after.resources) || !slices.Equal(before.templates, after.templates) {
		s.broadcast(Broadcast{List: ListResources})
	}
}

// install adds transforms, all or none: each is built against the
// component it names when src has it, and no two components may end with
// one name.
func (sh *shaping) install(ts []Transform, src *registry) error {
	next := map[string]map[string]*Transform{
		"tool": maps.Clone(sh.tools), "prompt": maps.Clone(sh.prompts), "resource": maps.Clone(sh.resources),
	}
	var problems []string
	for i := range ts {
		t := &ts[i]
		kind, name := t.target()
		if t.removes() {
			delete(next[kind], name)
			continue
		}
		c := *t
		next[kind][name] = &c
		var err error
		switch kind {
		case "tool":
			if st := src.toolsByName[name]; st != nil {
				_, err = shapeTool(st, &c)
			}
		case "prompt":
			if sp := src.promptsByName[name]; sp != nil {
				_, err = shapePrompt(sp, &c)
			}
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("sake: transform of %s %s: %v", kind, name, err))
		}
	}
	problems = append(problems, nameConflicts("tool", next["tool"], func(n string) bool { return src.toolsByName[n] != nil })...)
	problems = append(problems, nameConflicts("prompt", next["prompt"], func(n string) bool { return src.promptsByName[n] != nil })...)
	if err := joinProblems(problems); err != nil {
		return err
	}
	sh.tools, sh.prompts, sh.resources = next["tool"], next["prompt"], next["resource"]
	sh.builtTools, sh.builtPrompts, sh.builtResources = nil, nil, nil
	return nil
}

// misfits finds the transforms, installed before their tools came, that
// do not fit the tools about to be added, so that AddTool reports them
// instead of the tool being left out when the server next publishes.
func (sh *shaping) misfits(tools []*tool) []string {
	if sh == nil {
		return nil
	}
	var problems []string
	for _, t := range tools {
		if tr := sh.tools[t.name]; tr != nil {
			if _, err := shapeTool(t, tr); err != nil {
				problems = append(problems, fmt.Sprintf("tool %s does not fit the transform installed for it: %v", t.name, err))
			}
		}
	}
	return problems
}

// nameConflicts finds the new names two transforms give, and those a
// component the server has keeps (it is not itself renamed).
func nameConflicts(kind string, ts map[string]*Transform, exists func(string) bool) []string {
	var problems []string
	taken := map[string]string{}
	for _, from := range sortedKeys(ts) {
		to := ts[from].Name
		if to == "" || to == from {
			continue
		}
		if prev, ok := taken[to]; ok {
			problems = append(problems, fmt.Sprintf("sake: transforms of %ss %s and %s both rename it %s", kind, prev, from, to))
		}
		taken[to] = from
		if other, renamed := ts[to]; exists(to) && (!renamed || other.Name == "" || other.Name == to) {
			problems = append(problems, fmt.Sprintf("sake: transform of %s %s: the name %s is taken by another %s", kind, from, to, kind))
		}
	}
	return problems
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// publish makes the registry clients see from the source registry:
// transforms applied, disabled components left out. Its cost is linear in
// the number of components; a transform is built once per component.
func (sh *shaping) publish(src *registry) *registry {
	var problems []string
	n := &registry{offered: src.offered}
	tools := make(map[*tool]built[*tool], len(sh.tools))
	var groupedTools map[*tool]grouped[*tool]
	var renamedTools map[*tool]bool
	var kept []*tool
	for _, st := range src.tools {
		kept = kept[:0]
		renamed := false
		for i := -1; i < len(st.others); i++ {
			sv := versionAt(st, i)
			t := sv
			if tr := sh.tools[st.name]; tr != nil {
				b, ok := sh.builtTools[sv]
				if !ok {
					b.v, b.err = shapeTool(sv, tr)
				}
				tools[sv] = b
				if b.err != nil {
					problems = append(problems, fmt.Sprintf("tool %s is left out: its transform does not fit it: %v", versionLabel(st.name, sv.version), b.err))
					continue
				}
				t = b.v
				renamed = tr.Name != "" && tr.Name != st.name
			}
			if sh.enabled(ruleTool, t.name, t.version, t.tags) && sh.versions.allows(t.version) {
				kept = append(kept, t)
			}
		}
		t := regroup(st, kept, sh.groupedTools, &groupedTools)
		if t == nil {
			continue
		}
		if renamed {
			if renamedTools == nil {
				renamedTools = map[*tool]bool{}
			}
			renamedTools[t] = true
		}
		n.tools = append(n.tools, t)
	}
	sh.builtTools, sh.groupedTools = tools, groupedTools
	prompts := make(map[*prompt]*prompt, len(sh.prompts))
	var groupedPrompts map[*prompt]grouped[*prompt]
	var renamedPrompts map[*prompt]bool
	var keptPrompts []*prompt
	for _, sp := range src.prompts {
		keptPrompts = keptPrompts[:0]
		renamed := false
		for i := -1; i < len(sp.others); i++ {
			sv := versionAt(sp, i)
			p := sv
			if tr := sh.prompts[sp.name]; tr != nil {
				if p = sh.builtPrompts[sv]; p == nil {
					p, _ = shapePrompt(sv, tr) // prompts' transforms always fit
				}
				prompts[sv] = p
				renamed = tr.Name != "" && tr.Name != sp.name
			}
			if sh.enabled(rulePrompt, p.name, p.version, p.tags) && sh.versions.allows(p.version) {
				keptPrompts = append(keptPrompts, p)
			}
		}
		p := regroup(sp, keptPrompts, sh.groupedPrompts, &groupedPrompts)
		if p == nil {
			continue
		}
		if renamed {
			if renamedPrompts == nil {
				renamedPrompts = map[*prompt]bool{}
			}
			renamedPrompts[p] = true
		}
		n.prompts = append(n.prompts, p)
	}
	sh.builtPrompts, sh.groupedPrompts = prompts, groupedPrompts
	resources := make(map[*resource]*resource, len(sh.resources))
	var groupedResources map[*resource]grouped[*resource]
	shapeAll := func(list []*resource) []*resource {
		var out, keptResources []*resource
		for _, sr := range list {
			keptResources = keptResources[:0]
			for i := -1; i < len(sr.others); i++ {
				sv := versionAt(sr, i)
				r := sv
				if tr := sh.resources[sr.uri]; tr != nil {
					if r = sh.builtResources[sv]; r == nil {
						r = shapeResource(sv, tr)
					}
					resources[sv] = r
				}
				if sh.enabled(ruleResource, r.uri, r.version, r.tags) && sh.versions.allows(r.version) {
					keptResources = append(keptResources, r)
				}
			}
			if r := regroup(sr, keptResources, sh.groupedResources, &groupedResources); r != nil {
				out = append(out, r)
			}
		}
		return out
	}
	n.resources, n.templates = shapeAll(src.resources), shapeAll(src.templates)
	sh.builtResources, sh.groupedResources = resources, groupedResources

	n.tools = uniqueNames(n.tools, toolName, func(t *tool) bool { return renamedTools[t] }, "tool", &problems)
	n.prompts = uniqueNames(n.prompts, promptName, func(p *prompt) bool { return renamedPrompts[p] }, "prompt", &problems)
	var dups []string // resources keep their URIs: they cannot collide
	n.toolsByName = index(n.tools, toolName, "", &dups)
	n.promptsByName = index(n.prompts, promptName, "", &dups)
	n.resourcesByURI = index(n.resources, resourceURI, "", &dups)
	n.templatesByURI = index(n.templates, resourceURI, "", &dups)
	_ = n.indexApps() // the source registry's views were checked
	n.capabilities = n.capabilitiesJSON()
	sh.report(problems)
	return n
}

// uniqueNames sorts list by name and keeps one component per name: the
// one a transform renamed, which claimed the name, over one that came
// later with it.
func uniqueNames[T any](list []T, key func(T) string, renamed func(T) bool, kind string, problems *[]string) []T {
	slices.SortStableFunc(list, byKey(key))
	out := list[:0]
	for _, x := range list {
		if len(out) > 0 && key(out[len(out)-1]) == key(x) {
			if renamed(x) {
				out[len(out)-1] = x
			}
			*problems = append(*problems, fmt.Sprintf("two %ss are named %s: the renamed one is kept", kind, key(x)))
			continue
		}
		out = append(out, x)
	}
	return out
}

// report logs the problems of a publication unless they are those logged
// last time.
func (sh *shaping) report(problems []string) {
	joined := strings.Join(problems, "\n")
	if joined == sh.reported {
		return
	}
	sh.reported = joined
	for _, p := range problems {
		sh.logger.Error("sake: " + p)
	}
}
