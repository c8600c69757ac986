// Package laws holds the property tests of strata's laws, run over
// randomly generated layers of the tools model: identity and associativity
// of merge (merge(a, empty) ≡ a; merge(merge(a, b), c) ≡ merge(a, merge(b,
// c))), exactness of delta (merge(a, delta(a, b)) ≡ b, removals included)
// and of the smallest delta, the ToPartial round trip
// (finalize(toPartial(x)) == x), and the text round trip of a layer. It
// has no code of its own.
package laws
