#!/usr/bin/env bash
# Build the test initramfs (uncompressed newc cpio) for one kernel.
#
#   tests/vm/build-initramfs.sh OUT.cpio KROOT KVER [--rdnafix KO] [--mock KO]
#                               [--rdnactl BIN] [--realcall KO] [--matrix DIR]
#                               [--rdnafix-maxactive1 KO]
#
# KROOT is the `dpkg -x` tree of the Debian linux-image (fetch-kernels.sh).
# Contents: busybox (static), amdgpu.ko and its dependencies in load order
# (`modprobe --show-depends`, decompressed), rdnafix.ko, the mock amdgpu,
# the test-only rdnafix_realcall module (tests/vm/real-amdgpu) when given,
# the guest scripts of tests/vm/guest, the test build of rdnafix with one
# kretprobe instance per hook (/mod/rdnafix-maxactive1.ko, suite lifecycle)
# when given, rdnactl with its shared libraries and loader (found with ldd)
# when given, and the refusal matrix's modules (tests/vm/matrix/build.sh:
# DIR/<case>/{rdnafix.ko,conftest.h}, DIR/mock-*/amdgpu.ko) under /mod/matrix
# when given.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
die() { echo "build-initramfs: ERROR: $*" >&2; exit 2; }

[[ $# -ge 3 ]] || die "usage: $0 OUT.cpio KROOT KVER [--rdnafix KO] [--mock KO] [--rdnactl BIN]"
out=$1 kroot=$2 kver=$3; shift 3
rdnafix='' mock='' rdnactl='' realcall='' matrix='' maxactive1=''
while [[ $# -gt 0 ]]; do
	case $1 in
	--rdnafix) rdnafix=$2; shift 2 ;;
	--mock) mock=$2; shift 2 ;;
	--rdnactl) rdnactl=$2; shift 2 ;;
	--realcall) realcall=$2; shift 2 ;;
	--matrix) matrix=$2; shift 2 ;;
	--rdnafix-maxactive1) maxactive1=$2; shift 2 ;;
	*) die "unknown option '$1' (valid: --rdnafix KO, --mock KO, --rdnactl BIN, --realcall KO, --matrix DIR, --rdnafix-maxactive1 KO)" ;;
	esac
done

bb=$(command -v busybox) || die "busybox missing (package busybox-static)"
if ldd "$bb" >/dev/null 2>&1; then
	die "$bb is dynamically linked; the initramfs needs busybox-static"
fi
[[ -d $kroot/lib/modules/$kver ]] || die "$kroot/lib/modules/$kver missing (run fetch-kernels.sh)"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,dev,proc,sys,tmp,run,etc,mod/deps,mod/mock,tests,usr/bin}
cp "$bb" "$stage/bin/busybox"
cp "$here/guest/init" "$stage/init"
cp "$here"/guest/*.sh "$stage/tests/"
chmod 0755 "$stage/init" "$stage"/tests/*.sh
echo "$kver" >"$stage/etc/kver"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$stage/etc/passwd"
printf 'root:x:0:\nvideo:x:44:\nrender:x:105:\n' >"$stage/etc/group"

# decompress a module into dest
put_ko() {
	local src=$1 dst=$2
	case $src in
	*.ko.xz) xz -dc "$src" >"$dst" ;;
	*.ko.zst) zstd -qdc "$src" >"$dst" ;;
	*.ko.gz) gzip -dc "$src" >"$dst" ;;
	*.ko) cp "$src" "$dst" ;;
	*) die "unknown module file type: $src" ;;
	esac
}

n=0
: >"$stage/mod/deps.list"
while read -r verb path _; do
	[[ $verb == insmod ]] || continue
	name=$(basename "$path"); name=${name%%.ko*}
	if [[ $name == amdgpu ]]; then
		put_ko "$path" "$stage/mod/amdgpu.ko"
	else
		n=$((n + 1))
		f=$(printf '%02d-%s.ko' "$n" "$name")
		put_ko "$path" "$stage/mod/deps/$f"
		echo "$f" >>"$stage/mod/deps.list"
	fi
done < <(modprobe -d "$kroot" -S "$kver" --show-depends amdgpu)
[[ -f $stage/mod/amdgpu.ko ]] || die "amdgpu not found for $kver in $kroot"

if [[ -n $rdnafix ]]; then
	[[ -f $rdnafix ]] || die "--rdnafix $rdnafix: no such file"
	cp "$rdnafix" "$stage/mod/rdnafix.ko"
fi
if [[ -n $mock ]]; then
	[[ -f $mock ]] || die "--mock $mock: no such file"
	cp "$mock" "$stage/mod/mock/amdgpu.ko"
	# the get_vm_pte prototype variant made by build-mock.sh, next to it
	if [[ -f $(dirname "$mock")/variant/amdgpu.ko ]]; then
		mkdir -p "$stage/mod/mock-variant"
		cp "$(dirname "$mock")/variant/amdgpu.ko" "$stage/mod/mock-variant/amdgpu.ko"
	fi
fi
if [[ -n $maxactive1 ]]; then
	[[ -f $maxactive1 ]] || die "--rdnafix-maxactive1 $maxactive1: no such file"
	cp "$maxactive1" "$stage/mod/rdnafix-maxactive1.ko"
fi
if [[ -n $realcall ]]; then
	[[ -f $realcall ]] || die "--realcall $realcall: no such file"
	cp "$realcall" "$stage/mod/rdnafix_realcall.ko"
fi
if [[ -n $matrix ]]; then
	[[ -d $matrix ]] || die "--matrix $matrix: no such directory"
	for d in "$matrix"/*/; do
		c=$(basename "$d")
		mkdir -p "$stage/mod/matrix/$c"
		for f in rdnafix.ko amdgpu.ko conftest.h; do
			[[ -f $d/$f ]] && cp "$d/$f" "$stage/mod/matrix/$c/"
		done
	done
fi
if [[ -n $rdnactl ]]; then
	[[ -x $rdnactl ]] || die "--rdnactl $rdnactl: not an executable file"
	cp "$rdnactl" "$stage/usr/bin/rdnactl"
	# shared libraries and the loader, at the same paths as on the host
	if ldd "$rdnactl" >/dev/null 2>&1; then
		ldd "$rdnactl" | grep -oE '/[^ ]+' | sort -u | while read -r lib; do
			[[ -f $lib ]] || continue
			mkdir -p "$stage$(dirname "$lib")"
			cp -L "$lib" "$stage$lib"
		done
		# merged-/usr hosts: /lib64 may be a symlink to usr/lib64
		for l in lib lib64; do
			if [[ -L /$l && ! -e $stage/$l ]]; then
				cp -a "/$l" "$stage/$l"
			fi
		done
	fi
fi

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$out.tmp"
mv "$out.tmp" "$out"
echo "build-initramfs: $out ($(du -h "$out" | cut -f1)) for $kver" >&2
