package sake

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/url"
	"path"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// SkillsOption configures the Skills option.
type SkillsOption func(*skillsConfig)

type skillsConfig struct {
	fsys          fs.FS
	directoryRead bool
}

// WithoutDirectoryRead leaves resources/directory/read out: the server
// declares the extension with no optional feature.
func WithoutDirectoryRead() SkillsOption { return func(c *skillsConfig) { c.directoryRead = false } }

// Skills serves the Agent Skills found in fsys (an embed.FS in the common
// case, or os.DirFS): every directory that holds a SKILL.md is a skill, at
// skill://<its path>/SKILL.md, and its files (those of skills nested in it
// included) are read with resources/read at skill://<its path>/<file path>.
// The server declares the io.modelcontextprotocol/skills extension and
// answers skills/list and skills/get (each entry with its frontmatter and
// the digest and size of every file) and, unless WithoutDirectoryRead,
// resources/directory/read. SKILL.md files are listed by resources/list,
// named and described from their frontmatter; the other files are read by
// URI. Files and directories whose names begin with a dot are left out.
//
// fsys is read once, when the server is built: every SKILL.md must open
// with YAML frontmatter holding name (the skill's directory name, 1 to 64
// lowercase letters, digits and single hyphens) and description, of at
// most Limits.MaxSkillFrontmatterBytes (64 KiB by default), and a skill
// may hold at most Limits.MaxSkillFiles files (512) and
// Limits.MaxSkillBytes bytes (16 MiB).
// New fails naming every skill that breaks a rule.
func Skills(fsys fs.FS, opts ...SkillsOption) Option {
	return func(o *options) {
		c := &skillsConfig{fsys: fsys, directoryRead: true}
		for _, opt := range opts {
			opt(c)
		}
		o.skills = c
	}
}

// skillSet is the skills a server serves, read and indexed once.
type skillSet struct {
	directoryRead bool
	skills        []*skill              // sorted by URI
	byURI         map[string]*skill     // SKILL.md URI -> skill
	files         map[string]*skillFile // file URI -> file
	dirs          map[string][][]byte   // directory URI -> its children's resource JSON
	settings      string                // the extension's settings object
}

type skill struct {
	uri   string // skill://<path>/SKILL.md
	base  string // skill://<path>/, the prefix of its files' URIs
	name  string
	entry []byte // the skills/list entry
}

// info describes the skill to the PerCallerLists predicate, as its
// SKILL.md resource.
func (sk *skill) info() ComponentInfo {
	return ComponentInfo{List: ListResources, Name: sk.name, URI: sk.uri}
}

// owner returns the skill whose files include uri most closely (the
// innermost of nested skills), or nil.
func (set *skillSet) owner(uri string) *skill {
	var best *skill
	for _, sk := range set.skills {
		if strings.HasPrefix(uri, sk.base) || uri+"/" == sk.base {
			if best == nil || len(sk.base) > len(best.base) {
				best = sk
			}
		}
	}
	return best
}

// allowsSkillURI reports whether the PerCallerLists predicate lets the
// caller use the skill file or directory at uri: the skill that holds it
// most closely decides. Always without a predicate.
func (s *Server) allowsSkillURI(req *Request, set *skillSet, uri string) bool {
	if s.opts.lists == nil || s.opts.lists.allow == nil {
		return true
	}
	sk := set.owner(uri)
	return sk == nil || s.allows(req, sk.info())
}

type skillFile struct {
	contents ResourceContents
	name     string
	size     int
	digest   string
}

const skillMIME = "text/markdown"

var skillNameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)

// regName holds the characters RFC 3986 allows in a reg-name (besides
// percent-encoding, which a directory name does not need).
const regName = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;="

