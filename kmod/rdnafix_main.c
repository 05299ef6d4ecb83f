// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix: per-device noretry, vm_fragment_size and (experimental) PTE
 * MTYPE for RDNA1/RDNA2 (GMC v10) GPUs driven by the in-tree, unmodified
 * amdgpu, through kprobes.  Fails closed: a hook that cannot be placed is
 * reported "inactive: <reason>" in /sys/kernel/rdnafix/hooks/.
 *
 * Load order: a module notifier arms the hooks when amdgpu arrives
 * (MODULE_STATE_COMING) and disarms them when it leaves (GOING).  If
 * amdgpu is already loaded, every hook is armed at once; the devices it
 * has already initialised keep amdgpu's noretry/vm_fragment_size, so the
 * init-time hooks are reported pending until a device is probed again.
 * If amdgpu is still initialising (past COMING), the hooks are armed when
 * it becomes LIVE.  strict=1 holds on every path: at COMING amdgpu is
 * refused, at LIVE every hook is disarmed, at rdnafix's load rdnafix
 * fails.  A built-in amdgpu (CONFIG_DRM_AMDGPU=y) has nothing to hook.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/string.h>

#include "rdnafix.h"

static int rf_module_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct module *mod = data;
	int ret = 0;

	if (strcmp(mod->name, "amdgpu"))
		return NOTIFY_DONE;

	mutex_lock(&rf_arm_lock);
	switch (action) {
	case MODULE_STATE_COMING:
		atomic_set(&rf_amdgpu_state, RF_AMDGPU_COMING);
		ret = rf_hooks_arm(mod, false);
		if (ret && READ_ONCE(rf_strict)) {
			pr_err("strict=1 and a hook could not be placed (%d): refusing to let amdgpu load\n",
			       ret);
			rf_hooks_disarm();
			rf_hooks_set_all(RF_HOOK_INACTIVE,
					 "strict=1 refused amdgpu because a hook could not be placed");
			atomic_set(&rf_amdgpu_state, RF_AMDGPU_ABSENT);
			mutex_unlock(&rf_arm_lock);
			/* the cause is in the log; the caller sees "not supported" */
			return notifier_from_errno(-EOPNOTSUPP);
		}
		break;
	case MODULE_STATE_LIVE:
		/*
		 * rdnafix loaded while amdgpu was loading and missed COMING
		 * (amdgpu was not yet in the module kset when rf_init looked):
		 * arm now, as for an amdgpu loaded before rdnafix.
		 */
		if (atomic_read(&rf_amdgpu_state) == RF_AMDGPU_ABSENT) {
			atomic_set(&rf_amdgpu_state, RF_AMDGPU_LIVE);
			ret = rf_hooks_arm(mod, true);
			if (ret && READ_ONCE(rf_strict)) {
				/* too late to refuse amdgpu: hook nothing at all */
				pr_err("strict=1 and a hook could not be placed (%d): every hook disarmed\n",
				       ret);
				rf_hooks_disarm();
				rf_hooks_set_all(RF_HOOK_INACTIVE,
						 "strict=1: a hook could not be placed when amdgpu became live, so none is armed");
				break;
			}
			rf_devices_scan_bound();
			if (ret)
				pr_warn("armed at MODULE_STATE_LIVE with errors (%d)\n", ret);
			break;
		}
		atomic_set(&rf_amdgpu_state, RF_AMDGPU_LIVE);
		break;
	case MODULE_STATE_GOING:
		atomic_set(&rf_amdgpu_state, RF_AMDGPU_GOING);
		rf_hooks_disarm();
		rf_devices_unbind();
		rf_hooks_set_all(RF_HOOK_PENDING, "amdgpu is not loaded");
		rf_pte_proto_text[0] = '\0';	/* decided again for the next amdgpu */
		atomic_set(&rf_amdgpu_state, RF_AMDGPU_ABSENT);
		break;
	default:
		break;
	}
	mutex_unlock(&rf_arm_lock);
	return NOTIFY_OK;
}

static struct notifier_block rf_module_nb = {
	.notifier_call = rf_module_notify,
};

static int __init rf_init(void)
{
	struct module *amdgpu;
	struct kobject *ref;
	int ret;

	rf_hooks_init();
	ret = rf_sysfs_init();
	if (ret)
		return ret;
	ret = register_module_notifier(&rf_module_nb);
	if (ret)
		goto err_sysfs;

	/* amdgpu loaded before us: the notifier will not see it arrive */
	mutex_lock(&rf_arm_lock);
	if (rf_amdgpu_builtin()) {
		atomic_set(&rf_amdgpu_state, RF_AMDGPU_BUILTIN);
		rf_hooks_set_all(RF_HOOK_INACTIVE, RF_BUILTIN_REASON);
		pr_warn("%s\n", RF_BUILTIN_REASON);
		if (READ_ONCE(rf_strict)) {
			mutex_unlock(&rf_arm_lock);
			ret = -EOPNOTSUPP;
			goto err_notifier;
		}
	} else if (atomic_read(&rf_amdgpu_state) == RF_AMDGPU_ABSENT) {
		amdgpu = rf_find_amdgpu(&ref);
		if (amdgpu && amdgpu->state == MODULE_STATE_COMING) {
			/* still initialising: the LIVE notification arms */
			kobject_put(ref);
			pr_info("amdgpu is initialising: hooks are armed when it is live\n");
		} else if (amdgpu) {
			atomic_set(&rf_amdgpu_state, RF_AMDGPU_LIVE);
			ret = rf_hooks_arm(amdgpu, true);
			kobject_put(ref);
			rf_devices_scan_bound();
			if (ret && READ_ONCE(rf_strict)) {
				pr_err("strict=1 and a hook could not be placed (%d): not loading\n",
				       ret);
				rf_hooks_disarm();
				mutex_unlock(&rf_arm_lock);
				ret = -EOPNOTSUPP;
				goto err_notifier;
			}
			ret = 0;
		}
	}
	mutex_unlock(&rf_arm_lock);
	pr_info("version %s loaded, amdgpu %s\n", RDNAFIX_VERSION,
		rf_amdgpu_state_name(atomic_read(&rf_amdgpu_state)));
	return 0;

err_notifier:
	unregister_module_notifier(&rf_module_nb);
err_sysfs:
	rf_sysfs_exit();
	return ret;
}

static void __exit rf_exit(void)
{
	unregister_module_notifier(&rf_module_nb);
	mutex_lock(&rf_arm_lock);
	rf_hooks_disarm();
	mutex_unlock(&rf_arm_lock);
	rf_sysfs_exit();
	pr_info("unloaded\n");
}

module_init(rf_init);
module_exit(rf_exit);

MODULE_DESCRIPTION("Per-device noretry, vm_fragment_size and MTYPE for RDNA1/RDNA2 GPUs under amdgpu");
MODULE_AUTHOR("rdnafix authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDNAFIX_VERSION);
