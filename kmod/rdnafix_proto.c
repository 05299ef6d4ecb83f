// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix prototype evidence: which argument of gmc_v10_0_get_vm_pte is
 * the "uint64_t *flags" the PTE hook rewrites, and whether the first
 * argument of every hooked function is what its handler reads through,
 * decided only from evidence that cannot change behind rdnafix's back:
 *   - the kernel series (major.minor of the release rdnafix runs on, which
 *     is the one it was built for) against the table of series whose
 *     amdgpu was actually tested below; only the in-tree amdgpu counts as
 *     tested (an amdgpu-dkms of the same series is another driver);
 *   - the BTF of the amdgpu.ko modprobe loads, read when the module was
 *     built (kmod/scripts/pte-conftest.py writes rdnafix_conftest.h), and
 *     the host-side audit of that amdgpu.ko's get_vm_pte callers
 *     (kmod/scripts/amdgpu_audit.py).
 * Both present must agree.  A prototype the BTF shows different refuses
 * its hook everywhere.  Outside the tested series a hook needs the BTF's
 * word for its first argument, and the PTE hook also the tested shape and
 * an audit that proved every caller passes a stack local.  Without that
 * evidence the PTE hook stays inactive unless pte_unproven=1 (dangerous).
 * Finally the loaded amdgpu must agree: gmc_v10_0_map_mtype exists exactly
 * in the 3-argument era (removed with the 5-argument prototype in 6.18,
 * commit 6716a823d18d "drm/amdgpu: rework how PTE flags are generated v3").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/utsname.h>

#include "rdnafix.h"

#if __has_include("rdnafix_conftest.h")
#include "rdnafix_conftest.h"
#else
#define RDNAFIX_BTF_PTE_FLAGS_ARG	-1
#define RDNAFIX_BTF_PTE_NARGS		0
#define RDNAFIX_BTF_PTE_TEXT		"unknown: built without kmod/Makefile (no rdnafix_conftest.h)"
#endif
/* a header from an older conftest (or made by hand) lacks these */
#ifndef RDNAFIX_BTF_PROTO_PCI_PROBE
#define RDNAFIX_BTF_PROTO_PCI_PROBE	-1
#endif
#ifndef RDNAFIX_BTF_PROTO_NORETRY_SET
#define RDNAFIX_BTF_PROTO_NORETRY_SET	-1
#endif
#ifndef RDNAFIX_BTF_PROTO_VM_ADJUST_SIZE
#define RDNAFIX_BTF_PROTO_VM_ADJUST_SIZE	-1
#endif
#ifndef RDNAFIX_BTF_PROTO_GET_VM_PTE
#define RDNAFIX_BTF_PROTO_GET_VM_PTE	-1
#endif
#ifndef RDNAFIX_BTF_PROTO_TEXT
#define RDNAFIX_BTF_PROTO_TEXT		""
#endif
#ifndef RDNAFIX_AMDGPU_ORIGIN
#define RDNAFIX_AMDGPU_ORIGIN		""
#endif
#ifndef RDNAFIX_AMDGPU_PATH
#define RDNAFIX_AMDGPU_PATH		""
#endif
#ifndef RDNAFIX_AUDIT_PTE
#define RDNAFIX_AUDIT_PTE		-1
#endif
#ifndef RDNAFIX_AUDIT_PTE_TEXT
#define RDNAFIX_AUDIT_PTE_TEXT		""
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
 * The tested series rdnafix runs on, or NULL.  An amdgpu from outside the
 * kernel package (amdgpu-dkms in updates/, extra/) was not tested even on
 * a tested series; "" is a header without that evidence (older conftest).
 */
static int rf_series(unsigned int *major, unsigned int *minor)
{
	const char *origin = RDNAFIX_AMDGPU_ORIGIN;
	unsigned int i;

	if (sscanf(init_utsname()->release, "%u.%u", major, minor) != 2)
		*major = *minor = 0;
	if (origin[0] && strcmp(origin, "in-tree"))
		return -1;
	for (i = 0; i < ARRAY_SIZE(rf_tested); i++)
		if (*major == rf_tested[i].major && *minor == rf_tested[i].minor)
			return i;
	return -1;
}

/* "6.13 is no tested series" or "the amdgpu from updates/dkms is not the tested one" */
static void rf_untested_why(char *buf, size_t len, unsigned int major, unsigned int minor)
{
	const char *origin = RDNAFIX_AMDGPU_ORIGIN;

	if (origin[0] && strcmp(origin, "in-tree"))
		scnprintf(buf, len, "amdgpu (%s: %s) is not the tested in-tree driver", origin,
			  RDNAFIX_AMDGPU_PATH);
	else
		scnprintf(buf, len, "%u.%u is no tested series", major, minor);
}

/*
 * 0 if hook @id may read through its function's first argument, else
 * -ENOEXEC with @why filled.  amdgpu_pci_remove's pointer is only compared,
 * never read through; get_vm_pte is decided in full by
 * rf_pte_proto_decide().  Called with rf_arm_lock held.
 */
