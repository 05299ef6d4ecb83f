// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix hooks: kretprobes on amdgpu functions and the per-device
 * parameter swap; the device table they fill is in rdnafix_devices.c.
 *
 * All handlers run with preemption disabled and must not sleep: they use
 * READ_ONCE/WRITE_ONCE, atomics and the raw spinlock rf_lock only.  Each
 * is followed by NOKPROBE_SYMBOL, so that no probe can be placed on a
 * handler (as in the kernel's samples/kprobes/kretprobe_example.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>

#include "rdnafix.h"

/* 0-based argument index of "uint64_t *flags" in gmc_v10_0_get_vm_pte */
unsigned int rf_pte_flags_arg;

/* set once an amdgpu_pci_probe went through our hook since arming */
atomic_t rf_probe_seen = ATOMIC_INIT(0);

static struct rf_swap rf_swap_noretry;
static struct rf_swap rf_swap_fragment;

struct rf_hook_count rf_hook_counts[RF_HOOK_COUNT];

void rf_hook_seen(unsigned int id)
{
	atomic64_inc(&rf_hook_counts[id].seen);
}

NOKPROBE_SYMBOL(rf_hook_seen);

/* @why: a string constant, the "(<last reason>)" of hooks/<name> "refusing" */
void rf_hook_refused(unsigned int id, const char *why)
{
	WRITE_ONCE(rf_hook_counts[id].last_refusal, why);
	atomic64_inc(&rf_hook_counts[id].refused);
}

NOKPROBE_SYMBOL(rf_hook_refused);

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
	rf_hook_seen(RF_HOOK_PCI_PROBE);
	if (!pdev) {
		rf_hook_refused(RF_HOOK_PCI_PROBE, "no pci_dev");
		return 1;
	}
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
	if (!d)
		rf_hook_refused(RF_HOOK_PCI_PROBE, "device table full");
	if (created)
		rf_sysfs_kick();
	return 0;
}

NOKPROBE_SYMBOL(rf_probe_entry);

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

NOKPROBE_SYMBOL(rf_probe_return);

/* ------------------------------------------------------------------ */
/* amdgpu_gmc_noretry_set(adev), amdgpu_vm_adjust_size(adev, ...)       */
/* ------------------------------------------------------------------ */

struct rf_swap_data {
	struct rf_dev *dev;
	int got;		/* the value in amdgpu's variable during the call */
	bool mine;		/* @got is what rdnafix decided for this device */
	bool own;		/* rdnafix decided amdgpu's own value (want -1) */
};

/*
 * Entry of an init-time hook.  The first call in puts its device's
 * requested value into amdgpu's variable (if it has one); later calls that
 * overlap it get whatever is there and record it.  Returns 0: the return
 * handler must run to leave and restore.
 */
static int rf_swap_entry(struct kretprobe_instance *ri, struct pt_regs *regs,
			 struct rf_swap *sw, bool noretry)
{
	struct rf_swap_data *sd = (struct rf_swap_data *)ri->data;
	const unsigned int id = noretry ? RF_HOOK_NORETRY_SET : RF_HOOK_VM_ADJUST_SIZE;
	void *adev = (void *)regs_get_kernel_argument(regs, 0);
	struct rf_dev *d;
	unsigned long flags;
	int want, ret = 1;

	rf_hook_seen(id);
	d = rf_dev_for_adev(adev, true);
	if (!d) {
		rf_hook_refused(id, "unknown device: layout check failed or device table full");
		return 1;
	}
	if (READ_ONCE(d->refused))
		rf_hook_refused(id, "layout check failed (adev->dev != &adev->pdev->dev)");
	raw_spin_lock_irqsave(&rf_lock, flags);
	want = noretry ? d->noretry_req : d->fragment_req;
	if (!d->targeted || d->refused)
		want = -1;
	if (want != -1 && READ_ONCE(rf_dry_run)) {
		scnprintf(d->note, sizeof(d->note),
			  "dry run: requested noretry/vm_fragment_size not applied");
		want = -1;
	}
	if (sw->var) {
		if (sw->users == 0 && want != -1) {
			sw->saved = READ_ONCE(*sw->var);
			WRITE_ONCE(*sw->var, want);
			sw->swapped = true;
			sw->owner = d;
		}
		sw->users++;
		sd->dev = d;
		sd->got = READ_ONCE(*sw->var);
		/* what this device should get: its value, or amdgpu's own */
		sd->mine = want != -1 ? sd->got == want : !sw->swapped || sd->got == sw->saved;
		sd->own = want == -1;
		ret = 0;
	}
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	return ret;
}

