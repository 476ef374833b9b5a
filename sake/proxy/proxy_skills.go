package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/sakemcp/sake-go/sake"
	"github.com/sakemcp/sake-go/sake/client"
	"github.com/sakemcp/sake-go/sake/protocol"
)

// MaxProxiedSkillBytes bounds the bytes of all the skills a proxy copies
// from its remote server (64 MiB); each skill is also bounded by
// sake.Limits.MaxSkillFiles and sake.Limits.MaxSkillBytes.
const MaxProxiedSkillBytes = 64 << 20

const skillScheme = "skill://"

// remoteSkills copies the Agent Skills of a remote server that declares
// the skills extension (SEP-2640), once, when the proxy is built: the
// proxy serves them itself (skills/list, skills/get,
// resources/directory/read when the remote offers it, and their files
// with resources/read). It returns nil options when the remote server has
// no skills.
func remoteSkills(ctx context.Context, remote *client.Client) ([]sake.Option, error) {
	info := remote.Info()
	if !info.HasExtension(protocol.SkillsExtension) {
		return nil, nil
	}
	var settings struct {
		Extensions map[string]struct {
			DirectoryRead bool `json:"directoryRead"`
		} `json:"extensions"`
	}
	_ = json.Unmarshal(info.Capabilities, &settings)
	var skills []protocol.SkillInfo
	cursor := ""
	for page := 0; ; page++ {
		if page >= maxPages {
			return nil, fmt.Errorf("client: the remote server's skills/list has more than %d pages", maxPages)
		}
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := remote.Request(ctx, "skills/list", params)
		if err != nil {
			return nil, fmt.Errorf("client: proxying the remote server's skills: %w", err)
		}
		var l struct {
			Skills     []protocol.SkillInfo `json:"skills"`
			NextCursor string               `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("client: the remote server's skills/list: %w", err)
		}
		skills = append(skills, l.Skills...)
		if l.NextCursor == "" || l.NextCursor == cursor {
			break
		}
		cursor = l.NextCursor
	}
	if len(skills) == 0 {
		return nil, nil
	}
	fsys := fstest.MapFS{}
	total := int64(0)
	for _, sk := range skills {
		for _, f := range sk.Resources {
			name, ok := strings.CutPrefix(f.URI, skillScheme)
			if !ok || name == "" {
				return nil, fmt.Errorf("client: the remote skill %s lists a file outside skill://: %s", sk.URI, f.URI)
			}
			if _, dup := fsys[name]; dup {
				continue // a file of a nested skill, listed by both
			}
			if total += f.Size; total > MaxProxiedSkillBytes {
				return nil, fmt.Errorf("client: the remote server's skills hold more than %d bytes (MaxProxiedSkillBytes)", MaxProxiedSkillBytes)
			}
			contents, err := remote.ReadResource(ctx, f.URI)
			if err != nil {
				return nil, fmt.Errorf("client: reading the remote skill file %s: %w", f.URI, err)
			}
			var data []byte
			for _, c := range contents {
				if c.URI == f.URI || len(contents) == 1 {
					if c.Blob != nil {
						data = c.Blob
					} else {
						data = []byte(c.Text)
					}
					break
				}
			}
			if int64(len(data)) != f.Size {
				return nil, fmt.Errorf("client: the remote skill file %s has %d bytes, its skill lists %d", f.URI, len(data), f.Size)
			}
			fsys[name] = &fstest.MapFile{Data: data, Mode: 0o444}
		}
	}
	var opts []sake.SkillsOption
	if !settings.Extensions[protocol.SkillsExtension].DirectoryRead {
		opts = append(opts, sake.WithoutDirectoryRead())
	}
	return []sake.Option{sake.Skills(fsys, opts...)}, nil
}

// maxPages bounds the pages of skills/list the proxy follows: a remote
// server whose cursors never end cannot hold it forever.
const maxPages = 1000
