// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix module parameters.  Every value is validated by the policy
 * header, at load time and on every write to
 * /sys/module/rdnafix/parameters/<name>; a bad value is refused with
 * -EINVAL and one error line naming the parameter, the value and what is
 * valid.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>

#include "rdnafix.h"

DEFINE_RAW_SPINLOCK(rf_lock);

int rf_noretry = -1;
int rf_fragment = -1;
int rf_mtype_sysmem = RDNAFIX_MTYPE_KEEP;
int rf_mtype_vram = RDNAFIX_MTYPE_KEEP;
int rf_mtype_override = RDNAFIX_OVERRIDE_NC;
bool rf_dry_run;
bool rf_strict;
struct rf_sel_param rf_targets = {
	.list = {
		.count = 2,
		.sel = {
			{ .kind = RDNAFIX_SEL_RDNA1, .text = "rdna1" },
			{ .kind = RDNAFIX_SEL_RDNA2, .text = "rdna2" },
		},
	},
	.text = "rdna1,rdna2",
	.allow_empty = false,
};

struct rf_sel_param rf_exclude = {
	.allow_empty = true,
};

/* At most this much of a rejected value is echoed back. */
#define RF_ECHO_MAX	64

static void rf_reject(const struct kernel_param *kp, const char *val,
		      const char *valid, const char *detail)
{
	unsigned int len = rdnafix_param_len(val);

	pr_err("invalid value '%.*s%s' for parameter %s%s: valid values are %s\n",
	       len > RF_ECHO_MAX ? RF_ECHO_MAX : (int)len, val,
	       len > RF_ECHO_MAX ? "...(too long)" : "", kp->name, detail, valid);
}

/* ---- noretry, vm_fragment_size ---- */

static int rf_set_noretry(const char *val, const struct kernel_param *kp)
{
	int v;

	if (rdnafix_parse_noretry(val, &v)) {
		rf_reject(kp, val, RDNAFIX_VALID_NORETRY, "");
		return -EINVAL;
	}
	WRITE_ONCE(*(int *)kp->arg, v);
	return 0;
}

static int rf_set_fragment(const char *val, const struct kernel_param *kp)
{
	int v;

	if (rdnafix_parse_fragment(val, &v)) {
		rf_reject(kp, val, RDNAFIX_VALID_FRAGMENT, "");
		return -EINVAL;
	}
	WRITE_ONCE(*(int *)kp->arg, v);
	return 0;
}

static int rf_get_int(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%d\n", READ_ONCE(*(int *)kp->arg));
}

static const struct kernel_param_ops rf_noretry_ops = {
	.set = rf_set_noretry,
	.get = rf_get_int,
};

static const struct kernel_param_ops rf_fragment_ops = {
	.set = rf_set_fragment,
	.get = rf_get_int,
};

/* ---- mtype_sysmem, mtype_vram ---- */

static int rf_set_mtype(const char *val, const struct kernel_param *kp)
{
	int v;

	if (rdnafix_parse_mtype(val, &v)) {
		rf_reject(kp, val, RDNAFIX_VALID_MTYPE, "");
		return -EINVAL;
	}
	WRITE_ONCE(*(int *)kp->arg, v);
	return 0;
}

static int rf_get_mtype(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n",
			 rdnafix_mtype_name(READ_ONCE(*(int *)kp->arg)));
}

static const struct kernel_param_ops rf_mtype_ops = {
	.set = rf_set_mtype,
	.get = rf_get_mtype,
};

/* ---- mtype_override ---- */

static int rf_set_override(const char *val, const struct kernel_param *kp)
{
	int v;

	if (rdnafix_parse_override(val, &v)) {
		rf_reject(kp, val, RDNAFIX_VALID_OVERRIDE, "");
		return -EINVAL;
	}
	WRITE_ONCE(*(int *)kp->arg, v);
	return 0;
}

static int rf_get_override(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n",
			 rdnafix_override_name(READ_ONCE(*(int *)kp->arg)));
}

static const struct kernel_param_ops rf_override_ops = {
	.set = rf_set_override,
	.get = rf_get_override,
};

/* ---- dry_run, strict ---- */

static int rf_set_bool01(const char *val, const struct kernel_param *kp)
{
	bool v;

	if (rdnafix_parse_bool01(val, &v)) {
		rf_reject(kp, val, RDNAFIX_VALID_BOOL, "");
		return -EINVAL;
	}
	WRITE_ONCE(*(bool *)kp->arg, v);
	return 0;
}

/* printed as param_get_bool prints a bool */
static int rf_get_bool01(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%c\n", READ_ONCE(*(bool *)kp->arg) ? 'Y' : 'N');
}

