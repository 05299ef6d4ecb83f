// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix hooks: kretprobes on amdgpu functions and the per-device
 * parameter swap; the device table they fill is in rdnafix_devices.c.
 *
 * All handlers run with preemption disabled and must not sleep: they use
 * READ_ONCE/WRITE_ONCE, atomics and the raw spinlock rf_lock only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/ptrace.h>
#include <linux/string.h>

#include "rdnafix.h"

/* serialises arming/disarming (module notifier, init, exit) and hook status */
DEFINE_MUTEX(rf_arm_lock);
atomic_t rf_amdgpu_state = ATOMIC_INIT(RF_AMDGPU_ABSENT);

/* 0-based argument index of "uint64_t *flags" in gmc_v10_0_get_vm_pte */
static unsigned int rf_pte_flags_arg;

/* set once an amdgpu_pci_probe went through our hook since arming */
atomic_t rf_probe_seen = ATOMIC_INIT(0);

/*
 * One of amdgpu's own parameter variables, set to a device's value for the
 * duration of one call and restored on return.  All fields under rf_lock.
 */
struct rf_swap {
	int *var;		/* amdgpu's variable, NULL when unknown */
	void *owner;		/* adev whose value is in *var, or NULL */
	int saved;		/* amdgpu's own value while owner != NULL */
};

static struct rf_swap rf_swap_noretry;
static struct rf_swap rf_swap_fragment;

/* ------------------------------------------------------------------ */
/* amdgpu_pci_probe(struct pci_dev *pdev, const struct pci_device_id *) */
/* ------------------------------------------------------------------ */

struct rf_probe_data {
	struct pci_dev *pdev;
};

static int rf_probe_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rf_probe_data *pd = (struct rf_probe_data *)ri->data;
	struct pci_dev *pdev = (struct pci_dev *)regs_get_kernel_argument(regs, 0);
	struct rf_dev *d;
	unsigned long flags;
	bool created = false;

	pd->pdev = pdev;
	if (!pdev)
		return 1;
	atomic_set(&rf_probe_seen, 1);
	raw_spin_lock_irqsave(&rf_lock, flags);
	rf_probing++;
	rf_probing_pdev = rf_probing == 1 ? pdev : NULL;
	d = rf_dev_claim_locked(pdev, &created);
	if (d) {
		WRITE_ONCE(d->adev, NULL);	/* a new amdgpu_device will come */
		rf_dev_decide_locked(d);
		if (rf_probing > 1)
			scnprintf(d->note, sizeof(d->note),
				  "probed while another amdgpu device was probing");
	}
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	if (created)
		rf_sysfs_kick();
	return 0;
}

static int rf_probe_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rf_probe_data *pd = (struct rf_probe_data *)ri->data;
	long rc = (long)regs_return_value(regs);
	struct rf_dev *d;
	unsigned long flags;

	raw_spin_lock_irqsave(&rf_lock, flags);
	if (rf_probing > 0)
		rf_probing--;
	if (rf_probing_pdev == pd->pdev || rf_probing == 0)
		rf_probing_pdev = NULL;
	d = rf_dev_by_pdev_locked(pd->pdev);
	if (d && rc)
		scnprintf(d->note, sizeof(d->note), "amdgpu_pci_probe failed: %ld", rc);
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	return 0;
}

/* ------------------------------------------------------------------ */
/* amdgpu_gmc_noretry_set(adev), amdgpu_vm_adjust_size(adev, ...)       */
/* ------------------------------------------------------------------ */

struct rf_swap_data {
	struct rf_dev *dev;
	void *adev;
	int value;
};

/*
 * Entry of an init-time hook: put the device's requested value into
 * amdgpu's variable for this call.  Returns 0 if the return handler must
 * restore it.
 */
static int rf_swap_entry(struct kretprobe_instance *ri, struct pt_regs *regs,
			 struct rf_swap *sw, bool noretry)
{
	struct rf_swap_data *sd = (struct rf_swap_data *)ri->data;
	void *adev = (void *)regs_get_kernel_argument(regs, 0);
	const char *what = noretry ? "noretry" : "vm_fragment_size";
	struct rf_dev *d = rf_dev_for_adev(adev, true);
	unsigned long flags;
	int want, ret = 1;