NOKPROBE_SYMBOL(rf_swap_entry);

static int rf_swap_return(struct kretprobe_instance *ri, struct rf_swap *sw, bool noretry)
{
	struct rf_swap_data *sd = (struct rf_swap_data *)ri->data;
	const char *what = noretry ? "noretry" : "vm_fragment_size";
	struct rf_dev *d = sd->dev;
	unsigned long flags;

	raw_spin_lock_irqsave(&rf_lock, flags);
	if (sw->users > 0 && --sw->users == 0 && sw->swapped) {
		if (sw->var)
			WRITE_ONCE(*sw->var, sw->saved);
		sw->swapped = false;
	}
	if (!sd->mine) {
		/* overlapped another device's call: it received that device's value */
		size_t len = strnlen(d->note, sizeof(d->note));

		scnprintf(d->note + len, sizeof(d->note) - len,
			  "%s%s %d received from another device initialising at the same time",
			  len ? "; " : "", what, sd->got);
	}
	/* applied: what rdnafix put in place for this call, or -1 for amdgpu's own */
	if (sd->mine && sd->own)
		sd->got = -1;
	if (noretry)
		d->noretry_applied = sd->got;
	else
		d->fragment_applied = sd->got;
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	return 0;
}

NOKPROBE_SYMBOL(rf_swap_return);

static int rf_noretry_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rf_swap_entry(ri, regs, &rf_swap_noretry, true);
}

NOKPROBE_SYMBOL(rf_noretry_entry);

static int rf_noretry_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rf_swap_return(ri, &rf_swap_noretry, true);
}

NOKPROBE_SYMBOL(rf_noretry_return);

static int rf_adjust_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rf_swap_entry(ri, regs, &rf_swap_fragment, false);
}

NOKPROBE_SYMBOL(rf_adjust_entry);

static int rf_adjust_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return rf_swap_return(ri, &rf_swap_fragment, false);
}

NOKPROBE_SYMBOL(rf_adjust_return);

/* ------------------------------------------------------------------ */
/* gmc_v10_0_get_vm_pte(adev, ..., uint64_t *flags)                     */
/* ------------------------------------------------------------------ */

struct rf_pte_data {
	u64 *flags;
	struct rf_dev *dev;
};

atomic64_t rf_pte_refused[RF_PTE_REFUSAL_COUNT];

/*
 * Is @p a u64 that lies wholly inside the current task's stack?  Every
 * caller of get_vm_pte passes the address of a local variable
 * (amdgpu_vm.c: amdgpu_vm_bo_update, kfd_svm.c: svm_range_map_to_gpu), so
 * anything else means the prototype is not what rdnafix was built for.
 * The test of object_is_on_stack() (linux/sched/task_stack.h), extended to
 * the last byte.
 */
static bool rf_pte_ptr_ok(const u64 *p)
{
	unsigned long lo = (unsigned long)task_stack_page(current);
	unsigned long a = (unsigned long)p;

	if (!lo || !IS_ALIGNED(a, sizeof(u64)))
		return false;
	return a >= lo && a + sizeof(u64) <= lo + THREAD_SIZE;
}

NOKPROBE_SYMBOL(rf_pte_ptr_ok);

static void rf_pte_refuse(enum rf_pte_refusal why)
{
	static const char *const text[RF_PTE_REFUSAL_COUNT] = {
		[RF_PTE_REFUSED_POINTER] = "flags pointer not on the caller's stack",
		[RF_PTE_REFUSED_ENTRY_VALUE] = "entry value is not a PTE flag word",
		[RF_PTE_REFUSED_RETURN_VALUE] = "returned value is not a PTE flag word",
	};

	atomic64_inc(&rf_pte_refused[why]);
	rf_hook_refused(RF_HOOK_GET_VM_PTE, text[why]);
}

NOKPROBE_SYMBOL(rf_pte_refuse);

static int rf_pte_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rf_pte_data *pd = (struct rf_pte_data *)ri->data;
	void *adev = (void *)regs_get_kernel_argument(regs, 0);
	struct rf_dev *d = rf_dev_by_adev(adev);
	u64 *p;

	rf_hook_seen(RF_HOOK_GET_VM_PTE);
	if (!d) {
		d = rf_dev_for_adev(adev, false);
		if (!d) {
			rf_hook_refused(RF_HOOK_GET_VM_PTE,
					"unknown device: layout check failed or device table full");
			return 1;
		}
	}
	atomic64_inc(&d->pte_calls);
	if (!READ_ONCE(d->targeted))
		return 1;
	if (READ_ONCE(rf_mtype_sysmem) == RDNAFIX_MTYPE_KEEP &&
	    READ_ONCE(rf_mtype_vram) == RDNAFIX_MTYPE_KEEP)
		return 1;
	p = (u64 *)regs_get_kernel_argument(regs, rf_pte_flags_arg);
	if (!rf_pte_ptr_ok(p)) {
		rf_pte_refuse(RF_PTE_REFUSED_POINTER);
		return 1;
	}
	if (!rdnafix_pte_is_flag_word(READ_ONCE(*p))) {
		rf_pte_refuse(RF_PTE_REFUSED_ENTRY_VALUE);
		return 1;
	}
	pd->flags = p;
	pd->dev = d;
	return 0;
}

