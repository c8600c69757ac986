package config

import (
	"slices"

	"github.com/strata-config/strata/partial"
)

// Lock is what a lock file (strata.lock, package lock) does to the tools
// whose definitions changed since it was written.
type Lock struct {
	// Policy is "hold" (the default where a lock exists), "warn" or "off".
	Policy LockPolicy `toml:"policy"`
}

// LockPolicy says what a lock does with a tool whose definition is not
// the one locked, or a new tool of a locked source.
type LockPolicy string

// Lock policies.
const (
	LockHold LockPolicy = "hold" // leave it out of the catalog, with a warning; it cannot be called
	LockWarn LockPolicy = "warn" // keep it, with a warning
	LockOff  LockPolicy = "off"  // read no lock
)

// EnumValues lists the lock policies.
func (LockPolicy) EnumValues() []string { return slices.Clone(enumLockPolicy) }

// UnmarshalText reads a lock policy.
func (p *LockPolicy) UnmarshalText(b []byte) error {
	return readEnum(string(b), p, enumLockPolicy, "lock policy")
}

// MarshalText writes a lock policy.
func (p LockPolicy) MarshalText() ([]byte, error) { return []byte(p), nil }

// Or returns the policy, or LockHold when none is set.
func (p LockPolicy) Or() LockPolicy {
	if p == "" {
		return LockHold
	}
	return p
}

var enumLockPolicy = []string{"hold", "warn", "off"}

// LockPartial is the partial twin of [Lock].
type LockPartial struct {
	Policy partial.Value[LockPolicy] `toml:"policy" doc:"What a lock (strata.lock, written by strata lock) does with a tool whose definition changed since, or a new tool of a locked server: hold (the default) leaves it out of the catalog with a warning, warn keeps it with a warning, off reads no lock."`
}
