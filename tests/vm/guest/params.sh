# shellcheck shell=sh disable=SC2034,SC2154
# (variables are read through eval)
# (b) Every rdnafix parameter: invalid values refused at load (insmod fails,
# one pr_err naming the parameter) and at runtime write (value unchanged);
# valid values accepted and read back.
KO=/mod/rdnafix.ko
unload_all >/dev/null
LONGA=$(head -c 300 /dev/zero | tr '\0' a)
LONG1=$(head -c 300 /dev/zero | tr '\0' 1)
LIST17=rdna1,rdna2,rdna1,rdna2,rdna1,rdna2,rdna1,rdna2,rdna1,rdna2,rdna1,rdna2,rdna1,rdna2,rdna1,rdna2,rdna1
LONGLIST=$(for _ in $(seq 1 50); do printf 'gfx1030,'; done)gfx1031

# invalid values per parameter, separated by '|' ("<empty>" = empty value)
inv_noretry="abc|2|-2|<empty>|1x|0x1|01|+1|-1x|-|$LONG1"
inv_vm_fragment_size="abc|3|10|0|<empty>|9x|-2|-4|08|-|$LONG1"
inv_mtype="abc|<empty>|NC|nc,|ncx|-1|0|kee|$LONGA"
inv_mtype_sysmem=$inv_mtype
inv_mtype_vram=$inv_mtype
inv_mtype_override="abc|<empty>|NC|uc|all|any,|1|$LONGA"
inv_sel="rdna3|gfx90a|gfx1100|gfx1037|rdna1,|,rdna1|rdna1,,rdna2|gfx10310|gfx|0000:03:00.8|0000:03:20.0|0000:3:00.0|-1|RDNA1|$LIST17|$LONGLIST|$LONGA"
inv_targets="<empty>|$inv_sel"
inv_exclude=$inv_sel
inv_bool="2|-1|<empty>|yes|no|on|true|1x|01|-|$LONG1"
inv_dry_run=$inv_bool
inv_strict=$inv_bool

# valid values and what reading the parameter back must give ("value=readback")
val_noretry="-1=-1|0=0|1=1"
val_vm_fragment_size="-1=-1|4=4|6=6|9=9"
val_mtype="keep=keep|nc=nc|wc=wc|cc=cc|uc=uc"
val_mtype_sysmem=$val_mtype
val_mtype_vram=$val_mtype
val_mtype_override="nc=nc|any=any"
val_targets="rdna1=rdna1|rdna2,gfx1031,0000:03:00.0,dgpu,apu=rdna2,gfx1031,0000:03:00.0,dgpu,apu|gfx1036,10000:0c:00.0=gfx1036,10000:0c:00.0"
val_exclude="<empty>=|apu=apu|0000:0a:00.1,rdna1=0000:0a:00.1,rdna1"
val_dry_run="0=N|1=Y|Y=Y|N=N|y=Y|n=N"
val_strict="0=N|1=Y|Y=Y|N=N|y=Y|n=N"

PARAMS="noretry vm_fragment_size mtype_sysmem mtype_vram mtype_override targets exclude dry_run strict"

short() { printf '%.24s' "$1"; }
errcount() { dmesg | grep -c "rdnafix: invalid value .* for parameter $1"; }

for p in $PARAMS; do
	eval "list=\$inv_$p"
	bad='' n=0
	IFS='|'
	for v in $list; do
		IFS=' '
		[ "$v" = "<empty>" ] && v=
		n=$((n + 1))
		before=$(errcount "$p")
		if insmod "$KO" "$p=$v" 2>/dev/null; then
			bad="$bad accepted:[$(short "$v")]"
			rmmod rdnafix
		elif is_loaded rdnafix; then
			bad="$bad loaded-after-failure:[$(short "$v")]"
			rmmod rdnafix
		elif [ "$(errcount "$p")" -le "$before" ]; then
			bad="$bad no-pr_err:[$(short "$v")]"
		fi
		IFS='|'
	done
	IFS=' '
	if [ -z "$bad" ]; then result "param_load_invalid_$p" PASS "$n values refused"
	else result "param_load_invalid_$p" FAIL "$bad"; fi

	eval "list=\$val_$p"
	bad='' n=0
	IFS='|'
	for vr in $list; do
		IFS=' '
		v=${vr%%=*} r=${vr#*=}
		[ "$v" = "<empty>" ] && v=
		n=$((n + 1))
		if insmod "$KO" "$p=$v"; then
			got=$(rd "$RP/$p")
			[ "$got" = "$r" ] || bad="$bad [$v]->[$got]!=[$r]"
			rmmod rdnafix || bad="$bad rmmod-failed"
		else
			bad="$bad refused:[$v]"
		fi
		IFS='|'
	done
	IFS=' '
	if [ -z "$bad" ]; then result "param_load_valid_$p" PASS "$n values accepted"
	else result "param_load_valid_$p" FAIL "$bad"; fi
done

# runtime writes: one load, every parameter
if insmod "$KO"; then
	for p in $PARAMS; do
		perm=$(ls -l "$RP/$p" | cut -c1-10)
		eval "list=\$inv_$p"
		bad='' n=0
		IFS='|'
		for v in $list; do
			IFS=' '
			[ "$v" = "<empty>" ] && v=
			n=$((n + 1))
			before=$(rd "$RP/$p")
			if (echo "$v" >"$RP/$p") 2>/dev/null; then
				bad="$bad accepted:[$(short "$v")]"
			fi
			after=$(rd "$RP/$p")
			[ "$after" = "$before" ] || bad="$bad changed:[$before]->[$after]"
			IFS='|'
		done
		IFS=' '
		if [ -z "$bad" ]; then result "param_runtime_invalid_$p" PASS "$n values refused ($perm)"
		else result "param_runtime_invalid_$p" FAIL "$bad"; fi

		# strict is read-only at runtime (0444): a write must fail, nothing to accept
		case $perm in
		-r--r--r--*)
			if (echo 1 >"$RP/$p") 2>/dev/null; then
				result "param_runtime_valid_$p" FAIL "read-only parameter accepted a write"
			else
				result "param_runtime_valid_$p" PASS "read-only at runtime ($perm)"
			fi
			continue ;;
		esac
		eval "list=\$val_$p"
		bad='' n=0
		IFS='|'
		for vr in $list; do
			IFS=' '
			v=${vr%%=*} r=${vr#*=}
			[ "$v" = "<empty>" ] && v=
			n=$((n + 1))
			if (echo "$v" >"$RP/$p") 2>/dev/null; then
				got=$(rd "$RP/$p")
				[ "$got" = "$r" ] || bad="$bad [$v]->[$got]!=[$r]"
			else
				bad="$bad refused:[$v]"
			fi
			IFS='|'
		done
		IFS=' '
		if [ -z "$bad" ]; then result "param_runtime_valid_$p" PASS "$n values accepted ($perm)"
		else result "param_runtime_valid_$p" FAIL "$bad"; fi
	done
	rmmod rdnafix
	check param_unload "rmmod rdnafix failed" eval '! is_loaded rdnafix'
else
	result param_runtime_load FAIL "insmod rdnafix with defaults failed"
fi
dmesg_check params
