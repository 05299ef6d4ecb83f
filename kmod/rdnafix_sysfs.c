// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix sysfs ABI v1: /sys/kernel/rdnafix (docs/sysfs-abi.md).
 * Everything is 0444; nothing can be written here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/kprobes.h>
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
	case RF_AMDGPU_BUILTIN:
		return "built-in";
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

static ssize_t pte_prototype_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	ssize_t n;

	mutex_lock(&rf_arm_lock);
	n = sysfs_emit(buf, "%s\n", rf_pte_proto_text[0] ? rf_pte_proto_text :
			   "not decided: amdgpu is not loaded");
	mutex_unlock(&rf_arm_lock);
	return n;
}

#define RF_REFUSED_SHOW(_name, _id)						\
static ssize_t _name##_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf) \
{										\
	return sysfs_emit(buf, "%lld\n",					\
			  (long long)atomic64_read(&rf_pte_refused[_id]));	\
}

RF_REFUSED_SHOW(pte_refused_pointer, RF_PTE_REFUSED_POINTER)
RF_REFUSED_SHOW(pte_refused_entry_value, RF_PTE_REFUSED_ENTRY_VALUE)
RF_REFUSED_SHOW(pte_refused_return_value, RF_PTE_REFUSED_RETURN_VALUE)

static struct kobj_attribute rf_root_attr[] = {
#define RDNAFIX_ROOT_FILE(_name) __ATTR_RO(_name),
#include "rdnafix_sysfs_files.h"
};

/* filled by rf_sysfs_init() from the arrays of attributes, NULL-terminated */
static struct attribute *rf_root_attrs[ARRAY_SIZE(rf_root_attr) + 1];

static const struct attribute_group rf_root_group = {
	.attrs = rf_root_attrs,
};

/* ---- hooks/<name> ---- */

struct rf_hook_attr {
	struct kobj_attribute attr;
	unsigned int id;		/* enum rf_hook_id */
};

/* "active", or "refusing: ..." when it saw calls and refused every one */
static ssize_t rf_hook_active_show(unsigned int id, char *buf)
{
	const struct rf_hook_count *c = &rf_hook_counts[id];
	s64 seen = atomic64_read(&c->seen);
	s64 refused = atomic64_read(&c->refused);
	const char *why = READ_ONCE(c->last_refusal);

	if (seen > 0 && refused >= seen)
		return sysfs_emit(buf, "refusing: %lld call(s) seen, all refused (%s)\n",
				  (long long)seen, why ? why : "unknown");
	return sysfs_emit(buf, "active\n");
}

static ssize_t rf_hook_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	unsigned int id = container_of(attr, struct rf_hook_attr, attr)->id;
	struct rf_hook *h = &rf_hooks[id];
	ssize_t n;

	mutex_lock(&rf_arm_lock);
	switch (h->status) {
	case RF_HOOK_ACTIVE:
		n = rf_hook_active_show(id, buf);
		break;
	case RF_HOOK_LATE:
		if (atomic_read(&rf_probe_seen))
			n = rf_hook_active_show(id, buf);
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

static struct rf_hook_attr rf_hook_attr[] = {
#define RDNAFIX_HOOK_FILE(_name, _id) {						\
		.attr = __ATTR(_name, 0444, rf_hook_show, NULL),		\
		.id = RF_HOOK_##_id,						\
	},
#include "rdnafix_sysfs_files.h"
};

static struct attribute *rf_hooks_attrs[ARRAY_SIZE(rf_hook_attr) + 1];

static const struct attribute_group rf_hooks_group = {
	.attrs = rf_hooks_attrs,
};

/* ---- devices/<BDF>/ ---- */

static struct rf_dev *rf_dev_of(struct kobject *kobj)
{
	unsigned int i;

	for (i = 0; i < RF_MAX_DEVS; i++)
		if (READ_ONCE(rf_devs[i].kobj) == kobj)
			return &rf_devs[i];
	return NULL;
}

/*
 * One device's values as its files show them, taken under rf_lock; each
 * member is named after its file (rdnafix_sysfs_files.h).
 */
struct rf_dev_snap {
	char pci_id[10];				/* "1002:73df" */
	char gfx_target[16];
	char generation[8];
	char reason[2 * RDNAFIX_REASON_MAX + 2];	/* reason; note */
	int targeted;
	int noretry_requested;
	int noretry_applied;
	int fragment_size_requested;
	int fragment_size_applied;
	int mtype_sysmem;
	int mtype_vram;
	s64 pte_calls;
	s64 pte_rewrites;
	s64 pte_would_rewrite;
};