NOKPROBE_SYMBOL(rf_pte_entry);

static int rf_pte_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rf_pte_data *pd = (struct rf_pte_data *)ri->data;
	u64 pte, out;

	/* the same task returns on the same stack: prove it again all the same */
	if (!rf_pte_ptr_ok(pd->flags)) {
		rf_pte_refuse(RF_PTE_REFUSED_POINTER);
		return 0;
	}
	pte = READ_ONCE(*pd->flags);
	if (!rdnafix_pte_is_flag_word(pte)) {
		rf_pte_refuse(RF_PTE_REFUSED_RETURN_VALUE);
		return 0;
	}
	switch (rdnafix_pte_apply(pte, READ_ONCE(rf_mtype_sysmem), READ_ONCE(rf_mtype_vram),
				  READ_ONCE(rf_mtype_override), READ_ONCE(rf_dry_run), &out)) {
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

NOKPROBE_SYMBOL(rf_pte_return);

/* ------------------------------------------------------------------ */
/* amdgpu_pci_remove(struct pci_dev *pdev): the pointer is only compared */
/* ------------------------------------------------------------------ */

static int rf_remove_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rf_probe_data *pd = (struct rf_probe_data *)ri->data;

	rf_hook_seen(RF_HOOK_PCI_REMOVE);
	pd->pdev = (struct pci_dev *)regs_get_kernel_argument(regs, 0);
	return 0;
}

NOKPROBE_SYMBOL(rf_remove_entry);

/* the device is gone: rf_sysfs_work frees its slot and removes its directory */
static int rf_remove_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rf_probe_data *pd = (struct rf_probe_data *)ri->data;
	unsigned long flags;

	raw_spin_lock_irqsave(&rf_lock, flags);
	rf_dev_gone_locked(pd->pdev);
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	rf_sysfs_kick();
	return 0;
}

NOKPROBE_SYMBOL(rf_remove_return);

/* ------------------------------------------------------------------ */
/* The hooks, one entry per amdgpu function (armed by rdnafix_arm.c)   */
/* ------------------------------------------------------------------ */

const struct rf_hook_def rf_hook_defs[RF_HOOK_COUNT] = {
	[RF_HOOK_PCI_PROBE] = {
		.symbol = "amdgpu:amdgpu_pci_probe",
		.entry = rf_probe_entry,
		.ret = rf_probe_return,
		.data_size = sizeof(struct rf_probe_data),
		.maxactive = 8,
	},
	[RF_HOOK_NORETRY_SET] = {
		.symbol = "amdgpu:amdgpu_gmc_noretry_set",
		.entry = rf_noretry_entry,
		.ret = rf_noretry_return,
		.data_size = sizeof(struct rf_swap_data),
		.maxactive = 8,
		.param = "noretry",
		.swap = &rf_swap_noretry,
	},
	[RF_HOOK_VM_ADJUST_SIZE] = {
		.symbol = "amdgpu:amdgpu_vm_adjust_size",
		.entry = rf_adjust_entry,
		.ret = rf_adjust_return,
		.data_size = sizeof(struct rf_swap_data),
		.maxactive = 8,
		.param = "vm_fragment_size",
		.swap = &rf_swap_fragment,
	},
	/* called for every PTE amdgpu writes, possibly on every CPU at once */
	[RF_HOOK_GET_VM_PTE] = {
		.symbol = "amdgpu:gmc_v10_0_get_vm_pte",
		.entry = rf_pte_entry,
		.ret = rf_pte_return,
		.data_size = sizeof(struct rf_pte_data),
		.maxactive = 16,
		.maxactive_per_cpu = 4,
	},
	[RF_HOOK_PCI_REMOVE] = {
		.symbol = "amdgpu:amdgpu_pci_remove",
		.entry = rf_remove_entry,
		.ret = rf_remove_return,
		.data_size = sizeof(struct rf_probe_data),
		.maxactive = 8,
	},
};
