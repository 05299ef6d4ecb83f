// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix arming: registers the kretprobes described by rf_hook_defs[]
 * (rdnafix_hooks.c) on amdgpu, removes them, and keeps each hook's status.
 * Runs in process context with rf_arm_lock held (module notifier, init,
 * exit).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "rdnafix.h"

/* serialises arming/disarming (module notifier, init, exit) and hook status */
DEFINE_MUTEX(rf_arm_lock);
atomic_t rf_amdgpu_state = ATOMIC_INIT(RF_AMDGPU_ABSENT);

struct rf_hook rf_hooks[RF_HOOK_COUNT];

static __printf(3, 4) void rf_hook_status(struct rf_hook *h, int status, const char *fmt, ...)
{
	va_list ap;

	h->status = status;
	va_start(ap, fmt);
	vscnprintf(h->reason, sizeof(h->reason), fmt, ap);
	va_end(ap);
}

void rf_hooks_set_all(int status, const char *reason)
{
	unsigned int i;

	for (i = 0; i < RF_HOOK_COUNT; i++)
		rf_hook_status(&rf_hooks[i], status, "%s", reason);
}

void rf_hooks_init(void)
{
	/* a hook's name is its file name under hooks/ */
	static const struct {
		unsigned int id;
		const char *name;
	} names[] = {
#define RDNAFIX_HOOK_FILE(_name, _id) { RF_HOOK_##_id, #_name },
#include "rdnafix_sysfs_files.h"
	};
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(names) != RF_HOOK_COUNT);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		rf_hooks[names[i].id].name = names[i].name;
	for (i = 0; i < RF_HOOK_COUNT; i++)
		rf_hooks[i].symbol = rf_hook_defs[i].symbol;
	rf_hooks_set_all(RF_HOOK_PENDING, "amdgpu is not loaded");
}

static int rf_hook_register(unsigned int id)
{
	const struct rf_hook_def *def = &rf_hook_defs[id];
	struct rf_hook *h = &rf_hooks[id];
	int ret;

	/* a kretprobe cannot be re-registered without being reset */
	memset(&h->krp, 0, sizeof(h->krp));
	h->krp.kp.symbol_name = def->symbol;
	h->krp.entry_handler = def->entry;
	h->krp.handler = def->ret;
	h->krp.data_size = def->data_size;
	h->krp.maxactive = max_t(int, def->maxactive,
				 def->maxactive_per_cpu * num_possible_cpus());
#ifdef RDNAFIX_TEST_MAXACTIVE
	/* a test build (kmod/Kbuild, test-maxactive): instances run out */
	h->krp.maxactive = RDNAFIX_TEST_MAXACTIVE;
#endif
	ret = register_kretprobe(&h->krp);
	if (ret) {
		rf_hook_status(h, RF_HOOK_INACTIVE, "register_kretprobe(%s) failed: %d",
			       def->symbol, ret);
		pr_warn("hook %s: register_kretprobe(%s) failed: %d\n", h->name, def->symbol, ret);
		return ret;
	}
	h->registered = true;
	rf_hook_status(h, RF_HOOK_ACTIVE, "%s", "");
	return 0;
}

/*
 * amdgpu's struct module when it is already loaded, found through the
 * module kset (the parent of our own /sys/module/rdnafix): only exported
 * interfaces, no symbol lookups.  The returned kobject reference must be
 * dropped with kobject_put() once the module pointer is no longer used;
 * rf_arm_lock (held) keeps amdgpu from being freed before its GOING
 * notification, which disarms everything.
 */
struct module *rf_find_amdgpu(struct kobject **ref)
{
	struct kset *modules = THIS_MODULE->mkobj.kobj.kset;
	struct module_kobject *mk;
	struct kobject *kobj;

	*ref = NULL;
	if (!modules)
		return NULL;
	kobj = kset_find_obj(modules, "amdgpu");
	if (!kobj)
		return NULL;
	mk = container_of(kobj, struct module_kobject, kobj);
	if (!mk->mod || (mk->mod->state != MODULE_STATE_LIVE &&
			 mk->mod->state != MODULE_STATE_COMING)) {
		kobject_put(kobj);
		return NULL;
	}
	*ref = kobj;
	return mk->mod;
}

/*
 * amdgpu is built into the kernel: /sys/module/amdgpu exists (its
 * parameters) without a struct module behind it (no initstate).
 */
bool rf_amdgpu_builtin(void)
{
	struct kset *modules = THIS_MODULE->mkobj.kobj.kset;
	struct kobject *kobj;
	bool builtin;

	if (IS_BUILTIN(CONFIG_DRM_AMDGPU))
		return true;
	if (!modules)
		return false;
	kobj = kset_find_obj(modules, "amdgpu");
	if (!kobj)
		return false;
	builtin = !container_of(kobj, struct module_kobject, kobj)->mod;
	kobject_put(kobj);
	return builtin;
}

