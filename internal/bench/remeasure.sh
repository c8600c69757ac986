#!/bin/sh
# remeasure.sh [OUT]: the figures of issue 38 (the weight a host
# carries), re-measured on a quieter machine, into the directory OUT
# (default bench-38): each ratio against its floor in the same iterations,
# six runs a figure for benchstat's medians, the load average before and
# after each. Run it from the module's root; it takes about half an hour
# on 2 CPUs. Then:
#
#	go run golang.org/x/perf/cmd/benchstat@latest OUT/*.txt
set -eu
out=${1:-bench-38}
mkdir -p "$out"
out=$(cd "$out" && pwd) # the benchmarks run in internal/bench
go test -c -o "$out/bench.test" ./internal/bench
run() { # name, benchmark flags...
	name=$1
	shift
	{
		echo "# load: $(cat /proc/loadavg)"
		(cd internal/bench && "$out/bench.test" -test.run XXX -test.count 6 "$@")
		echo "# load: $(cat /proc/loadavg)"
	} >"$out/$name.txt" 2>&1
}
# 38.2: resolve --stats over 800 tools ÷ resolve (counted: the counts
# kept; -uncounted: every definition counted).
run stats -test.bench 'BenchmarkStats' -test.benchtime 5x
# 38.3: serve of one server of 10,000 tools ÷ mcpproxy, time and maxRSS.
run servelist -test.bench 'BenchmarkServeList' -test.benchtime 3x
# 38.4: config of 5 × 1,000 described tools and of 1k/10k/50k small
# tools ÷ go-toml, time and maxRSS; the densest loads within the limits.
run loadprocess -test.bench 'BenchmarkLoadProcess' -test.benchtime 3x
run largest -test.bench 'BenchmarkLargestLayersProcess|BenchmarkHostileProcess' -test.benchtime 2x
# 38.5: a call through serve ÷ the direct run.
run servecall -test.bench 'BenchmarkServeCall' -test.benchtime 400x
# Start-up against the floors.
run startup -test.bench 'BenchmarkStartup' -test.benchtime 40x
# 38.2: each o200k counter the proxy serves, exactness and ns/token.
(cd internal/bench/tokencount && go test -run TestExact -v . && go test -run XXX -bench . -count 6 .) >"$out/tokencount.txt" 2>&1
# 38.1: the JSON-Schema-Test-Suite with each candidate.
go test ./internal/schemacheck -run TestSuite -v -count=1 >"$out/suite.txt" 2>&1
# 38.1: binary sizes (static), and each module's init (21 runs).
for p in internal/bench/hello internal/bench/mcpsdk fixtures/confighost fixtures/mcphost fixtures/host internal/bench/fullhost cmd/strata; do
	CGO_ENABLED=0 go build -o "$out/$(basename $p)" "./$p"
done
(cd "$out" && ls -l hello mcpsdk confighost mcphost host fullhost strata) >"$out/sizes.txt"
sh internal/bench/inittrace.sh "$out/strata" 21 config >"$out/inittrace.txt"