	if (!d)
		return 1;
	raw_spin_lock_irqsave(&rf_lock, flags);
	want = noretry ? d->noretry_req : d->fragment_req;
	if (!sw->var) {
		/* hook armed without the variable: cannot happen, stay safe */
	} else if (sw->owner) {
		scnprintf(d->note, sizeof(d->note),
			  "%s not applied: another device was initialising at the same time",
			  what);
	} else if (!d->targeted || d->refused || want == -1) {
		/* amdgpu's own value */
	} else if (READ_ONCE(rf_dry_run)) {
		scnprintf(d->note, sizeof(d->note),
			  "dry run: requested noretry/vm_fragment_size not applied");
	} else {
		sw->owner = adev;
		sw->saved = READ_ONCE(*sw->var);
		WRITE_ONCE(*sw->var, want);
		sd->dev = d;
		sd->adev = adev;
		sd->value = want;
		ret = 0;
	}
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	return ret;
}

static int rf_swap_return(struct kretprobe_instance *ri, struct rf_swap *sw, bool noretry)
{
	struct rf_swap_data *sd = (struct rf_swap_data *)ri->data;
	unsigned long flags;

	raw_spin_lock_irqsave(&rf_lock, flags);
	if (sw->owner == sd->adev) {
		if (sw->var)
			WRITE_ONCE(*sw->var, sw->saved);
		sw->owner = NULL;
		if (noretry)
			sd->dev->noretry_applied = sd->value;
		else
			sd->dev->fragment_applied = sd->value;
	}
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	return 0;
}

static int rf_noretry_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rf_swap_entry(ri, regs, &rf_swap_noretry, true);
}

static int rf_noretry_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rf_swap_return(ri, &rf_swap_noretry, true);
}

static int rf_adjust_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rf_swap_entry(ri, regs, &rf_swap_fragment, false);
}

static int rf_adjust_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rf_swap_return(ri, &rf_swap_fragment, false);
}

/* ------------------------------------------------------------------ */
/* gmc_v10_0_get_vm_pte(adev, ..., uint64_t *flags)                     */
/* ------------------------------------------------------------------ */

struct rf_pte_data {
	u64 *flags;
	struct rf_dev *dev;
};

static int rf_pte_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rf_pte_data *pd = (struct rf_pte_data *)ri->data;
	void *adev = (void *)regs_get_kernel_argument(regs, 0);
	struct rf_dev *d = rf_dev_by_adev(adev);

	if (!d) {
		d = rf_dev_for_adev(adev, false);
		if (!d)
			return 1;
	}
	atomic64_inc(&d->pte_calls);
	if (!READ_ONCE(d->targeted))
		return 1;
	if (READ_ONCE(rf_mtype_sysmem) == RDNAFIX_MTYPE_KEEP &&
	    READ_ONCE(rf_mtype_vram) == RDNAFIX_MTYPE_KEEP)
		return 1;
	pd->flags = (u64 *)regs_get_kernel_argument(regs, rf_pte_flags_arg);
	pd->dev = d;
	return pd->flags ? 0 : 1;
}

