// Package uritemplate parses, expands and matches RFC 6570 URI templates.
//
// An MCP server advertises resource templates such as
//
//	file:///{+path}
//	test://template/{id}/data
//	users://{user}/posts{?limit,offset}
//
// and must, for every resources/read request, find the template a concrete
// URI belongs to and recover the variable values. This package provides the
// three operations that needs: [Parse] (validate and precompile a template),
// [Template.Expand] (build a URI from values) and [Template.Match] (the
// inverse: recover values from a URI). [Template.Vars] lists variable names,
// for example to drive completions.
//
// # Supported syntax
//
// Levels 1 to 3 of RFC 6570 are supported completely: simple {var},
// reserved {+var}, fragment {#var}, label {.var}, path segment {/var},
// path-style parameter {;var}, form query {?var} and form continuation
// {&var}, each with one or more comma-separated variables. The level 4
// modifiers, prefix {var:3} and explode {var*}, are parsed and expanded
// exactly as the RFC specifies.
//
// Parse rejects malformed templates: an unclosed or unmatched brace, an
// empty expression, an invalid variable name, an unknown or reserved
// operator, or a malformed modifier. The error message gives the byte offset
// of the problem and says what is wrong. Literal text outside expressions is
// accepted leniently; characters RFC 6570 does not allow there (such as a
// space) are percent-encoded when the template is expanded.
//
// # Expansion
//
// Values passed to [Template.Expand] are string, []string (a list) or
// map[string]string (an associative array). A variable that is missing, nil,
// an empty list or an empty map is undefined and is skipped, as RFC 6570
// section 3.2.1 requires. Because Go maps are unordered, the members of a
// map value are expanded in sorted key order.
//
// # Matching
//
// [Template.Match] is a hand-written matcher; it does not use regular
// expressions and does not backtrack. It runs in time and memory proportional
// to len(uri) times the size of the template, so it is safe on hostile input.
// It percent-decodes the values it returns; a URI containing a malformed
// percent-encoding does not match.
//
// Matching inverts expansion, which is ambiguous in general. The rules are:
//
//   - Literal text must match exactly, either as written in the template or
//     in its percent-encoded expanded form.
//   - A simple {var}, label {.var} or path-style parameter {;var} value never
//     contains '/', '?' or '#'. A path segment {/var} value never contains
//     '/', '?' or '#'.
//   - A value of a non-reserved operator (simple, label, path segment,
//     parameter, query) also stops before a reserved character that
//     introduces a directly following expression: in "{/p}{;q}" the value of
//     p never contains ';'. Other characters outside the unreserved set are
//     accepted in values even though Expand would have percent-encoded them.
//   - Reserved {+var} and fragment {#var} values may contain any character,
//     including '/', except that they stop before a '?' when a query
//     expression or a literal '?' follows later in the template, and before a
//     '#' when a fragment expression or literal '#' follows later.
//   - When several placements are possible, each expression, from left to
//     right, takes the longest span that still lets the rest of the template
//     match (like a greedy regular expression). For example
//     "{+path}/data" matched against "a/data/b/data" yields path="a/data/b".
//     Likewise "{x}{.ext}" matched against "a.tar.gz" yields x="a.tar.gz"
//     and no ext, because '.' may occur in a simple value, while "{x}.{ext}"
//     yields x="a.tar" and ext="gz".
//   - Within an unnamed expression with several variables ({x,y}, {/x,y},
//     {.x,y}, {+x,y}, {#x,y}) the value is split at the operator's separator
//     from the left: each variable takes one piece and the last variable
//     takes the remainder (for {/x,y} a remainder containing '/' does not
//     match). If there are fewer pieces than variables, the trailing
//     variables are absent.
//   - Named operators ({;x,y}, {?x,y}, {&x,y}) are matched by parameter name,
//     in any order. A run of adjacent query expressions such as {?x}{&y} is
//     treated as a single query, so its parameters may also come in any
//     order. Parameters may be absent. A parameter whose name is not a
//     variable of the expression, or a repeated parameter for a variable that
//     is not exploded, makes the match fail. A parameter without '=' is
//     accepted as an empty value. No form decoding is done: '+' stays '+'.
//   - An expression that matches the empty string (all its variables were
//     undefined) adds nothing to the result. When the operator's prefix
//     character is present ({/x} matching "/", {?x} matching "?x=") the
//     variables concerned are present with value "".
//   - An exploded list is reported as a single value whose items are joined
//     with ','; for example {/list*} matching "/red/green/blue" and
//     {?list*} matching "?list=red&list=green&list=blue" both give
//     list="red,green,blue", the same as {list} matching "red,green,blue".
//     An exploded associative array under a named operator ({?keys*},
//     {;keys*}) produces parameter names that are not template variables and
//     so cannot be matched; under an unnamed operator it is reported as one
//     value.
//   - A prefix modifier {var:N} only matches values of at most N characters
//     (after decoding); the value reported is the prefix itself.
//   - A variable that occurs in several expressions must match the same
//     value everywhere (or, where a prefix modifier is involved, values that
//     are prefixes of one another; the longest is reported).
//
// A Template is immutable after Parse and safe for concurrent use.
package uritemplate
