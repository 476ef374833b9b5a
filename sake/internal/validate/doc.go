// Package validate checks decoded JSON values against a JSON Schema
// (draft 2020-12). It validates the arguments of MCP tool calls before user
// code runs, so it is built for the hot path: a schema is compiled once into
// a tree of small structs, and validating an instance walks that tree without
// keyword lookups. Valid instances are checked in a fast mode that stops at
// the first failure and, for typical schemas, allocates nothing; only invalid
// instances are validated a second time to collect violations with their
// paths and messages.
//
// Instances are the values produced by encoding/json when unmarshalling into
// any: map[string]any, []any, string, float64, bool and nil. json.Number
// (Decoder.UseNumber) and Go integer and float32 values are accepted as
// numbers.
//
// # Supported keywords
//
//   - Types and values: type (a name or an array of names; "integer" accepts
//     any number without a fractional part, such as 1.0), enum, const (JSON
//     equality: numbers compare numerically, object member order does not
//     matter).
//   - Objects: properties, required, additionalProperties (boolean or
//     schema), patternProperties, propertyNames, minProperties,
//     maxProperties, dependentRequired, dependentSchemas.
//   - Arrays: prefixItems, items (applies to the items after prefixItems),
//     minItems, maxItems, uniqueItems, contains, minContains, maxContains.
//   - Numbers: minimum, maximum, exclusiveMinimum, exclusiveMaximum (numeric
//     2020-12 form), multipleOf. Integers are checked exactly; fractional
//     multipleOf values tolerate a few ULPs of floating-point error so that,
//     for example, 0.3 is a multiple of 0.1.
//   - Strings: minLength and maxLength (counting Unicode code points),
//     pattern (an unanchored search with Go's regexp syntax, compiled once),
//     format.
//   - format is an assertion for date-time, date and time (RFC 3339, leap
//     seconds allowed at 23:59:60 UTC), email, uri (absolute, with a scheme),
//     uri-reference, uuid, ipv4, ipv6 (no zone), hostname (RFC 1123, with
//     IDNA A-labels decoded and checked against RFC 5891 and 5892),
//     duration (ISO 8601 as profiled by RFC 3339) and regex (Go syntax).
//     Other formats are ignored.
//   - Applicators: allOf, anyOf, oneOf, not, if/then/else,
//     unevaluatedProperties and unevaluatedItems (with annotations collected
//     from adjacent and in-place subschemas as 2020-12 specifies).
//   - References: $ref to "#", to any JSON pointer within the document
//     ("#/$defs/x", "#/definitions/x", "#/properties/a~1b", with ~0/~1 and
//     percent-decoding) and to $anchor names ("#addressDef"). Subschemas with
//     their own $id start a new resource that fragments resolve against, and
//     references by that $id are resolved within the document. Recursive
//     schemas work; a schema that applies itself to the same value without
//     descending into it (such as {"$ref": "#"}) is rejected by Compile.
//     $dynamicRef and $recursiveRef are resolved like $ref, which is exact
//     for documents that do not rely on dynamic scoping across resources.
//   - Boolean schemas true and false.
//
// For compatibility with draft-07 and OpenAPI 3.0 schemas, an array-valued
// items is treated as prefixItems with additionalItems for the rest,
// dependencies is split into dependentRequired and dependentSchemas, and
// boolean exclusiveMinimum/exclusiveMaximum modify minimum/maximum.
//
// # Ignored
//
// Annotation keywords are ignored: title, description, default, examples,
// $schema, $comment, deprecated, readOnly, writeOnly, contentMediaType,
// contentEncoding, contentSchema, $vocabulary, and any unknown or extension
// keyword such as x-mcp-header. $id only matters for resolving references.
//
// # The test suite
//
// suite_test.go runs the official JSON Schema Test Suite's draft 2020-12
// tests (testdata/draft2020-12): every test passes except those of
// $dynamicRef that need dynamic scope; tests that expect format to be an
// annotation only, or that fetch the metaschema by URI, are skipped.
//
// # Not supported
//
// References to other documents (remote or relative URIs that do not name a
// resource inside the schema) are rejected by Compile. Regular expressions
// use Go's RE2 syntax rather than ECMA-262, so patterns with lookaround or
// backreferences are rejected by Compile. The formats idn-email,
// idn-hostname, iri, iri-reference, uri-template, json-pointer and
// relative-json-pointer are not asserted.
//
// # Allocation
//
// Validating a valid instance allocates nothing, except for: the uri,
// uri-reference and regex formats (which parse with net/url and regexp);
// uniqueItems on arrays of more than 32 items (a hash table); schemas using
// unevaluatedProperties or unevaluatedItems (annotation sets); and
// propertyNames schemas that go beyond plain string keywords. Pattern
// matching relies on the regexp package's pooled matchers.
//
// # Errors
//
// Validate returns *Error, which lists up to 10 violations, each with the
// path of the offending value ("", "name", "address.city", "tags[2]",
// `["a.b"]`) and a short message ("is required", "must be >= 0"). anyOf and
// oneOf failures produce one message rather than the violations of every
// branch, except that a branch which is the only one accepting the value's
// type reports its own violations.
package validate