// loadSkills reads fsys and builds the skill set, reporting every broken
// rule, within the skills bounds of l.
func loadSkills(c *skillsConfig, l *Limits) (*skillSet, []*resource, error) {
	maxFiles := capOf(l.MaxSkillFiles, defaultMaxSkillFiles)
	maxBytes := capOf(l.MaxSkillBytes, defaultMaxSkillBytes)
	if c.fsys == nil {
		return nil, nil, &ConstructionError{Type: "the skills", Problems: []string{"Skills was given a nil fs.FS"}}
	}
	var files []fileInfo
	var roots []string
	err := fs.WalkDir(c.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files = append(files, fileInfo{p, info.Size()})
		if d.Name() == "SKILL.md" {
			roots = append(roots, path.Dir(p))
		}
		return nil
	})
	if err != nil {
		return nil, nil, &ConstructionError{Type: "the skills", Problems: []string{"reading the skills: " + err.Error()}}
	}
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if len(roots) == 0 {
		fail("no SKILL.md in the fs: give Skills a directory that holds one folder per skill, each with its SKILL.md")
	}
	set := &skillSet{directoryRead: c.directoryRead, byURI: map[string]*skill{},
		files: map[string]*skillFile{}, dirs: map[string][][]byte{}, settings: "{}"}
	if c.directoryRead {
		set.settings = `{"directoryRead":true}`
	}
	var listed []*resource
	for _, root := range roots {
		if root == "." {
			fail("SKILL.md at the root of the fs: put each skill in a directory named after it")
			continue
		}
		if msg := checkSkillPath(root); msg != "" {
			fail("skill %s: %s", root, msg)
			continue
		}
		prefix := root + "/"
		var mine []fileInfo
		var total int64
		for _, f := range files {
			if strings.HasPrefix(f.path, prefix) {
				mine = append(mine, f)
				total += f.size
			}
		}
		if len(mine) > maxFiles {
			fail("skill %s has %d files; a skill may hold at most %d (SKILL.md included, Limits.MaxSkillFiles): split it or move files out", root, len(mine), maxFiles)
			continue
		}
		if total > int64(maxBytes) {
			fail("skill %s holds %d bytes; a skill may hold at most %d (Limits.MaxSkillBytes): move large files out", root, total, maxBytes)
			continue
		}
		base := "skill://" + root
		var resources []byte
		var skillMD *skillFile
		ok := true
		// SKILL.md first, then the other files in path order.
		slices.SortStableFunc(mine, func(a, b fileInfo) int {
			am, bm := a.path == prefix+"SKILL.md", b.path == prefix+"SKILL.md"
			switch {
			case am && !bm:
				return -1
			case bm && !am:
				return 1
			}
			return strings.Compare(a.path, b.path)
		})
		for _, f := range mine {
			rel := f.path[len(prefix):]
			uri := base + "/" + escapePath(rel)
			sf := set.files[uri]
			if sf == nil {
				data, err := fs.ReadFile(c.fsys, f.path)
				if err != nil {
					fail("skill %s: reading %s: %v", root, rel, err)
					ok = false
					continue
				}
				sf = newSkillFile(uri, rel, data)
				set.files[uri] = sf
			}
			if rel == "SKILL.md" {
				skillMD = sf
			}
			if len(resources) > 0 {
				resources = append(resources, ',')
			}
			resources = append(resources, `{"uri":`...)
			resources = protocol.AppendString(resources, uri)
			resources = append(resources, `,"digest":`...)
			resources = protocol.AppendString(resources, sf.digest)
			resources = append(resources, `,"size":`...)
			resources = fmt.Appendf(resources, "%d", sf.size)
			resources = append(resources, '}')
		}
		if !ok || skillMD == nil {
			continue
		}
		fm, err := parseSkillFrontmatter(skillMD.contents.Text, capOf(l.MaxSkillFrontmatterBytes, defaultMaxSkillFrontmatterBytes))
		if err != nil {
			fail("skill %s: SKILL.md: %v", root, err)
			continue
		}
		if want := path.Base(root); fm.name != want {
			fail("skill %s: the frontmatter names it %q, but its directory is %q: the two must be equal", root, fm.name, want)
			continue
		}
		uri := base + "/SKILL.md"
		entry := []byte(`{"uri":`)
		entry = protocol.AppendString(entry, uri)
		entry = append(entry, `,"frontmatter":`...)
		entry = append(entry, fm.json...)
		entry = append(entry, `,"resources":[`...)
		entry = append(entry, resources...)
		entry = append(entry, "]}"...)
		sk := &skill{uri: uri, base: base + "/", name: fm.name, entry: entry}
		set.skills = append(set.skills, sk)
		set.byURI[uri] = sk
		contents := skillMD.contents
		read := func(*Context) (ResourceContents, error) { return contents, nil }
		r, err := compileResource(&ResourceDef{uri: uri, name: fm.name, description: fm.description,
			mimeType: skillMIME, size: ptr(int64(skillMD.size))}, reflect.ValueOf(read), false, completionFunc)
		if err != nil {
			fail("skill %s: %v", root, err)
			continue
		}
		listed = append(listed, r)
		set.addDirs(root, mine)
	}
	if len(problems) > 0 {
		return nil, nil, &ConstructionError{Type: "the skills", Problems: problems}
	}
	sort.Slice(set.skills, func(i, j int) bool { return set.skills[i].uri < set.skills[j].uri })
	return set, listed, nil
}

