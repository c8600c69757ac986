// Package doclinks holds a test of the module's documentation: every doc
// link (a name in square brackets, such as codec.ExtendsKey or a method)
// in a doc comment resolves, so that go doc and pkgsite link it rather
// than print it in brackets.
package doclinks
