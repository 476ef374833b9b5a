package validate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The JSON Schema Test Suite's draft 2020-12 tests (testdata/draft2020-12,
// see its README). Each file is one keyword; the tests of every file in
// mustPass must all pass, and the pass rate of the rest is reported.

// suiteGroup is one schema of a suite file with its instances.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// mustPass lists the suite files whose every test must pass: the keywords
// Sake's schemas (reflected by invopop/jsonschema or given as InputSchema)
// can contain, and the formats the validator asserts.
var mustPass = map[string]bool{
	"additionalProperties": true, "allOf": true, "anchor": true, "anyOf": true,
	"boolean_schema": true, "const": true, "contains": true, "content": true,
	"default": true, "defs": true, "dependentRequired": true, "dependentSchemas": true,
	"enum": true, "exclusiveMaximum": true, "exclusiveMinimum": true, "format": true,
	"if-then-else": true, "infinite-loop-detection": true, "items": true,
	"maxContains": true, "maxItems": true, "maxLength": true, "maxProperties": true,
	"maximum": true, "minContains": true, "minItems": true, "minLength": true,
	"minProperties": true, "minimum": true, "multipleOf": true, "not": true,
	"oneOf": true, "pattern": true, "patternProperties": true, "prefixItems": true,
	"properties": true, "propertyNames": true, "ref": true, "required": true,
	"type": true, "unevaluatedItems": true, "unevaluatedProperties": true,
	"uniqueItems":     true,
	"optional/bignum": true, "optional/float-overflow": true,
	"optional/format/date-time": true, "optional/format/date": true,
	"optional/format/time": true, "optional/format/email": true,
	"optional/format/uri": true, "optional/format/uri-reference": true,
	"optional/format/uuid": true, "optional/format/ipv4": true,
	"optional/format/ipv6": true, "optional/format/hostname": true,
	"optional/format/duration": true, "optional/format/regex": true,
}

// skipGroups names groups that test what the validator documents it does
// not do, with the reason.
var skipGroups = map[string]string{
	"defs: validate definition against metaschema":                  "refers to the draft 2020-12 metaschema by URI; documents outside the schema are not fetched",
	"ref: remote ref, containing refs itself":                       "refers to the draft 2020-12 metaschema by URI; documents outside the schema are not fetched",
	"unevaluatedItems: unevaluatedItems with $dynamicRef":           "needs the dynamic scope of $dynamicRef, which is resolved statically",
	"unevaluatedProperties: unevaluatedProperties with $dynamicRef": "needs the dynamic scope of $dynamicRef, which is resolved statically",
}

// skipTest names single tests skipped, with the reason.
func skipTest(keyword, description string) string {
	if keyword == "format" && strings.HasSuffix(description, "is only an annotation by default") {
		return "formats are asserted, as a tool's schema author expects (optional/format checks each one)"
	}
	return ""
}

type tally struct{ pass, fail, skip int }

func TestSuite(t *testing.T) {
	root := filepath.Join("testdata", "draft2020-12")
	var files []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no suite files under %s: %v", root, err)
	}
	results := map[string]*tally{}
	for _, path := range files {
		keyword := strings.TrimSuffix(filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator))), ".json")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var groups []suiteGroup
		if err := json.Unmarshal(data, &groups); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		r := &tally{}
		results[keyword] = r
		for _, g := range groups {
			if reason, ok := skipGroups[keyword+": "+g.Description]; ok {
				r.skip += len(g.Tests)
				t.Logf("skipped %s: %s (%s)", keyword, g.Description, reason)
				continue
			}
			s, err := Compile(g.Schema)
			for _, tc := range g.Tests {
				name := fmt.Sprintf("%s: %s: %s", keyword, g.Description, tc.Description)
				if reason := skipTest(keyword, tc.Description); reason != "" {
					r.skip++
					t.Logf("skipped %s (%s)", name, reason)
					continue
				}
				var got bool
				if err == nil {
					var v any
					if uerr := json.Unmarshal(tc.Data, &v); uerr != nil {
						t.Fatalf("%s: %v", name, uerr)
					}
					got = s.Validate(v) == nil
				}
				if err == nil && got == tc.Valid {
					r.pass++
					continue
				}
				r.fail++
				if mustPass[keyword] {
					if err != nil {
						t.Errorf("%s: does not compile: %v", name, err)
					} else {
						t.Errorf("%s: valid = %v, want %v", name, got, tc.Valid)
					}
				}
			}
		}
	}
	keywords := make([]string, 0, len(results))
	for k := range results {
		keywords = append(keywords, k)
	}
	sort.Strings(keywords)
	var total tally
	var report strings.Builder
	for _, k := range keywords {
		r := results[k]
		total.pass += r.pass
		total.fail += r.fail
		total.skip += r.skip
		fmt.Fprintf(&report, "%-32s %4d/%-4d", k, r.pass, r.pass+r.fail)
		if r.skip > 0 {
			fmt.Fprintf(&report, " (%d skipped)", r.skip)
		}
		report.WriteByte('\n')
	}
	fmt.Fprintf(&report, "%-32s %4d/%-4d (%d skipped)\n", "total", total.pass, total.pass+total.fail, total.skip)
	t.Logf("JSON Schema Test Suite, draft 2020-12, passed/run per keyword:\n%s", report.String())
}