// checkSkillPath checks a skill's directory path: its first segment
// becomes the URI's authority, so it must be a reg-name, and every
// segment must be usable in a URI as it is.
func checkSkillPath(root string) string {
	for i, seg := range strings.Split(root, "/") {
		if strings.Trim(seg, regName) != "" {
			if i == 0 {
				return fmt.Sprintf("the directory %q becomes the URI's authority and may hold only letters, digits and -._~!$&'()*+,;=", seg)
			}
			return fmt.Sprintf("the directory %q may hold only letters, digits and -._~!$&'()*+,;= to be part of a URI", seg)
		}
	}
	name := path.Base(root)
	if !skillNameRE.MatchString(name) || strings.Contains(name, "--") {
		return fmt.Sprintf("the skill name %q must be 1 to 64 lowercase letters, digits and hyphens, with no hyphen first, last or twice in a row", name)
	}
	return ""
}

func escapePath(rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

func newSkillFile(uri, rel string, data []byte) *skillFile {
	sum := sha256.Sum256(data)
	sf := &skillFile{name: path.Base(rel), size: len(data), digest: "sha256:" + hex.EncodeToString(sum[:])}
	mt := skillFileMIME(rel, data)
	sf.contents = ResourceContents{URI: uri, MIMEType: mt}
	if utf8.Valid(data) && !strings.HasPrefix(mt, "image/") && !strings.HasPrefix(mt, "audio/") &&
		!strings.HasPrefix(mt, "video/") && mt != "application/octet-stream" {
		sf.contents.Text = string(data)
	} else {
		sf.contents.Blob = data
		if sf.contents.Blob == nil {
			sf.contents.Blob = []byte{}
		}
	}
	return sf
}

// skillFileMIME names a file's type from its extension.
func skillFileMIME(rel string, data []byte) string {
	if path.Base(rel) == "SKILL.md" {
		return skillMIME
	}
	switch strings.ToLower(path.Ext(rel)) {
	case ".md", ".markdown":
		return "text/markdown"
	case ".txt":
		return "text/plain"
	case ".py":
		return "text/x-python"
	case ".sh":
		return "text/x-shellscript"
	case ".js", ".mjs":
		return "text/javascript"
	case ".ts":
		return "text/x-typescript"
	case ".json":
		return "application/json"
	case ".yaml", ".yml":
		return "application/yaml"
	case ".csv":
		return "text/csv"
	}
	if t := mime.TypeByExtension(path.Ext(rel)); t != "" {
		return t
	}
	if utf8.Valid(data) {
		return "text/plain"
	}
	return "application/octet-stream"
}

// fileInfo is a file found in the skills' fs.
type fileInfo struct {
	path string
	size int64
}

// addDirs indexes the directories of a skill (its root and every
// directory below it) with their direct children, files and
// subdirectories (inode/directory).
func (set *skillSet) addDirs(root string, files []fileInfo) {
	base := "skill://" + root
	children := map[string]map[string][]byte{base: {}}
	for _, f := range files {
		rel := f.path[len(root)+1:]
		segs := strings.Split(rel, "/")
		dir := base
		for i, seg := range segs {
			uri := dir + "/" + url.PathEscape(seg)
			if children[dir] == nil {
				children[dir] = map[string][]byte{}
			}
			if i == len(segs)-1 {
				sf := set.files[uri]
				b := []byte(`{"uri":`)
				b = protocol.AppendString(b, uri)
				b = append(b, `,"name":`...)
				b = protocol.AppendString(b, seg)
				b = append(b, `,"mimeType":`...)
				b = protocol.AppendString(b, sf.contents.MIMEType)
				b = fmt.Appendf(b, `,"size":%d}`, sf.size)
				children[dir][uri] = b
				break
			}
			if _, ok := children[dir][uri]; !ok {
				b := []byte(`{"uri":`)
				b = protocol.AppendString(b, uri)
				b = append(b, `,"name":`...)
				b = protocol.AppendString(b, seg)
				b = append(b, `,"mimeType":"inode/directory"}`...)
				children[dir][uri] = b
			}
			dir = uri
		}
	}
	for dir, kids := range children {
		uris := make([]string, 0, len(kids))
		for u := range kids {
			uris = append(uris, u)
		}
		sort.Strings(uris)
		list := make([][]byte, len(uris))
		for i, u := range uris {
			list[i] = kids[u]
		}
		set.dirs[dir] = list
	}
}

// read returns the contents of a skill file.
func (set *skillSet) read(uri string) ([]ResourceContents, bool) {
	f := set.files[uri]
	if f == nil {
		return nil, false
	}
	return []ResourceContents{f.contents}, true
}

// List kinds of the skills methods' cursors (distinct from the core lists).
const (
	kindSkills    byte = 0x20
	kindDirectory byte = 0x21
)

func (s *Server) skillsOrNotFound(method string) (*skillSet, error) {
	set := s.skills.Load()
	if set == nil {
		return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found: " + method,
			Data: map[string]string{"reason": "the server does not offer skills"}}
	}
	return set, nil
}

