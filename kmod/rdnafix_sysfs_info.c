// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix sysfs ABI v1, the files that are not a hook's state or a
 * device's value: the PTE paths the hook does not see, the per-hook call
 * and miss counters, and the build-time evidence (docs/sysfs-abi.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "rdnafix.h"

/*
 * The paths that write GMC v10 PTEs without calling get_vm_pte: the MTYPE
 * policy cannot reach them.  One line each, "<path>: <what> (<source>)";
 * docs/kernel-module.md, "What the PTE hook does not see".
 */
static const char *const rf_nc_gart[] = {
	"gart: GART table entries take adev->gart.gart_pte_flags (MTYPE UC), set in ",
	"gmc_v10_0_gart_init and written by amdgpu_gart_map ",
	"(gmc_v10_0.c, amdgpu_gart.c, Linux 6.1-7.2)", NULL,
};

static const char *const rf_nc_fault[] = {
	"retry-fault: page-table fills for retry faults (noretry=0) are made by ",
	"amdgpu_vm_handle_fault with flags it builds itself ",
	"(gmc_v10_0.c: gmc_v10_0_process_interrupt, amdgpu_vm.c, Linux 6.1-7.2)", NULL,
};

static const char *const rf_nc_svm_off[] = {
	"svm: KFD SVM is not built in this kernel (CONFIG_HSA_AMD_SVM off)", NULL,
};

static const char *const rf_nc_svm_old[] = {
	"svm: KFD SVM ranges take their flags from svm_range_get_pte_flags through ",
	"amdgpu_gem_va_map_flags, not get_vm_pte ",
	"(kfd_svm.c: svm_range_map_to_gpu, Linux 6.1-6.17)", NULL,
};

static const char *const rf_nc_svm_new[] = {
	"svm: covered: KFD SVM ranges pass through get_vm_pte ",
	"(kfd_svm.c: svm_range_map_to_gpu, Linux 6.18+)", NULL,
};

static const char *const rf_nc_svm_unknown[] = {
	"svm: not known until amdgpu is loaded (covered from Linux 6.18, not before)", NULL,
};

static const char *const rf_nc_svm_inactive[] = {
	"svm: not decided: the get_vm_pte hook is inactive (hooks/get_vm_pte), ",
	"no PTE is rewritten", NULL,
};

static const char *const rf_nc_svm_builtin[] = {
	"svm: not known: amdgpu is built into the kernel, nothing is hooked", NULL,
};

static const char *const rf_nc_existing[] = {
	"existing: PTEs written before the hook was armed or before a parameter change ",
	"keep their MTYPE until amdgpu writes them again", NULL,
};

ssize_t not_covered_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	const char *const *lines[] = { rf_nc_gart, rf_nc_fault, rf_nc_svm_unknown, rf_nc_existing };
	const char *const *piece;
	unsigned int i;
	ssize_t n = 0;

	mutex_lock(&rf_arm_lock);
	if (!IS_ENABLED(CONFIG_HSA_AMD_SVM))
		lines[2] = rf_nc_svm_off;
	else if (atomic_read(&rf_amdgpu_state) == RF_AMDGPU_BUILTIN)
		lines[2] = rf_nc_svm_builtin;
	else if (rf_pte_proto_text[0] && !strstarts(rf_pte_proto_text, "refused") &&
		 rf_hooks[RF_HOOK_GET_VM_PTE].status != RF_HOOK_INACTIVE)
		lines[2] = rf_pte_flags_arg == 4 ? rf_nc_svm_new : rf_nc_svm_old;
	else if (rf_pte_proto_text[0] || rf_hooks[RF_HOOK_GET_VM_PTE].status == RF_HOOK_INACTIVE)
		lines[2] = rf_nc_svm_inactive;	/* refused, or could not be placed */
	mutex_unlock(&rf_arm_lock);
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		for (piece = lines[i]; *piece; piece++)
			n += sysfs_emit_at(buf, n, "%s", *piece);
		n += sysfs_emit_at(buf, n, "\n");
	}
	return n;
}

/* calls each hook missed (no free kretprobe instance), "<hook> <count>" per line */
ssize_t nmissed_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	unsigned int i;
	ssize_t n = 0;

	mutex_lock(&rf_arm_lock);
	for (i = 0; i < RF_HOOK_COUNT; i++)
		n += sysfs_emit_at(buf, n, "%s %lu\n", rf_hooks[i].name,
				   (unsigned long)READ_ONCE(rf_hooks[i].krp.nmissed));
	mutex_unlock(&rf_arm_lock);
	return n;
}

/*
 * Calls each hook did not handle, "<hook> instance=<n> recursion=<n>":
 * no free kretprobe instance (struct kretprobe.nmissed), or the probe hit
 * while a kprobe handler ran on that CPU (struct kprobe.nmissed).
 */
ssize_t missing_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	unsigned int i;
	ssize_t n = 0;

	mutex_lock(&rf_arm_lock);
	for (i = 0; i < RF_HOOK_COUNT; i++)
		n += sysfs_emit_at(buf, n, "%s instance=%lu recursion=%lu\n", rf_hooks[i].name,
				   (unsigned long)READ_ONCE(rf_hooks[i].krp.nmissed),
				   READ_ONCE(rf_hooks[i].krp.kp.nmissed));
	mutex_unlock(&rf_arm_lock);
	return n;
}

/* "<hook> seen=<n> refused=<n>" per hook, since it was last armed */
ssize_t calls_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	unsigned int i;
	ssize_t n = 0;

	for (i = 0; i < RF_HOOK_COUNT; i++) {
		s64 refused = atomic64_read(&rf_hook_counts[i].refused);

		n += sysfs_emit_at(buf, n, "%s seen=%lld refused=%lld\n", rf_hooks[i].name,
				   (long long)atomic64_read(&rf_hook_counts[i].seen),
				   (long long)refused);
	}
	return n;
}

ssize_t evidence_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return rf_evidence_emit(buf);
}
