// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix prototype evidence: which argument of gmc_v10_0_get_vm_pte is
 * the "uint64_t *flags" the PTE hook rewrites, decided only from evidence
 * that cannot change behind rdnafix's back:
 *   - the kernel series (major.minor of the release rdnafix runs on, which
 *     is the one it was built for) against the table of series whose
 *     amdgpu was actually tested below;
 *   - the BTF of the target kernel's amdgpu.ko, read when the module was
 *     built (kmod/scripts/pte-conftest.py writes rdnafix_conftest.h).
 * Both present must agree.  Outside the tested series the BTF alone is
 * accepted only for a prototype of the tested shape.  Without evidence the
 * hook stays inactive unless pte_unproven=1 (dangerous) is given.
 * Finally the loaded amdgpu must agree: gmc_v10_0_map_mtype exists exactly
 * in the 3-argument era (removed with the 5-argument prototype in 6.18,
 * commit 6716a823d18d "drm/amdgpu: rework how PTE flags are generated v3").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/utsname.h>

#include "rdnafix.h"

#if __has_include("rdnafix_conftest.h")
#include "rdnafix_conftest.h"
#else
#define RDNAFIX_BTF_PTE_FLAGS_ARG	-1
#define RDNAFIX_BTF_PTE_NARGS		0
#define RDNAFIX_BTF_PTE_TEXT		"unknown: built without kmod/Makefile (no rdnafix_conftest.h)"
#endif

bool rf_pte_unproven;
module_param_named(pte_unproven, rf_pte_unproven, bool, 0444);
MODULE_PARM_DESC(pte_unproven,
		 "DANGEROUS: arm the PTE hook although the get_vm_pte prototype is not proven (untested series, no BTF); it is then guessed from gmc_v10_0_map_mtype (default N)");

/*
 * Series whose Debian amdgpu.ko was tested (prototype read from its BTF
 * and exercised in the VM suite, tests/kernel/run.sh).
 */
static const struct {
	unsigned int major, minor;	/* the series */
	int flags_arg;			/* 0-based */
	int nargs;
	const char *tested;
} rf_tested[] = {
	{ 6, 1, 2, 3, "6.1 (Debian 6.1.0-56)" },
	{ 6, 12, 2, 3, "6.12 (Debian 6.12.117+deb12)" },
	{ 7, 2, 4, 5, "7.2 (Debian 7.2.13+deb14)" },
};

/* what decided, for /sys/kernel/rdnafix/pte_prototype */
char rf_pte_proto_text[RF_PROTO_TEXT_MAX];

/* 1 if "amdgpu:@sym" resolves, 0 if it does not (-ENOENT), else -errno. */
static int rf_symbol_present(const char *sym)
{
	struct kprobe kp = { .symbol_name = sym };
	int ret = register_kprobe(&kp);

	if (!ret) {
		unregister_kprobe(&kp);
		return 1;
	}
	return ret == -ENOENT ? 0 : ret;
}

/*
 * The 0-based index of the flags argument, or -errno with @why filled
 * (the hook then stays inactive).  Called with rf_arm_lock held.
 */
int rf_pte_proto_decide(char *why, size_t len)
{
	const int btf = RDNAFIX_BTF_PTE_FLAGS_ARG, btf_n = RDNAFIX_BTF_PTE_NARGS;
	int tab = -1, tab_n = 0, arg = -1, map;
	unsigned int i, major = 0, minor = 0;
	const char *tested = NULL;

	if (sscanf(init_utsname()->release, "%u.%u", &major, &minor) != 2)
		major = 0;
	for (i = 0; i < ARRAY_SIZE(rf_tested); i++) {
		if (major == rf_tested[i].major && minor == rf_tested[i].minor) {
			tab = rf_tested[i].flags_arg;
			tab_n = rf_tested[i].nargs;
			tested = rf_tested[i].tested;
		}
	}
	if (btf >= 0 && tab >= 0 && (btf != tab || btf_n != tab_n)) {
		scnprintf(why, len, "BTF (argument %d of %d) disagrees with tested %s (%d of %d)",
			  btf + 1, btf_n, tested, tab + 1, tab_n);
		goto refuse;
	}
	if (tab >= 0) {
		arg = tab;
		scnprintf(rf_pte_proto_text, sizeof(rf_pte_proto_text),
			  "flags=argument %d of %d; tested series %s; %s", arg + 1, tab_n, tested,
			  RDNAFIX_BTF_PTE_TEXT);
	} else if (btf >= 0 && ((btf == 2 && btf_n == 3) || (btf == 4 && btf_n == 5))) {
		arg = btf;
		scnprintf(rf_pte_proto_text, sizeof(rf_pte_proto_text),
			  "flags=argument %d of %d; untested series; %s", arg + 1, btf_n,
			  RDNAFIX_BTF_PTE_TEXT);
	} else if (READ_ONCE(rf_pte_unproven)) {
		scnprintf(rf_pte_proto_text, sizeof(rf_pte_proto_text),
			  "UNPROVEN (pte_unproven=1): no tested series, %s", RDNAFIX_BTF_PTE_TEXT);
	} else {
		scnprintf(why, len, "prototype not proven: %u.%u is no tested series, BTF %s%s",
			  major, minor, RDNAFIX_BTF_PTE_TEXT,
			  " (pte_unproven=1 overrides, dangerous)");
		goto refuse;
	}

	/* the loaded amdgpu must be of the same era */
	map = rf_symbol_present("amdgpu:gmc_v10_0_map_mtype");
	if (map < 0) {
		scnprintf(why, len, "cannot probe gmc_v10_0_map_mtype: %d", map);
		goto refuse;
	}
	if (arg < 0) {
		arg = map ? 2 : 4;	/* the guess pte_unproven=1 allows */
		pr_warn("pte_unproven=1: guessing the get_vm_pte flags pointer is argument %d\n",
			arg + 1);
	} else if ((arg == 2) != (map == 1)) {
		scnprintf(why, len, "the loaded amdgpu %s gmc_v10_0_map_mtype, %s",
			  map ? "has" : "lacks",
			  "unlike the one rdnafix was built for: rebuild rdnafix");
		goto refuse;
	}
	return arg;

refuse:
	scnprintf(rf_pte_proto_text, sizeof(rf_pte_proto_text), "refused: %s", why);
	return -ENOEXEC;
}