func (s *Server) listSkills(_ context.Context, req *Request, _ *registry) (any, error) {
	set, err := s.skillsOrNotFound(req.Method)
	if err != nil {
		return nil, err
	}
	if err := s.authorize(Requirement{}, req); err != nil {
		return nil, err
	}
	list := set.skills
	if s.opts.lists != nil && s.opts.lists.allow != nil {
		list = make([]*skill, 0, len(set.skills))
		for _, sk := range set.skills {
			if s.allows(req, sk.info()) {
				list = append(list, sk)
			}
		}
	}
	res, err := s.page(kindSkills, "skills", len(list), func(i int) []byte { return list[i].entry }, req.Params.Cursor)
	return s.perCaller(s.opts.lists != nil, res, err)
}

func (s *Server) getSkill(_ context.Context, req *Request, _ *registry) (any, error) {
	set, err := s.skillsOrNotFound(req.Method)
	if err != nil {
		return nil, err
	}
	uri := req.Params.URI
	if uri == "" {
		return nil, InvalidParams("Invalid params: skills/get needs the uri of a skill's SKILL.md")
	}
	if err := s.authorize(Requirement{}, req); err != nil {
		return nil, err
	}
	sk := set.byURI[uri]
	if sk == nil || !s.allows(req, sk.info()) {
		return nil, &Error{Code: CodeInvalidParams, Message: "Unknown skill: " + uri, Data: map[string]string{"uri": uri}}
	}
	return &skillResult{entry: sk.entry}, nil
}

func (s *Server) readDirectory(_ context.Context, req *Request, _ *registry) (any, error) {
	set, err := s.skillsOrNotFound(req.Method)
	if err == nil && !set.directoryRead {
		err = &Error{Code: CodeMethodNotFound, Message: "Method not found: " + req.Method,
			Data: map[string]string{"reason": "the server does not offer directory reads"}}
	}
	if err != nil {
		return nil, err
	}
	uri := req.Params.URI
	if uri == "" {
		return nil, InvalidParams("Invalid params: resources/directory/read needs the uri of a directory")
	}
	if err := s.authorize(Requirement{}, req); err != nil {
		return nil, err
	}
	children, ok := set.dirs[uri]
	if !ok || !s.allowsSkillURI(req, set, uri) {
		return nil, &Error{Code: CodeInvalidParams, Message: "Not a directory: " + uri, Data: map[string]string{"uri": uri}}
	}
	return s.page(kindDirectory, "resources", len(children), func(i int) []byte { return children[i] }, req.Params.Cursor)
}

// skillResult is the result of skills/get.
type skillResult struct{ entry []byte }

func (r *skillResult) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	dst = append(dst, `{"skill":`...)
	dst = append(dst, r.entry...)
	return w.tail(dst, false, nil, cacheRead, "")
}

// loadSkills reads the skills and lists their SKILL.md resources.
func (s *Server) loadSkills(c *skillsConfig) error {
	set, listed, err := loadSkills(c, &s.opts.limits)
	if err != nil {
		return err
	}
	s.skills.Store(set)
	s.comps.edit(func(p *changes, _ *registry) {
		for _, r := range listed {
			put(&p.resources, r.uri, r)
		}
	})
	return nil
}
