// Package partial holds the pieces every layer of configuration is made
// of, and the generic operations on them.
//
// A partial is a struct whose fields are partial leaves: [Value] (set,
// unset or absent), [List] (items before and after a base: lower layers,
// the default, or nothing), [Map] (entries that merge by name), [Nested]
// and [Any] (free-form values, whose tables merge). A layer — a file, a
// variable, an override — decodes into a partial; package merge folds
// layers lowest first, package delta computes the layer between two, and
// [Finalize] applies a merged layer to the defaults to give the resolved
// config, whose [From] goes back (ToPartial). Reading and writing layers
// (TOML, JSON, YAML) and the JSON Schema of a file format are package
// codec's.
//
// Keys come from `toml` struct tags, a list's default strategy from the
// `strata:"append"` or `strata:"prepend"` tag, path fields from
// `strata:"path"` or `strata:"program"`, and schema descriptions from
// `doc` tags. A host writes such structs for its own config and uses the
// same algorithms on them: no code generation, no methods to implement.
// A [Path] names a key; problems are reported as *diag.Error at their key
// path.
package partial
