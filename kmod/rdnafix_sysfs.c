// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix sysfs ABI v1: /sys/kernel/rdnafix (docs/sysfs-abi.md).
 * Everything is 0444; nothing can be written here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "rdnafix.h"

static struct kobject *rf_root_kobj;
static struct kobject *rf_hooks_kobj;
static struct kobject *rf_devices_kobj;

const char *rf_amdgpu_state_name(int state)
{
	switch (state) {
	case RF_AMDGPU_COMING:
		return "coming";
	case RF_AMDGPU_LIVE:
		return "live";
	case RF_AMDGPU_GOING:
		return "going";
	default:
		return "absent";
	}
}

/* ---- top level ---- */

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", RDNAFIX_VERSION);
}

static ssize_t abi_version_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", RDNAFIX_ABI_VERSION);
}

static ssize_t amdgpu_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", rf_amdgpu_state_name(atomic_read(&rf_amdgpu_state)));
}

static ssize_t dry_run_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(rf_dry_run) ? 1 : 0);
}

static struct kobj_attribute rf_attr_version = __ATTR_RO(version);
static struct kobj_attribute rf_attr_abi_version = __ATTR_RO(abi_version);
static struct kobj_attribute rf_attr_amdgpu = __ATTR_RO(amdgpu);
static struct kobj_attribute rf_attr_dry_run = __ATTR_RO(dry_run);

static struct attribute *rf_root_attrs[] = {
	&rf_attr_version.attr,
	&rf_attr_abi_version.attr,
	&rf_attr_amdgpu.attr,
	&rf_attr_dry_run.attr,
	NULL,
};

static const struct attribute_group rf_root_group = {
	.attrs = rf_root_attrs,
};

/* ---- hooks/<name> ---- */

static ssize_t rf_hook_show(unsigned int id, char *buf)
{
	struct rf_hook *h = &rf_hooks[id];
	ssize_t n;

	mutex_lock(&rf_arm_lock);
	switch (h->status) {
	case RF_HOOK_ACTIVE:
		n = sysfs_emit(buf, "active\n");
		break;
	case RF_HOOK_LATE:
		if (atomic_read(&rf_probe_seen))
			n = sysfs_emit(buf, "active\n");
		else
			n = sysfs_emit(buf, "pending: %s\n", h->reason);
		break;
	case RF_HOOK_PENDING:
		n = sysfs_emit(buf, "pending: %s\n", h->reason);
		break;
	default:
		n = sysfs_emit(buf, "inactive: %s\n", h->reason);
		break;
	}
	mutex_unlock(&rf_arm_lock);
	return n;
}

#define RF_HOOK_ATTR(_name, _id)						\
static ssize_t _name##_show(struct kobject *kobj, struct kobj_attribute *attr,	\
			    char *buf)						\
{										\
	return rf_hook_show(_id, buf);						\
}										\
static struct kobj_attribute rf_attr_##_name = __ATTR_RO(_name)

RF_HOOK_ATTR(pci_probe, RF_HOOK_PCI_PROBE);
RF_HOOK_ATTR(noretry_set, RF_HOOK_NORETRY_SET);
RF_HOOK_ATTR(vm_adjust_size, RF_HOOK_VM_ADJUST_SIZE);
RF_HOOK_ATTR(get_vm_pte, RF_HOOK_GET_VM_PTE);

static struct attribute *rf_hooks_attrs[] = {
	&rf_attr_pci_probe.attr,
	&rf_attr_noretry_set.attr,
	&rf_attr_vm_adjust_size.attr,
	&rf_attr_get_vm_pte.attr,
	NULL,
};

static const struct attribute_group rf_hooks_group = {
	.attrs = rf_hooks_attrs,
};

/* ---- devices/<BDF>/ ---- */

static struct rf_dev *rf_dev_of(struct kobject *kobj)
{
	unsigned int i;

	for (i = 0; i < RF_MAX_DEVS; i++)
		if (rf_devs[i].kobj == kobj)
			return &rf_devs[i];
	return NULL;
}

struct rf_dev_snap {
	u16 vendor;
	u16 device;
	bool targeted;
	int noretry_req;
	int noretry_applied;
	int fragment_req;
	int fragment_applied;
	char reason[RDNAFIX_REASON_MAX];
	char note[RDNAFIX_REASON_MAX];
};

