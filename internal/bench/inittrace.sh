#!/bin/sh
# inittrace.sh BINARY [RUNS] [ARGS...]: what each module's package
# initialisation costs a start of BINARY (GODEBUG=inittrace=1), the median
# and the quickest of RUNS runs (21 by default), in ms of clock, bytes and
# allocations; strata's own packages are "strata", the standard library
# "std". The init column of CONTRIBUTING's dependency table:
#
#	CGO_ENABLED=0 go build -o /tmp/strata ./cmd/strata
#	sh internal/bench/inittrace.sh /tmp/strata 21 config
set -eu
bin=$1
runs=${2:-21}
shift 2 || shift $#
[ $# -gt 0 ] || set -- config
i=0
while [ "$i" -lt "$runs" ]; do
	GODEBUG=inittrace=1 "$bin" "$@" 2>&1 >/dev/null | awk -v run="$i" '
		/^init / {
			pkg = $2
			mod = "std"
			if (pkg ~ /^github.com\/strata-config\/strata/) mod = "strata"
			else if (pkg ~ /^(github.com|go.yaml.in|golang.org|mvdan.cc|pgregory.net|go.etcd.io|google.golang.org|gopkg.in)\//) {
				n = split(pkg, p, "/")
				mod = p[1] "/" p[2] "/" p[3]
				if (p[1] == "golang.org" || p[1] == "go.yaml.in" || p[1] == "mvdan.cc") mod = p[1] "/" p[2] "/" p[3]
			}
			ms[mod] += $5; bytes[mod] += $8; allocs[mod] += $10; total += $5
		}
		END {
			for (m in ms) printf "%s %d %.3f %d %d\n", m, run, ms[m], bytes[m], allocs[m]
			printf "ALL %d %.3f 0 0\n", run, total
		}'
	i=$((i + 1))
done | sort -k1,1 -k3,3n | awk '
	{ n[$1]++; v[$1, n[$1]] = $3; b[$1] = $4; a[$1] = $5 }
	END {
		for (m in n) {
			med = v[m, int((n[m] + 1) / 2)]
			printf "%-45s median %7.3f ms  quickest %7.3f ms  %8d bytes %6d allocs\n", m, med, v[m, 1], b[m], a[m]
		}
	}' | sort -k3,3nr
