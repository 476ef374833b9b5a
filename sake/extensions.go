package sake

import "github.com/sakemcp/sake-go/sake/protocol"

// withExtensions returns the capabilities object caps with an
// "extensions" member naming the extensions the server offers (MCP Apps
// when it has views, Skills, the tasks extension when tasks is set), or caps
// itself when it offers none.
func (s *Server) withExtensions(caps []byte, reg *registry, tasks bool) []byte {
	var members []byte
	add := func(id, settings string) {
		if len(members) > 0 {
			members = append(members, ',')
		}
		members = protocol.AppendString(members, id)
		members = append(members, ':')
		members = append(members, settings...)
	}
	if reg.apps.views > 0 {
		add(protocol.AppsExtension, "{}")
	}
	if set := s.skills.Load(); set != nil {
		add(protocol.SkillsExtension, set.settings)
	}
	if tasks {
		add(protocol.TaskExtension, "{}")
	}
	if len(members) == 0 {
		return caps
	}
	out := make([]byte, 0, len(caps)+len(members)+16)
	out = append(out, caps[:len(caps)-1]...)
	if len(caps) > 2 {
		out = append(out, ',')
	}
	out = append(out, `"extensions":{`...)
	out = append(out, members...)
	return append(out, "}}"...)
}
