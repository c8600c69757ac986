// Package koanfetcd tests package koanflayer against a real etcd server:
// an organisation's defaults kept in etcd, read by koanf's etcd provider,
// as a layer of strata. It is a package of its own so that koanflayer's
// tests, and hosts, build no etcd client.
//
// The test runs the etcd binary of Debian's etcd-server package (or any
// etcd on PATH) on a free loopback port. It skips when there is none,
// unless REQUIRE_ETCD is set, as CI sets it.
package koanfetcd