static bool rf_dev_snapshot(struct kobject *kobj, struct rf_dev_snap *s)
{
	struct rf_dev *d = rf_dev_of(kobj);
	unsigned long flags;

	if (!d)
		return false;
	raw_spin_lock_irqsave(&rf_lock, flags);
	s->vendor = d->vendor;
	s->device = d->device;
	s->targeted = d->targeted;
	s->noretry_req = d->noretry_req;
	s->noretry_applied = d->noretry_applied;
	s->fragment_req = d->fragment_req;
	s->fragment_applied = d->fragment_applied;
	memcpy(s->reason, d->reason, sizeof(s->reason));
	memcpy(s->note, d->note, sizeof(s->note));
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	return true;
}

enum rf_dev_field {
	RF_F_PCI_ID,
	RF_F_GFX_TARGET,
	RF_F_GENERATION,
	RF_F_TARGETED,
	RF_F_REASON,
	RF_F_NORETRY_REQ,
	RF_F_NORETRY_APPLIED,
	RF_F_FRAGMENT_REQ,
	RF_F_FRAGMENT_APPLIED,
	RF_F_MTYPE_SYSMEM,
	RF_F_MTYPE_VRAM,
	RF_F_PTE_CALLS,
	RF_F_PTE_REWRITES,
	RF_F_PTE_WOULD,
};

static ssize_t rf_dev_show(struct kobject *kobj, unsigned int field, char *buf)
{
	const struct rdnafix_gpu_id *id;
	struct rf_dev_snap s;
	struct rf_dev *d;

	if (!rf_dev_snapshot(kobj, &s))
		return -ENODEV;
	d = rf_dev_of(kobj);
	id = rdnafix_gpu_lookup(s.vendor, s.device);
	switch (field) {
	case RF_F_PCI_ID:
		return sysfs_emit(buf, "%04x:%04x\n", s.vendor, s.device);
	case RF_F_GFX_TARGET:
		return sysfs_emit(buf, "%s\n", id ? id->target : "unknown");
	case RF_F_GENERATION:
		return sysfs_emit(buf, "%s\n", rdnafix_gen_name(id ? id->gen : RDNAFIX_GEN_OTHER));
	case RF_F_TARGETED:
		return sysfs_emit(buf, "%d\n", s.targeted ? 1 : 0);
	case RF_F_REASON:
		return sysfs_emit(buf, "%s%s%s\n", s.reason, s.note[0] ? "; " : "", s.note);
	case RF_F_NORETRY_REQ:
		return sysfs_emit(buf, "%d\n", s.noretry_req);
	case RF_F_NORETRY_APPLIED:
		return sysfs_emit(buf, "%d\n", s.noretry_applied);
	case RF_F_FRAGMENT_REQ:
		return sysfs_emit(buf, "%d\n", s.fragment_req);
	case RF_F_FRAGMENT_APPLIED:
		return sysfs_emit(buf, "%d\n", s.fragment_applied);
	case RF_F_MTYPE_SYSMEM:
		return sysfs_emit(buf, "%s\n", rdnafix_mtype_name(s.targeted ?
				  READ_ONCE(rf_mtype_sysmem) : RDNAFIX_MTYPE_KEEP));
	case RF_F_MTYPE_VRAM:
		return sysfs_emit(buf, "%s\n", rdnafix_mtype_name(s.targeted ?
				  READ_ONCE(rf_mtype_vram) : RDNAFIX_MTYPE_KEEP));
	case RF_F_PTE_CALLS:
		return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&d->pte_calls));
	case RF_F_PTE_REWRITES:
		return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&d->pte_rewrites));
	case RF_F_PTE_WOULD:
		return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&d->pte_would));
	default:
		return -EINVAL;
	}
}

#define RF_DEV_ATTR(_name, _field)						\
static ssize_t _name##_show(struct kobject *kobj, struct kobj_attribute *attr,	\
			    char *buf)						\
{										\
	return rf_dev_show(kobj, _field, buf);					\
}										\
static struct kobj_attribute rf_attr_##_name = __ATTR_RO(_name)