static int rf_pte_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rf_pte_data *pd = (struct rf_pte_data *)ri->data;
	u64 pte = READ_ONCE(*pd->flags);
	u64 out;

	switch (rdnafix_pte_apply(pte, READ_ONCE(rf_mtype_sysmem), READ_ONCE(rf_mtype_vram),
				  READ_ONCE(rf_dry_run), &out)) {
	case RDNAFIX_PTE_REWRITE:
		WRITE_ONCE(*pd->flags, out);
		atomic64_inc(&pd->dev->pte_rewrites);
		atomic64_inc(&pd->dev->pte_would);
		break;
	case RDNAFIX_PTE_WOULD_REWRITE:
		atomic64_inc(&pd->dev->pte_would);
		break;
	default:
		break;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Arming and disarming (rf_arm_lock held)                              */
/* ------------------------------------------------------------------ */

struct rf_hook rf_hooks[RF_HOOK_COUNT];

struct rf_hook_def {
	const char *name;
	const char *symbol;
	kretprobe_handler_t entry;
	kretprobe_handler_t ret;
	size_t data_size;
};

static const struct rf_hook_def rf_hook_defs[RF_HOOK_COUNT] = {
	[RF_HOOK_PCI_PROBE] = { "pci_probe", "amdgpu:amdgpu_pci_probe",
		rf_probe_entry, rf_probe_return, sizeof(struct rf_probe_data) },
	[RF_HOOK_NORETRY_SET] = { "noretry_set", "amdgpu:amdgpu_gmc_noretry_set",
		rf_noretry_entry, rf_noretry_return, sizeof(struct rf_swap_data) },
	[RF_HOOK_VM_ADJUST_SIZE] = { "vm_adjust_size", "amdgpu:amdgpu_vm_adjust_size",
		rf_adjust_entry, rf_adjust_return, sizeof(struct rf_swap_data) },
	[RF_HOOK_GET_VM_PTE] = { "get_vm_pte", "amdgpu:gmc_v10_0_get_vm_pte",
		rf_pte_entry, rf_pte_return, sizeof(struct rf_pte_data) },
};

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
	unsigned int i;

	for (i = 0; i < RF_HOOK_COUNT; i++) {
		rf_hooks[i].name = rf_hook_defs[i].name;
		rf_hooks[i].symbol = rf_hook_defs[i].symbol;
	}
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
	h->krp.maxactive = id == RF_HOOK_GET_VM_PTE ?
			   max_t(int, 16, 4 * num_possible_cpus()) : 8;
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
 * gmc_v10_0_get_vm_pte takes (adev, mapping, u64 *flags) up to 6.17 and
 * (adev, vm, bo, u32 vm_flags, u64 *flags) from 6.18, the release that
 * removed gmc_v10_0_map_mtype.  Decided from the running amdgpu, not from
 * the kernel version, because distributions backport.  Returns the
 * 0-based argument index or -errno.
 */
static int rf_pte_flags_index(void)
{
	int map = rf_symbol_present("amdgpu:gmc_v10_0_map_mtype");

	if (map == 1)
		return 2;
	if (map == 0)
		return 4;
	rf_hook_status(&rf_hooks[RF_HOOK_GET_VM_PTE], RF_HOOK_INACTIVE,
		       "cannot tell the get_vm_pte prototype: probing gmc_v10_0_map_mtype gave %d",
		       map);
	return map;
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

	for (i = 0; i < RF_HOOK_COUNT; i++) {
		if (rf_hooks[i].registered) {
			krps[n++] = &rf_hooks[i].krp;
			rf_hooks[i].registered = false;
		}
	}
	if (n)
		unregister_kretprobes(krps, n);
	/* calls that found no free kretprobe instance were not handled */
	for (i = 0; i < n; i++)
		if (krps[i]->nmissed)
			pr_warn("%s: %d calls were missed (no free kretprobe instance)\n",
				krps[i]->kp.symbol_name, krps[i]->nmissed);
	/* a return handler that never ran must not leave a device's value behind */
	raw_spin_lock_irqsave(&rf_lock, flags);
	if (rf_swap_noretry.owner && rf_swap_noretry.var)
		WRITE_ONCE(*rf_swap_noretry.var, rf_swap_noretry.saved);
	if (rf_swap_fragment.owner && rf_swap_fragment.var)
		WRITE_ONCE(*rf_swap_fragment.var, rf_swap_fragment.saved);
	rf_swap_noretry.owner = NULL;
	rf_swap_noretry.var = NULL;
	rf_swap_fragment.owner = NULL;
	rf_swap_fragment.var = NULL;
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
	static const char * const param[RF_HOOK_COUNT] = {
		[RF_HOOK_NORETRY_SET] = "noretry",
		[RF_HOOK_VM_ADJUST_SIZE] = "vm_fragment_size",
	};
	struct rf_swap *swap[RF_HOOK_COUNT] = {
		[RF_HOOK_NORETRY_SET] = &rf_swap_noretry,
		[RF_HOOK_VM_ADJUST_SIZE] = &rf_swap_fragment,
	};
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

	for (id = 0; id < RF_HOOK_GET_VM_PTE; id++) {
		if (param[id]) {
			var = rf_amdgpu_int_param(amdgpu, param[id]);
			if (!var) {
				rf_hook_status(&rf_hooks[id], RF_HOOK_INACTIVE,
					       "amdgpu has no int parameter '%s'", param[id]);
				if (!ret)
					ret = -ENOENT;
				continue;
			}
			raw_spin_lock_irqsave(&rf_lock, flags);
			swap[id]->var = var;
			raw_spin_unlock_irqrestore(&rf_lock, flags);
		}
		r = rf_hook_register(id);
		if (r) {
			if (!ret)
				ret = r;
			continue;
		}
		if (late && param[id])
			rf_hook_status(&rf_hooks[id], RF_HOOK_LATE,
				       "amdgpu was loaded before rdnafix; applies to devices probed again (rebind or reload amdgpu)");
	}

	idx = rf_pte_flags_index();
	if (idx < 0) {
		r = idx;
	} else {
		rf_pte_flags_arg = idx;
		pr_info("gmc_v10_0_get_vm_pte: flags pointer is argument %d (gmc_v10_0_map_mtype %s)\n",
			idx + 1, idx == 2 ? "present: <= 6.17 prototype" :
					    "absent: >= 6.18 prototype");
		r = rf_hook_register(RF_HOOK_GET_VM_PTE);
	}
	if (r && !ret)
		ret = r;
	return ret;
}
