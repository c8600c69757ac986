// Package laws holds the property tests of the laws in DESIGN.md, run over
// randomly generated layers of the tools model: identity and associativity
// of merge, exactness of delta and of the smallest delta, the ToPartial
// round trip, and the text round trip of a layer. It has no code of its
// own.
package laws
