#!/usr/bin/env bash
# The library-load check (RDNA-LIB-001..003, docs/library-load.md) on trees
# built here with the real toolchain: gcc links small shared libraries with
# the sonames, version nodes, DT_NEEDED and DT_RUNPATH entries of the cases,
# the system's real libc.so.6 and its loader are copied in (the check judges
# only a tree where the loader finds a libc), and `rdnactl status --root
# --env` is run on each tree.  Each case also runs without the condition and
# must then not report the finding, so removing a check fails its case.
#
# usage: run.sh RDNACTL          Exit 0 all passed, 1 a case failed, 2 cannot run.
set -uo pipefail
rdnactl=${1:?usage: run.sh RDNACTL}
case $rdnactl in /*) ;; *) rdnactl=$PWD/$rdnactl ;; esac
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
for t in gcc python3 mktemp; do
	command -v "$t" >/dev/null || { echo "libload: $t not installed" >&2; exit 2; }
done
libc=/lib/x86_64-linux-gnu/libc.so.6 ldso=/lib64/ld-linux-x86-64.so.2
[ -f "$libc" ] && [ -e "$ldso" ] || { echo "libload: no $libc / $ldso on this machine" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# so OUT SONAME [gcc args...]: a shared library from $tmp/src.c
so() {
	local out=$1 soname=$2
	shift 2
	mkdir -p "$(dirname "$out")"
	gcc -shared -fPIC -o "$out" -Wl,-soname,"$soname" "$@" || { echo "libload: gcc failed for $out" >&2; exit 2; }
}

# new_root NAME: a copy of a fixture machine plus the system's libc and loader
new_root() {
	local r=$tmp/$1
	mkdir -p "$r"
	cp -a "$top/tests/fixtures/no-amd-gpu/root" "$r/root"
	mkdir -p "$r/root/lib/x86_64-linux-gnu" "$r/root/usr/lib/x86_64-linux-gnu"
	cp -L "$libc" "$r/root/lib/x86_64-linux-gnu/libc.so.6"
	cp -L "$ldso" "$r/root/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
	printf 'PATH=/usr/bin:/bin\nHOME=/home/u\n' >"$r/env"
	echo "$r"
}

# expect NAME WANT(yes|no) ID TEXT ROOTDIR: status --json on the tree; the finding ID with TEXT in it
expect() {
	local name=$1 want=$2 id=$3 text=$4 r=$5 out got
	out=$("$rdnactl" status --root "$r/root" --env "$r/env" --json 2>"$r/stderr")
	got=$(printf '%s' "$out" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
want_id, text = sys.argv[1], sys.argv[2]
hits = [f for f in doc["findings"] if f["id"] == want_id and text in json.dumps(f)]
print("yes" if hits else "no")
for f in hits:
    print(json.dumps(f), file=sys.stderr)
' "$id" "$text" 2>"$r/hits") || got="error"
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
	else
		echo "libload: FAIL $name: $id with '$text' present: $got, expected $want"
		sed 's/^/    /' "$r/stderr" "$r/hits"
		printf '%s\n' "$out" | grep -A3 '"RDNA-LIB' | sed 's/^/    /' | head -40
		fail=$((fail + 1))
	fi
}

# expect_env NAME TEXT ROOTDIR: `rdnactl env` on the tree prints TEXT (the typed remedies)
expect_env() {
	local name=$1 text=$2 r=$3 out
	out=$("$rdnactl" env --root "$r/root" --env "$r/env" 2>&1)
	if grep -qF -- "$text" <<<"$out"; then
		pass=$((pass + 1))
	else
		echo "libload: FAIL $name: rdnactl env does not print '$text'"
		printf '%s\n' "$out" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}

cd "$tmp" || exit 2

# ---- conda's libstdc++ without the version the runtime needs (RDNA-LIB-003) ----
r=$(new_root conda)
printf 'int old_fn(void){return 1;}\nint new_fn(void){return 2;}\n' >src.c
printf 'GLIBCXX_3.4.29 { global: old_fn; local: *; };\nGLIBCXX_3.4.99 { global: new_fn; } GLIBCXX_3.4.29;\n' >new.map
printf 'GLIBCXX_3.4.29 { global: old_fn; local: *; };\n' >old.map
so "$r/root/usr/lib/x86_64-linux-gnu/libstdc++.so.6" libstdc++.so.6 src.c -Wl,--version-script,new.map
printf 'int old_fn(void){return 1;}\n' >src.c
so "$r/root/home/u/miniconda3/lib/libstdc++.so.6" libstdc++.so.6 src.c -Wl,--version-script,old.map
printf 'int new_fn(void);\nint hipInit(unsigned f){return new_fn()+(int)f;}\n' >src.c
so "$r/root/opt/rocm-6.2.4/lib/libamdhip64.so.6.2.60204" libamdhip64.so.6 src.c \
	"$r/root/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
ln -s libamdhip64.so.6.2.60204 "$r/root/opt/rocm-6.2.4/lib/libamdhip64.so.6"
ln -s libamdhip64.so.6 "$r/root/opt/rocm-6.2.4/lib/libamdhip64.so"
ln -s rocm-6.2.4 "$r/root/opt/rocm"
expect "conda: the system libstdc++ defines GLIBCXX_3.4.99" no RDNA-LIB-003 GLIBCXX_3.4.99 "$r"
echo 'LD_LIBRARY_PATH=/home/u/miniconda3/lib' >>"$r/env"
expect "conda: its libstdc++ first on LD_LIBRARY_PATH lacks GLIBCXX_3.4.99" yes RDNA-LIB-003 \
	'/home/u/miniconda3/lib/libstdc++.so.6 (LD_LIBRARY_PATH entry /home/u/miniconda3/lib), does not define it' "$r"
expect_env "conda: env unsets LD_LIBRARY_PATH" 'unset LD_LIBRARY_PATH' "$r"

# ---- a library nobody ships (RDNA-LIB-001) ----
r=$(new_root missing)
printf 'int hipInit(unsigned f){return (int)f;}\n' >src.c
so "$r/root/opt/rocm-6.2.4/lib/libhsa-runtime64.so.1" libhsa-runtime64.so.1 src.c
so "$r/root/opt/rocm-6.2.4/lib/libamdhip64.so" libamdhip64.so.6 src.c -Wl,--no-as-needed \
	"$r/root/opt/rocm-6.2.4/lib/libhsa-runtime64.so.1" -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
ln -s rocm-6.2.4 "$r/root/opt/rocm"
expect "missing: libhsa-runtime64.so.1 next to it (DT_RUNPATH \$ORIGIN)" no RDNA-LIB-001 libhsa-runtime64 "$r"
rm "$r/root/opt/rocm-6.2.4/lib/libhsa-runtime64.so.1"
expect "missing: libhsa-runtime64.so.1 gone" yes RDNA-LIB-001 \
	'libhsa-runtime64.so.1, needed by /opt/rocm/lib/libamdhip64.so, is not found' "$r"

# ---- two ROCm releases in one process (RDNA-LIB-002) ----
r=$(new_root mixed)
printf 'int rocblas_create_handle(void **h){(void)h;return 0;}\n' >src.c
so "$r/root/opt/rocm-6.2.4/lib/librocblas.so.4" librocblas.so.4 src.c
so "$r/root/opt/rocm-6.4.1/lib/librocblas.so.4" librocblas.so.4 src.c
printf 'int hipInit(unsigned f){return (int)f;}\n' >src.c
so "$r/root/opt/rocm-6.2.4/lib/libamdhip64.so" libamdhip64.so.6 src.c -Wl,--no-as-needed \
	"$r/root/opt/rocm-6.2.4/lib/librocblas.so.4" -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
echo 'ROCM_PATH=/opt/rocm-6.2.4' >>"$r/env"
expect "mixed: one release" no RDNA-LIB-002 ROCm "$r"
echo 'LD_LIBRARY_PATH=/opt/rocm-6.4.1/lib' >>"$r/env"
expect "mixed: LD_LIBRARY_PATH brings in 6.4.1's rocBLAS" yes RDNA-LIB-002 \
	'ROCm 6.4.1: 1 library, /opt/rocm-6.4.1/lib/librocblas.so.4 (LD_LIBRARY_PATH entry /opt/rocm-6.4.1/lib)' "$r"
echo 'LD_LIBRARY_PATH=/opt/rocm-6.4.1/lib:/opt/other' >>"$r/env"
expect_env "mixed: env keeps the other LD_LIBRARY_PATH entries" "export LD_LIBRARY_PATH='/opt/other'" "$r"
# The same library under two sonames (.so.6 and .so.7) in one tree.
r=$(new_root sonames)
printf 'int f7(void){return 7;}\n' >src.c
so "$r/root/opt/rocm-7.0.0/lib/libamdhip64.so.7" libamdhip64.so.7 src.c
printf 'int hipInit(unsigned f){return (int)f;}\n' >src.c
so "$r/root/opt/rocm/lib/libamdhip64.so" libamdhip64.so.6 src.c -Wl,--no-as-needed \
	"$r/root/opt/rocm-7.0.0/lib/libamdhip64.so.7" -Wl,--enable-new-dtags,-rpath,/opt/rocm-7.0.0/lib
expect "sonames: libamdhip64.so.6 needing libamdhip64.so.7" yes RDNA-LIB-002 \
	'the same library twice: libamdhip64.so.6 and libamdhip64.so.7' "$r"

# ---- a partial tree (no libc) is not judged ----
r=$(new_root partial)
rm "$r/root/lib/x86_64-linux-gnu/libc.so.6"
printf 'int hipInit(unsigned f){return (int)f;}\n' >src.c
so "$r/root/opt/rocm/lib/libamdhip64.so" libamdhip64.so.6 src.c -Wl,--no-as-needed -lm
expect "partial: no libc.so.6 in the tree, nothing judged" no RDNA-LIB-001 "" "$r"

echo "libload: $((pass + fail)) cases, $fail failed"
[ "$fail" -eq 0 ]
