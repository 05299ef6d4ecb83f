/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdnafix: internal declarations shared by the module's source files.
 */
#ifndef RDNAFIX_H
#define RDNAFIX_H

#include <linux/atomic.h>
#include <linux/kobject.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "rdnafix_policy.h"

struct pci_dev;

#define RF_MAX_DEVS		16
#define RF_BDF_LEN		20	/* "0000:03:00.0"; domains up to ffffffff */

/* ---- parameters (rdnafix_params.c) ---- */
struct rf_sel_param {
	struct rdnafix_sel_list list;
	char text[RDNAFIX_SEL_LIST_MAX + 1];
	bool allow_empty;
};

extern int rf_noretry;
extern int rf_fragment;
extern int rf_mtype_sysmem;
extern int rf_mtype_vram;
extern int rf_mtype_override;
extern bool rf_dry_run;
extern bool rf_strict;
extern struct rf_sel_param rf_targets;
extern struct rf_sel_param rf_exclude;

/*
 * rf_lock protects the selector lists, the device table's claim and
 * decision fields and the swap state; it is taken from probe handlers, so
 * it is a raw spinlock taken with interrupts off.
 */
extern raw_spinlock_t rf_lock;

/* ---- devices (rdnafix_devices.c) ---- */
enum rf_dev_state {
	RF_DEV_FREE = 0,
	RF_DEV_USED,
	RF_DEV_GONE,		/* amdgpu_pci_remove returned: rf_sysfs_work frees it */
};

struct rf_dev {
	int state;			/* enum rf_dev_state, under rf_lock */
	u16 vendor;
	u16 device;
	struct rdnafix_bdf bdf;
	char name[RF_BDF_LEN];		/* "0000:03:00.0" */

	/* amdgpu objects; NULL while amdgpu is not loaded (READ_ONCE) */
	void *pdev;
	void *adev;

	/* decision, under rf_lock (hot path reads with READ_ONCE) */
	bool targeted;
	bool refused;
	char reason[RDNAFIX_REASON_MAX];
	char note[RDNAFIX_REASON_MAX];	/* noretry / fragment remarks */
	int noretry_req;
	int noretry_applied;
	int fragment_req;
	int fragment_applied;

	atomic64_t pte_calls;
	atomic64_t pte_rewrites;
	atomic64_t pte_would;

	struct kobject *kobj;		/* devices/<name>, made by rf_sysfs_work */
};

extern struct rf_dev rf_devs[RF_MAX_DEVS];

/* amdgpu_pci_probe calls in flight, and the pci_dev if exactly one (rf_lock) */
extern int rf_probing;
extern struct pci_dev *rf_probing_pdev;

struct rf_dev *rf_dev_by_adev(void *adev);
struct rf_dev *rf_dev_by_pdev_locked(struct pci_dev *pdev);
struct rf_dev *rf_dev_claim_locked(struct pci_dev *pdev, bool *created);
void rf_dev_decide_locked(struct rf_dev *d);
struct rf_dev *rf_dev_for_adev(void *adev, bool init);
void rf_devices_unbind(void);
void rf_devices_scan_bound(void);
void rf_dev_gone_locked(struct pci_dev *pdev);
void rf_dev_free_gone(struct rf_dev *d);

/* ---- hooks (rdnafix_hooks.c: handlers and rf_hook_defs[]) ---- */
enum rf_hook_id {
	RF_HOOK_PCI_PROBE,
	RF_HOOK_NORETRY_SET,
	RF_HOOK_VM_ADJUST_SIZE,
	RF_HOOK_GET_VM_PTE,
	RF_HOOK_PCI_REMOVE,
	RF_HOOK_COUNT,
};

enum rf_hook_status {
	RF_HOOK_INACTIVE,
	RF_HOOK_PENDING,
	RF_HOOK_ACTIVE,
	RF_HOOK_LATE,		/* armed after amdgpu's devices were initialised:
				 * "pending" until an amdgpu_pci_probe is seen
				 */
};

enum rf_amdgpu_state {
	RF_AMDGPU_ABSENT,
	RF_AMDGPU_COMING,
	RF_AMDGPU_LIVE,
	RF_AMDGPU_GOING,
	RF_AMDGPU_BUILTIN,	/* CONFIG_DRM_AMDGPU=y: nothing to hook */
};

/*
 * One of amdgpu's own parameter variables, set to a device's value for the
 * duration of one call and restored on return.  Calls that overlap (two
 * devices initialising at once) share the value the first one put there:
 * nothing changes it while any call is inside, the last one out restores
 * it, and each device records the value it really received.  All fields
 * under rf_lock.
 */
struct rf_swap {
	int *var;		/* amdgpu's variable, NULL when unknown */
	int users;		/* calls inside the hooked function */
	bool swapped;		/* *var holds a device's value, not amdgpu's */
	int saved;		/* amdgpu's own value while swapped */
	const struct rf_dev *owner;	/* the device whose value is swapped in */
};