static const struct kernel_param_ops rf_bool01_ops = {
	.set = rf_set_bool01,
	.get = rf_get_bool01,
};

/* ---- targets, exclude ---- */

static int rf_set_sel(const char *val, const struct kernel_param *kp)
{
	struct rf_sel_param *p = kp->arg;
	struct rdnafix_sel_list list;
	unsigned int bad = 0, len, i;
	unsigned long flags;
	char detail[48];

	if (rdnafix_parse_sel_list(val, p->allow_empty, &list, &bad)) {
		len = rdnafix_param_len(val);
		if (len > RDNAFIX_SEL_LIST_MAX)
			scnprintf(detail, sizeof(detail), " (longer than %d characters)",
				  RDNAFIX_SEL_LIST_MAX);
		else if (len == 0)
			scnprintf(detail, sizeof(detail), " (empty)");
		else
			scnprintf(detail, sizeof(detail), " (bad element at offset %u)", bad);
		rf_reject(kp, val, p->allow_empty ? RDNAFIX_VALID_EXCLUDE : RDNAFIX_VALID_TARGETS,
			  detail);
		return -EINVAL;
	}
	len = rdnafix_param_len(val);
	raw_spin_lock_irqsave(&rf_lock, flags);
	p->list = list;
	for (i = 0; i < len; i++)
		p->text[i] = val[i];
	p->text[len] = '\0';
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	return 0;
}

static int rf_get_sel(char *buf, const struct kernel_param *kp)
{
	struct rf_sel_param *p = kp->arg;
	char text[RDNAFIX_SEL_LIST_MAX + 1];
	unsigned long flags;

	raw_spin_lock_irqsave(&rf_lock, flags);
	memcpy(text, p->text, sizeof(text));
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	return scnprintf(buf, PAGE_SIZE, "%s\n", text);
}

static const struct kernel_param_ops rf_sel_ops = {
	.set = rf_set_sel,
	.get = rf_get_sel,
};

module_param_cb(noretry, &rf_noretry_ops, &rf_noretry, 0644);
MODULE_PARM_DESC(noretry,
		 "Per-device amdgpu noretry for targeted GPUs: -1 keep amdgpu's choice (default), 0 retry on, 1 retry off; applies to devices probed afterwards");
module_param_cb(vm_fragment_size, &rf_fragment_ops, &rf_fragment, 0644);
MODULE_PARM_DESC(vm_fragment_size,
		 "Per-device amdgpu vm_fragment_size for targeted GPUs: -1 keep (default) or 4..9; on GFX10 only the fragment-size advice to userspace changes");
module_param_cb(mtype_sysmem, &rf_mtype_ops, &rf_mtype_sysmem, 0644);
MODULE_PARM_DESC(mtype_sysmem,
		 "EXPERIMENTAL: MTYPE for system-memory PTEs of targeted GPUs: keep (default), nc, wc, cc, uc; applies to PTEs written afterwards");
module_param_cb(mtype_vram, &rf_mtype_ops, &rf_mtype_vram, 0644);
MODULE_PARM_DESC(mtype_vram,
		 "EXPERIMENTAL: MTYPE for VRAM PTEs of targeted GPUs: keep (default), nc, wc, cc, uc; applies to PTEs written afterwards");
module_param_cb(mtype_override, &rf_override_ops, &rf_mtype_override, 0644);
MODULE_PARM_DESC(mtype_override,
		 "Which PTEs mtype_sysmem/mtype_vram may rewrite: nc (default: only valid mappings amdgpu left at NC) or any (DANGEROUS: also amdgpu's deliberate UC for coherent, uncached, doorbell and P2P memory)");
module_param_cb(targets, &rf_sel_ops, &rf_targets, 0644);
MODULE_PARM_DESC(targets,
		 "Comma list of rdna1, rdna2, gfxNNNN, dgpu, apu, DDDD:BB:DD.F (default rdna1,rdna2); only GMC v10 GPUs can be targeted");
module_param_cb(exclude, &rf_sel_ops, &rf_exclude, 0644);
MODULE_PARM_DESC(exclude, "Comma list with the syntax of targets; wins over targets (default empty)");
module_param_cb(dry_run, &rf_bool01_ops, &rf_dry_run, 0644);
MODULE_PARM_DESC(dry_run, "Y: decide and count, change nothing (bool: Y/N/y/n/1/0, default N)");
module_param_cb(strict, &rf_bool01_ops, &rf_strict, 0444);
MODULE_PARM_DESC(strict,
		 "Y: a hook that cannot be placed fails the load (of rdnafix, or of amdgpu when it arrives later) (bool: Y/N/y/n/1/0, default N)");