RF_DEV_ATTR(pci_id, RF_F_PCI_ID);
RF_DEV_ATTR(gfx_target, RF_F_GFX_TARGET);
RF_DEV_ATTR(generation, RF_F_GENERATION);
RF_DEV_ATTR(targeted, RF_F_TARGETED);
RF_DEV_ATTR(reason, RF_F_REASON);
RF_DEV_ATTR(noretry_requested, RF_F_NORETRY_REQ);
RF_DEV_ATTR(noretry_applied, RF_F_NORETRY_APPLIED);
RF_DEV_ATTR(fragment_size_requested, RF_F_FRAGMENT_REQ);
RF_DEV_ATTR(fragment_size_applied, RF_F_FRAGMENT_APPLIED);
RF_DEV_ATTR(mtype_sysmem, RF_F_MTYPE_SYSMEM);
RF_DEV_ATTR(mtype_vram, RF_F_MTYPE_VRAM);
RF_DEV_ATTR(pte_calls, RF_F_PTE_CALLS);
RF_DEV_ATTR(pte_rewrites, RF_F_PTE_REWRITES);
RF_DEV_ATTR(pte_would_rewrite, RF_F_PTE_WOULD);

static struct attribute *rf_dev_attrs[] = {
	&rf_attr_pci_id.attr,
	&rf_attr_gfx_target.attr,
	&rf_attr_generation.attr,
	&rf_attr_targeted.attr,
	&rf_attr_reason.attr,
	&rf_attr_noretry_requested.attr,
	&rf_attr_noretry_applied.attr,
	&rf_attr_fragment_size_requested.attr,
	&rf_attr_fragment_size_applied.attr,
	&rf_attr_mtype_sysmem.attr,
	&rf_attr_mtype_vram.attr,
	&rf_attr_pte_calls.attr,
	&rf_attr_pte_rewrites.attr,
	&rf_attr_pte_would_rewrite.attr,
	NULL,
};

static const struct attribute_group rf_dev_group = {
	.attrs = rf_dev_attrs,
};

/*
 * Device directories are made here, in process context: the hooks that
 * discover devices run in probe handlers and cannot sleep.
 */
static void rf_sysfs_work_fn(struct work_struct *work)
{
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < RF_MAX_DEVS; i++) {
		struct rf_dev *d = &rf_devs[i];
		char name[RF_BDF_LEN];
		struct kobject *kobj;
		bool used;

		if (d->kobj)
			continue;
		raw_spin_lock_irqsave(&rf_lock, flags);
		used = d->state == RF_DEV_USED;
		memcpy(name, d->name, sizeof(name));
		raw_spin_unlock_irqrestore(&rf_lock, flags);
		if (!used)
			continue;
		kobj = kobject_create_and_add(name, rf_devices_kobj);
		if (!kobj) {
			pr_err("cannot create sysfs directory devices/%s\n", name);
			continue;
		}
		d->kobj = kobj;
		if (sysfs_create_group(kobj, &rf_dev_group)) {
			pr_err("cannot create sysfs files in devices/%s\n", name);
			d->kobj = NULL;
			kobject_put(kobj);
		}
	}
}

static DECLARE_WORK(rf_sysfs_work, rf_sysfs_work_fn);

void rf_sysfs_kick(void)
{
	schedule_work(&rf_sysfs_work);
}

int rf_sysfs_init(void)
{
	int ret;

	rf_root_kobj = kobject_create_and_add("rdnafix", kernel_kobj);
	if (!rf_root_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(rf_root_kobj, &rf_root_group);
	if (ret)
		goto err_root;
	rf_hooks_kobj = kobject_create_and_add("hooks", rf_root_kobj);
	if (!rf_hooks_kobj) {
		ret = -ENOMEM;
		goto err_root;
	}
	ret = sysfs_create_group(rf_hooks_kobj, &rf_hooks_group);
	if (ret)
		goto err_hooks;
	rf_devices_kobj = kobject_create_and_add("devices", rf_root_kobj);
	if (!rf_devices_kobj) {
		ret = -ENOMEM;
		goto err_hooks;
	}
	return 0;

err_hooks:
	kobject_put(rf_hooks_kobj);
	rf_hooks_kobj = NULL;
err_root:
	kobject_put(rf_root_kobj);
	rf_root_kobj = NULL;
	return ret;
}

/* Called after every hook is disarmed: nothing can queue the work again. */
void rf_sysfs_exit(void)
{
	unsigned int i;

	cancel_work_sync(&rf_sysfs_work);
	for (i = 0; i < RF_MAX_DEVS; i++) {
		if (rf_devs[i].kobj) {
			kobject_put(rf_devs[i].kobj);
			rf_devs[i].kobj = NULL;
		}
	}
	kobject_put(rf_devices_kobj);
	kobject_put(rf_hooks_kobj);
	kobject_put(rf_root_kobj);
	rf_devices_kobj = NULL;
	rf_hooks_kobj = NULL;
	rf_root_kobj = NULL;
}
