#!/bin/sh
# TEMPORARY STAND-IN (to be deleted when `rdnactl config` and `rdnactl fix`
# land on main): does by hand, for initramfs-tools and GRUB only, what those
# commands will do, so that the e2e image/boot/assert machinery can be proven
# first.  Used only with RDNAFIX_E2E_STANDIN=1.
#   standin config set [--no-initramfs] KEY=VALUE...  (rdnafix keys, amdgpu.KEY)
#   standin config undo [--no-initramfs]
#   standin fix        (the GRUB drop-in for amdgpu.noretry=1, update-grub)
set -eu
conf=/etc/modprobe.d/rdnafix.conf
hook=/etc/initramfs-tools/hooks/rdnafix
state=/var/lib/rdnafix-standin
mkdir -p "$state"
regen=1
cmd="$1 ${2:-}"
if [ $# -ge 2 ]; then shift 2; else shift 1; fi
[ "${1:-}" = --no-initramfs ] && { regen=0; shift; }
case $cmd in
"config set")
	if [ -f $conf ]; then cp $conf $state/prev; else rm -f $state/prev; fi
	rdnafix='' amdgpu=''
	for kv in "$@"; do
		case $kv in
		amdgpu.*) amdgpu="$amdgpu ${kv#amdgpu.}" ;;
		*) rdnafix="$rdnafix ${kv#rdnafix.}" ;;
		esac
	done
	{
		echo "# Managed by rdnactl (rdnafix). Edit with 'rdnactl config'."
		[ -n "$rdnafix" ] && echo "options rdnafix$rdnafix"
		[ -n "$amdgpu" ] && echo "options amdgpu$amdgpu"
		[ -n "$rdnafix" ] && echo "softdep amdgpu pre: rdnafix"
	} >$conf.tmp
	mv $conf.tmp $conf
	if [ -n "$rdnafix" ]; then
		# shellcheck disable=SC2016
		printf '#!/bin/sh\n[ "$1" = prereqs ] && exit 0\n. /usr/share/initramfs-tools/hook-functions\nmanual_add_modules rdnafix\n' >$hook
		chmod 0755 $hook
	fi
	;;
"config undo")
	if [ -f $state/prev ]; then mv $state/prev $conf; else rm -f $conf $hook; fi
	;;
"fix ")
	mkdir -p /etc/default/grub.d
	# shellcheck disable=SC2016
	echo 'GRUB_CMDLINE_LINUX_DEFAULT="$(echo "$GRUB_CMDLINE_LINUX_DEFAULT" | sed "s/amdgpu\.noretry=[^ ]*//g") amdgpu.noretry=1"' \
		>/etc/default/grub.d/rdnafix.cfg
	update-grub
	exit 0
	;;
*) echo "standin: unknown command '$cmd'" >&2; exit 2 ;;
esac
[ $regen = 1 ] && update-initramfs -u -k all
exit 0