static bool rf_dev_snapshot(struct kobject *kobj, struct rf_dev_snap *s)
{
	struct rf_dev *d = rf_dev_of(kobj);
	const struct rdnafix_gpu_id *id;
	unsigned long flags;
	u16 vendor, device;

	if (!d)
		return false;
	raw_spin_lock_irqsave(&rf_lock, flags);
	vendor = d->vendor;
	device = d->device;
	s->targeted = d->targeted ? 1 : 0;
	s->noretry_requested = d->noretry_req;
	s->noretry_applied = d->noretry_applied;
	s->fragment_size_requested = d->fragment_req;
	s->fragment_size_applied = d->fragment_applied;
	scnprintf(s->reason, sizeof(s->reason), "%s%s%s", d->reason,
		  d->note[0] ? "; " : "", d->note);
	raw_spin_unlock_irqrestore(&rf_lock, flags);

	id = rdnafix_gpu_lookup(vendor, device);
	scnprintf(s->pci_id, sizeof(s->pci_id), "%04x:%04x", vendor, device);
	strscpy(s->gfx_target, id ? id->target : "unknown", sizeof(s->gfx_target));
	strscpy(s->generation, rdnafix_gen_name(id ? id->gen : RDNAFIX_GEN_OTHER),
		sizeof(s->generation));
	s->mtype_sysmem = s->targeted ? READ_ONCE(rf_mtype_sysmem) : RDNAFIX_MTYPE_KEEP;
	s->mtype_vram = s->targeted ? READ_ONCE(rf_mtype_vram) : RDNAFIX_MTYPE_KEEP;
	s->pte_calls = atomic64_read(&d->pte_calls);
	s->pte_rewrites = atomic64_read(&d->pte_rewrites);
	s->pte_would_rewrite = atomic64_read(&d->pte_would);
	return true;
}

/* A devices/<BDF>/ file: the attribute and the member of the snapshot it shows. */
struct rf_dev_attr {
	struct kobj_attribute attr;
	size_t field;			/* offsetof(struct rf_dev_snap, <member>) */
};

/* The member of @s that @attr shows. */
static const void *rf_dev_field(const struct rf_dev_snap *s, struct kobj_attribute *attr)
{
	return (const char *)s + container_of(attr, struct rf_dev_attr, attr)->field;
}

/* One show function per kind of value (the kind column of the list). */
static ssize_t rf_dev_str_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct rf_dev_snap s;

	if (!rf_dev_snapshot(kobj, &s))
		return -ENODEV;
	return sysfs_emit(buf, "%s\n", (const char *)rf_dev_field(&s, attr));
}

static ssize_t rf_dev_int_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct rf_dev_snap s;

	if (!rf_dev_snapshot(kobj, &s))
		return -ENODEV;
	return sysfs_emit(buf, "%d\n", *(const int *)rf_dev_field(&s, attr));
}

static ssize_t rf_dev_mtype_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct rf_dev_snap s;

	if (!rf_dev_snapshot(kobj, &s))
		return -ENODEV;
	return sysfs_emit(buf, "%s\n", rdnafix_mtype_name(*(const int *)rf_dev_field(&s, attr)));
}

static ssize_t rf_dev_u64_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct rf_dev_snap s;

	if (!rf_dev_snapshot(kobj, &s))
		return -ENODEV;
	return sysfs_emit(buf, "%lld\n", (long long)*(const s64 *)rf_dev_field(&s, attr));
}

static struct rf_dev_attr rf_dev_attr[] = {
#define RDNAFIX_DEV_FILE(_name, _kind) {					\
		.attr = {							\
			.attr = { .name = #_name, .mode = 0444 },		\
			.show = rf_dev_##_kind##_show,				\
		},								\
		.field = offsetof(struct rf_dev_snap, _name),			\
	},
#include "rdnafix_sysfs_files.h"
};

static struct attribute *rf_dev_attrs[ARRAY_SIZE(rf_dev_attr) + 1];

static const struct attribute_group rf_dev_group = {
	.attrs = rf_dev_attrs,
};

/*
 * Device directories are made and removed here, in process context: the
 * hooks that discover devices (and their removal) run in probe handlers
 * and cannot sleep.  Removals first: a device removed and probed again at
 * the same address gets a new slot whose directory has the same name.
 */
static void rf_sysfs_work_fn(struct work_struct *work)
{
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < RF_MAX_DEVS; i++) {
		struct rf_dev *d = &rf_devs[i];
		struct kobject *kobj;
		bool gone;

		raw_spin_lock_irqsave(&rf_lock, flags);
		gone = d->state == RF_DEV_GONE;
		raw_spin_unlock_irqrestore(&rf_lock, flags);
		if (!gone)
			continue;
		kobj = d->kobj;
		WRITE_ONCE(d->kobj, NULL);
		kobject_put(kobj);	/* waits for its files' readers */
		rf_dev_free_gone(d);
	}
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
		if (sysfs_create_group(kobj, &rf_dev_group)) {
			pr_err("cannot create sysfs files in devices/%s\n", name);
			kobject_put(kobj);
			continue;
		}
		WRITE_ONCE(d->kobj, kobj);
	}
}

static DECLARE_WORK(rf_sysfs_work, rf_sysfs_work_fn);

/* called from probe handlers: schedule_work() only queues */
void rf_sysfs_kick(void)
{
	schedule_work(&rf_sysfs_work);
}

NOKPROBE_SYMBOL(rf_sysfs_kick);

int rf_sysfs_init(void)
{
	unsigned int i;
	int ret;

	BUILD_BUG_ON(ARRAY_SIZE(rf_hook_attr) != RF_HOOK_COUNT);
	for (i = 0; i < ARRAY_SIZE(rf_root_attr); i++)
		rf_root_attrs[i] = &rf_root_attr[i].attr;
	for (i = 0; i < ARRAY_SIZE(rf_hook_attr); i++)
		rf_hooks_attrs[i] = &rf_hook_attr[i].attr.attr;
	for (i = 0; i < ARRAY_SIZE(rf_dev_attr); i++)
		rf_dev_attrs[i] = &rf_dev_attr[i].attr.attr;
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
