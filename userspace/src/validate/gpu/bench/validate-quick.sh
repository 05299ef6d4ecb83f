#!/usr/bin/env bash
# Wall time of `rdnactl validate --quick` for one or more rdnactl binaries
# (e.g. before and after a change) in one job on a GPU machine:
#   1. the first binary's first run (on a freshly started machine: the first
#      run after boot), empty code-object cache, /usr/bin/time -v, --json kept
#      for the per-case seconds;
#   2. per binary, hyperfine: cold (its code-object cache emptied before each
#      of 3 runs) and warm (3 runs after 1 warm-up).
#   validate-quick.sh RDNACTL...     (needs hyperfine, or $HYPERFINE, and /usr/bin/time)
# Output to stdout and, when $OUT is set, $OUT/<binary name>-{first.json,first.err,cold.json,warm.json}.
set -u
OUTDIR=${OUT:-$(mktemp -d)}
HF=${HYPERFINE:-hyperfine}
export HOME=${HOME:-/tmp}
first=1
for X in "$@"; do
	L=$(basename "$X")
	C=$(mktemp -d) # this binary's own code-object cache ($XDG_CACHE_HOME/rdnafix/kernels)
	if [ "$first" = 1 ]; then
		XDG_CACHE_HOME=$C /usr/bin/time -v "$X" validate --quick --no-history --json \
			>"$OUTDIR/$L-first.json" 2>"$OUTDIR/$L-first.err"
		echo "$L first run: exit $?, $(grep -E 'Elapsed' "$OUTDIR/$L-first.err" | sed 's/^[[:space:]]*//')"
		first=0
	fi
	"$HF" -i --runs 3 --prepare "rm -rf $C/rdnafix" -n "$L cold" \
		"env XDG_CACHE_HOME=$C $X validate --quick --no-history" --export-json "$OUTDIR/$L-cold.json"
	"$HF" -i --runs 3 --warmup 1 -n "$L warm" \
		"env XDG_CACHE_HOME=$C $X validate --quick --no-history" --export-json "$OUTDIR/$L-warm.json"
	rm -rf "$C"
done