/*
 * Everything about one hook (rf_hook_defs[], rdnafix_hooks.c) but its
 * name, which is its file name under hooks/ (rdnafix_sysfs_files.h); the
 * arming code only walks this table.  The kretprobe gets
 * max(maxactive, maxactive_per_cpu * num_possible_cpus()) instances.
 */
struct rf_hook_def {
	const char *symbol;		/* "amdgpu:<function>" */
	kretprobe_handler_t entry;
	kretprobe_handler_t ret;
	size_t data_size;		/* per-instance data (ri->data) */
	int maxactive;
	int maxactive_per_cpu;
	const char *param;		/* amdgpu int parameter the hook swaps, or NULL */
	struct rf_swap *swap;		/* the swap state for @param */
};

extern const struct rf_hook_def rf_hook_defs[RF_HOOK_COUNT];
/* 0-based argument index of "uint64_t *flags" in gmc_v10_0_get_vm_pte */
extern unsigned int rf_pte_flags_arg;
extern atomic_t rf_probe_seen;

/*
 * Why the PTE hook refused to touch one call's flags (nothing written);
 * each has a counter, /sys/kernel/rdnafix/pte_refused_<name>.
 */
enum rf_pte_refusal {
	RF_PTE_REFUSED_POINTER,		/* not 8-byte aligned inside current's stack */
	RF_PTE_REFUSED_ENTRY_VALUE,	/* entry value is not a GMC v10 PTE flag word */
	RF_PTE_REFUSED_RETURN_VALUE,	/* amdgpu's result is not a PTE flag word */
	RF_PTE_REFUSAL_COUNT,
};

extern atomic64_t rf_pte_refused[RF_PTE_REFUSAL_COUNT];

/*
 * Per-hook call counters (calls, missing, hooks/<name> "refusing"): calls
 * the entry handler saw, and those it or the return handler refused for a
 * safety reason (nothing done; a device rdnafix does not target is not
 * refused).  @last_refusal is a string constant.  Reset when armed.
 */
struct rf_hook_count {
	atomic64_t seen;
	atomic64_t refused;
	const char *last_refusal;	/* READ_ONCE/WRITE_ONCE */
};

extern struct rf_hook_count rf_hook_counts[RF_HOOK_COUNT];
void rf_hook_seen(unsigned int id);
void rf_hook_refused(unsigned int id, const char *why);

/* ---- prototype evidence (rdnafix_proto.c) ---- */
#define RF_PROTO_TEXT_MAX	256
extern bool rf_pte_unproven;
extern char rf_pte_proto_text[RF_PROTO_TEXT_MAX];
int rf_pte_proto_decide(char *why, size_t len);
int rf_hook_proto_check(unsigned int id, char *why, size_t len);
ssize_t rf_evidence_emit(char *buf);

/* ---- arming (rdnafix_arm.c) ---- */
struct rf_hook {
	const char *name;		/* hooks/<name> in sysfs */
	const char *symbol;		/* "amdgpu:..." */
	struct kretprobe krp;
	bool registered;
	int status;			/* enum rf_hook_status, under rf_arm_lock */
	char reason[RF_PROTO_TEXT_MAX];
};

extern struct rf_hook rf_hooks[RF_HOOK_COUNT];
extern struct mutex rf_arm_lock;
extern atomic_t rf_amdgpu_state;

/* arm/disarm, called with rf_arm_lock held */
int rf_hooks_arm(struct module *amdgpu, bool late);
void rf_hooks_disarm(void);
void rf_hooks_set_all(int status, const char *reason);
void rf_hooks_init(void);
struct module *rf_find_amdgpu(struct kobject **ref);
bool rf_amdgpu_builtin(void);
#define RF_BUILTIN_REASON \
	"amdgpu is built into the kernel (CONFIG_DRM_AMDGPU=y): nothing to hook; rdnafix needs amdgpu as a module"

/* ---- leaks of the swapped noretry to other devices (rdnafix_leak.c) ---- */
void rf_leak_arm(struct module *amdgpu);	/* rf_arm_lock held */
void rf_leak_disarm(void);			/* rf_arm_lock held */
ssize_t leaks_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf);
ssize_t leak_readers_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf);

/* ---- sysfs (rdnafix_sysfs.c) ---- */
int rf_sysfs_init(void);
void rf_sysfs_exit(void);
void rf_sysfs_kick(void);	/* from any context: create pending dirs */
const char *rf_amdgpu_state_name(int state);

/* ---- counters and evidence files (rdnafix_sysfs_info.c) ---- */
struct kobj_attribute;
ssize_t not_covered_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf);
ssize_t nmissed_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf);
ssize_t missing_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf);
ssize_t calls_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf);
ssize_t evidence_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf);

#endif /* RDNAFIX_H */