int rf_hook_proto_check(unsigned int id, char *why, size_t len)
{
	static const int btf[RF_HOOK_COUNT] = {
		[RF_HOOK_PCI_PROBE] = RDNAFIX_BTF_PROTO_PCI_PROBE,
		[RF_HOOK_NORETRY_SET] = RDNAFIX_BTF_PROTO_NORETRY_SET,
		[RF_HOOK_VM_ADJUST_SIZE] = RDNAFIX_BTF_PROTO_VM_ADJUST_SIZE,
		[RF_HOOK_GET_VM_PTE] = RDNAFIX_BTF_PROTO_GET_VM_PTE,
		[RF_HOOK_PCI_REMOVE] = 1,
	};
	unsigned int major, minor;
	char series[96];

	if (id >= RF_HOOK_COUNT || btf[id] == 1)
		return 0;
	if (btf[id] == 0) {
		scnprintf(why, len, "prototype mismatch (BTF): %s", RDNAFIX_BTF_PROTO_TEXT);
		return -ENOEXEC;
	}
	if (rf_series(&major, &minor) >= 0)
		return 0;
	rf_untested_why(series, sizeof(series), major, minor);
	scnprintf(why, len, "prototype not proven: %s and the BTF gave no evidence (%s)", series,
		  RDNAFIX_BTF_PROTO_TEXT[0] ? RDNAFIX_BTF_PROTO_TEXT : "no prototype read");
	return -ENOEXEC;
}

/* what rdnafix was built against: the evidence file, "key: value" lines */
ssize_t rf_evidence_emit(char *buf)
{
	ssize_t n;

	n = sysfs_emit(buf, "amdgpu_origin: %s\n", RDNAFIX_AMDGPU_ORIGIN);
	n += sysfs_emit_at(buf, n, "amdgpu_path: %s\n", RDNAFIX_AMDGPU_PATH);
	n += sysfs_emit_at(buf, n, "prototypes: %s\n", RDNAFIX_BTF_PROTO_TEXT);
	n += sysfs_emit_at(buf, n, "pte_audit: %d %s\n", RDNAFIX_AUDIT_PTE, RDNAFIX_AUDIT_PTE_TEXT);
	return n;
}

/*
 * The 0-based index of the flags argument, or -errno with @why filled
 * (the hook then stays inactive).  Called with rf_arm_lock held.
 */
int rf_pte_proto_decide(char *why, size_t len)
{
	const int btf = RDNAFIX_BTF_PTE_FLAGS_ARG, btf_n = RDNAFIX_BTF_PTE_NARGS;
	const int audit = RDNAFIX_AUDIT_PTE;
	int tab = -1, tab_n = 0, arg = -1, map, t;
	unsigned int major, minor;
	const char *tested = NULL;
	char series[96];

	t = rf_series(&major, &minor);
	if (t >= 0) {
		tab = rf_tested[t].flags_arg;
		tab_n = rf_tested[t].nargs;
		tested = rf_tested[t].tested;
	}
	if (rf_hook_proto_check(RF_HOOK_GET_VM_PTE, why, len))
		goto refuse;
	if (btf >= 0 && tab >= 0 && (btf != tab || btf_n != tab_n)) {
		scnprintf(why, len, "BTF (argument %d of %d) disagrees with tested %s (%d of %d)",
			  btf + 1, btf_n, tested, tab + 1, tab_n);
		goto refuse;
	}
	if (audit == 0) {
		scnprintf(why, len, "%s: %s",
			  "the audit of amdgpu's get_vm_pte callers disproved the flags pointer",
			  RDNAFIX_AUDIT_PTE_TEXT);
		goto refuse;
	}
	rf_untested_why(series, sizeof(series), major, minor);
	if (tab >= 0) {
		arg = tab;
		scnprintf(rf_pte_proto_text, sizeof(rf_pte_proto_text),
			  "flags=argument %d of %d; tested series %s; %s", arg + 1, tab_n, tested,
			  RDNAFIX_BTF_PTE_TEXT);
	} else if (audit == 1 && btf >= 0 &&
		   ((btf == 2 && btf_n == 3) || (btf == 4 && btf_n == 5))) {
		arg = btf;
		scnprintf(rf_pte_proto_text, sizeof(rf_pte_proto_text),
			  "flags=argument %d of %d; %s, audit: %s; %s", arg + 1, btf_n, series,
			  RDNAFIX_AUDIT_PTE_TEXT, RDNAFIX_BTF_PTE_TEXT);
	} else if (READ_ONCE(rf_pte_unproven)) {
		scnprintf(rf_pte_proto_text, sizeof(rf_pte_proto_text),
			  "UNPROVEN (pte_unproven=1): %s, %s", series, RDNAFIX_BTF_PTE_TEXT);
	} else {
		scnprintf(why, len, "prototype not proven: %s, audit %d (%s), BTF %s%s", series,
			  audit, RDNAFIX_AUDIT_PTE_TEXT[0] ? RDNAFIX_AUDIT_PTE_TEXT : "not run",
			  RDNAFIX_BTF_PTE_TEXT, " (pte_unproven=1 overrides, dangerous)");
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
		scnprintf(why, len,
			  "the loaded amdgpu %s gmc_v10_0_map_mtype, unlike the one rdnafix was built against (evidence: amdgpu_path); rebuild: dkms unbuild rdnafix/%s -k %s; dkms install rdnafix/%s -k %s",
			  map ? "has" : "lacks", RDNAFIX_VERSION, init_utsname()->release,
			  RDNAFIX_VERSION, init_utsname()->release);
		goto refuse;
	}
	return arg;

refuse:
	scnprintf(rf_pte_proto_text, sizeof(rf_pte_proto_text), "refused: %s", why);
	return -ENOEXEC;
}