/* amdgpu's int parameter @name, from its kernel_param table. */
static int *rf_amdgpu_int_param(struct module *mod, const char *name)
{
	unsigned int i;

	for (i = 0; i < mod->num_kp; i++) {
		const struct kernel_param *kp = &mod->kp[i];

		if (strcmp(kp->name, name))
			continue;
		if (kp->ops != &param_ops_int) {
			pr_warn("amdgpu parameter %s is not an int parameter\n", name);
			return NULL;
		}
		return kp->arg;
	}
	pr_warn("amdgpu has no parameter %s\n", name);
	return NULL;
}

void rf_hooks_disarm(void)
{
	struct kretprobe *krps[RF_HOOK_COUNT];
	unsigned long flags;
	unsigned int i, n = 0;

	rf_leak_disarm();
	for (i = 0; i < RF_HOOK_COUNT; i++) {
		if (rf_hooks[i].registered) {
			krps[n++] = &rf_hooks[i].krp;
			rf_hooks[i].registered = false;
		}
	}
	if (n)
		unregister_kretprobes(krps, n);
	/* calls that found no free instance, or came in recursively, were not handled */
	for (i = 0; i < n; i++)
		if (krps[i]->nmissed || krps[i]->kp.nmissed)
			pr_warn("%s: calls missed: %d (no free kretprobe instance), %lu (recursion)\n",
				krps[i]->kp.symbol_name, krps[i]->nmissed, krps[i]->kp.nmissed);
	/* a return handler that never ran must not leave a device's value behind */
	raw_spin_lock_irqsave(&rf_lock, flags);
	for (i = 0; i < RF_HOOK_COUNT; i++) {
		struct rf_swap *sw = rf_hook_defs[i].swap;

		if (!sw)
			continue;
		if (sw->swapped && sw->var)
			WRITE_ONCE(*sw->var, sw->saved);
		sw->swapped = false;
		sw->users = 0;
		sw->var = NULL;
	}
	raw_spin_unlock_irqrestore(&rf_lock, flags);
}

/*
 * Arm every hook on @amdgpu, which is at MODULE_STATE_COMING or (@late)
 * was already loaded when rdnafix loaded.  In the late case the devices
 * amdgpu has already initialised keep amdgpu's noretry/vm_fragment_size:
 * the init-time hooks report "pending" until a device is probed again.
 * Returns 0 or the first failure; a hook that failed stays inactive with
 * its reason.
 */
int rf_hooks_arm(struct module *amdgpu, bool late)
{
	char why[RF_PROTO_TEXT_MAX];
	unsigned long flags;
	int ret = 0, r, idx;
	unsigned int id;
	int *var;

	rf_hooks_disarm();
	atomic_set(&rf_probe_seen, 0);
	raw_spin_lock_irqsave(&rf_lock, flags);
	rf_probing = 0;
	rf_probing_pdev = NULL;
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	for (id = 0; id < RF_HOOK_COUNT; id++) {
		atomic64_set(&rf_hook_counts[id].seen, 0);
		atomic64_set(&rf_hook_counts[id].refused, 0);
		WRITE_ONCE(rf_hook_counts[id].last_refusal, NULL);
	}

	for (id = 0; id < RF_HOOK_COUNT; id++) {
		const struct rf_hook_def *def = &rf_hook_defs[id];

		if (id == RF_HOOK_GET_VM_PTE)
			continue;
		r = rf_hook_proto_check(id, why, sizeof(why));
		if (r) {
			rf_hook_status(&rf_hooks[id], RF_HOOK_INACTIVE, "%s", why);
			pr_warn("hook %s not armed: %s\n", rf_hooks[id].name, why);
			if (!ret)
				ret = r;
			continue;
		}
		if (def->param) {
			var = rf_amdgpu_int_param(amdgpu, def->param);
			if (!var) {
				rf_hook_status(&rf_hooks[id], RF_HOOK_INACTIVE,
					       "amdgpu has no int parameter '%s'", def->param);
				if (!ret)
					ret = -ENOENT;
				continue;
			}
			raw_spin_lock_irqsave(&rf_lock, flags);
			def->swap->var = var;
			raw_spin_unlock_irqrestore(&rf_lock, flags);
		}
		r = rf_hook_register(id);
		if (r) {
			if (!ret)
				ret = r;
			continue;
		}
		if (late && def->param)
			rf_hook_status(&rf_hooks[id], RF_HOOK_LATE,
				       "amdgpu was loaded before rdnafix; applies to devices probed again (rebind or reload amdgpu)");
	}

	idx = rf_pte_proto_decide(why, sizeof(why));
	if (idx < 0) {
		rf_hook_status(&rf_hooks[RF_HOOK_GET_VM_PTE], RF_HOOK_INACTIVE, "%s", why);
		pr_warn("get_vm_pte hook not armed: %s\n", why);
		r = idx;
	} else {
		rf_pte_flags_arg = idx;
		pr_info("gmc_v10_0_get_vm_pte: %s\n", rf_pte_proto_text);
		r = rf_hook_register(RF_HOOK_GET_VM_PTE);
	}
	if (r && !ret)
		ret = r;
	rf_leak_arm(amdgpu);	/* records only: its failures are in leak_readers */
	return ret;
}
