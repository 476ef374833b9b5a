package sake

import (
	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// MetaComponentVersions is the _meta key of the list entry of a name
// served in several versions: every version served, highest first (the
// entry itself is the first). An entry of one version has none.
const MetaComponentVersions = protocol.MetaComponentVersions

// withVersionsMeta returns the list entry obj with
// _meta["io.github.sakemcp/versions"] set to versions, or without it when
// versions is nil.
func withVersionsMeta(obj []byte, versions []string) []byte {
	if obj == nil {
		return nil
	}
	var list []byte
	if versions != nil {
		list = append(protocol.AppendString(nil, MetaComponentVersions), ':', '[')
		for i, v := range versions {
			if i > 0 {
				list = append(list, ',')
			}
			list = protocol.AppendString(list, v)
		}
		list = append(list, ']')
	}
	out := make([]byte, 0, len(obj)+len(list)+16)
	out = append(out, '{')
	hasMeta := false
	_ = jsonscan.Members(obj, func(k, v []byte) error {
		if string(k) == "_meta" {
			hasMeta = true
			v = withMetaMember(v, list)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = protocol.AppendString(out, string(k))
		out = append(out, ':')
		out = append(out, v...)
		return nil
	})
	if !hasMeta && list != nil {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, `"_meta":{`...), list...), '}')
	}
	return append(out, '}')
}

// withMetaMember returns the _meta object meta with the versions member
// replaced by member (the whole "key":value, or nil to drop it).
func withMetaMember(meta, member []byte) []byte {
	out := []byte{'{'}
	_ = jsonscan.Members(meta, func(k, v []byte) error {
		if string(k) == MetaComponentVersions {
			return nil
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = protocol.AppendString(out, string(k))
		out = append(out, ':')
		out = append(out, v...)
		return nil
	})
	if member != nil {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, member...)
	}
	return append(out, '}')
}

// versionNamesOf lists the versions of a head and its others, or nil
// when there are no others.
func versionNamesOf[T versioned[T]](head T, others []T) []string {
	if len(others) == 0 {
		return nil
	}
	names := make([]string, 0, 1+len(others))
	names = append(names, head.ver())
	for _, o := range others {
		names = append(names, o.ver())
	}
	return names
}
