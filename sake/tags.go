package sake

// Tags labels the tool, so that Server.Enable and Server.Disable switch a
// group of components at once and a list policy (PerCallerLists) can tell
// them apart. Tags stay on the server: clients never see them.
func (t *ToolDef) Tags(tags ...string) *ToolDef { t.tags = append(t.tags, tags...); return t }

// Tags labels the resource or template (see ToolDef.Tags).
func (r *ResourceDef) Tags(tags ...string) *ResourceDef { r.tags = append(r.tags, tags...); return r }

// Tags labels the prompt (see ToolDef.Tags).
func (p *PromptDef) Tags(tags ...string) *PromptDef { p.tags = append(p.tags, tags...); return p }

// Components selects components for Server.Enable and Server.Disable: the
// tools and prompts of these names (as clients see them, after any
// Transform), the resources and templates of these URIs (or template
// texts), and every component carrying one of Tags. Names the server does
// not have yet apply to components that appear later.
type Components struct {
	Tools, Prompts, Resources []string
	Tags                      []string
	// Version, when not empty, narrows Tools, Prompts and Resources to
	// that version of each (components of other versions, and those
	// selected by Tags, are selected whatever their version). A rule for
	// one version and a rule for the whole name both select that
	// version: the later decides.
	Version string
}

// Enable makes the selected components available again: listed, and
// answering calls. The last of Enable and Disable that selects a
// component, by name or by one of its tags, decides whether it is
// available; a component no call selects is. Clients following list
// changes are told when a list changes.
func (s *Server) Enable(c Components) { s.setRules(c, true) }

// Disable makes the selected components unavailable while the server
// runs: they are left out of every list, and a call to one is answered as
// for a component the server does not have (-32602 "Unknown tool" for a
// tool, in both eras). Clients following list changes are told when a list
// changes. The server keeps one rule per name and tag, however often it
// is called.
func (s *Server) Disable(c Components) { s.setRules(c, false) }

func (s *Server) setRules(c Components, on bool) {
	before, after, _ := s.comps.reshape(s.logger, func(sh *shaping, _ *registry) error {
		for _, k := range c.keys() {
			sh.seq++
			sh.rules[k] = rule{seq: sh.seq, on: on}
		}
		return nil
	})
	s.announceChanges(before, after)
}

// What a rule selects.
const (
	ruleTool byte = iota + 1
	rulePrompt
	ruleResource
	ruleTag
)

type ruleKey struct {
	kind byte
	name string
}

// rule is the last Enable or Disable of one name or tag.
type rule struct {
	seq uint64
	on  bool
}

func (c Components) keys() []ruleKey {
	var keys []ruleKey
	for _, group := range []struct {
		kind  byte
		names []string
	}{{ruleTool, c.Tools}, {rulePrompt, c.Prompts}, {ruleResource, c.Resources}, {ruleTag, c.Tags}} {
		for _, n := range group.names {
			if c.Version != "" && group.kind != ruleTag {
				n += "\x00" + c.Version
			}
			keys = append(keys, ruleKey{group.kind, n})
		}
	}
	return keys
}

// enabled reports whether the last rule selecting a component (by kind
// and name, or by a tag) enables it; without one, it is enabled.
func (sh *shaping) enabled(kind byte, name, version string, tags []string) bool {
	if len(sh.rules) == 0 {
		return true
	}
	last, found := sh.rules[ruleKey{kind, name}]
	if version != "" {
		if r, ok := sh.rules[ruleKey{kind, name + "\x00" + version}]; ok && (!found || r.seq > last.seq) {
			last, found = r, true
		}
	}
	for _, t := range tags {
		if r, ok := sh.rules[ruleKey{ruleTag, t}]; ok && (!found || r.seq > last.seq) {
			last, found = r, true
		}
	}
	return !found || last.on
}
