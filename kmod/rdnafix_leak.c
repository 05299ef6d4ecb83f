// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix leaks: reads of amdgpu's global noretry by other devices while
 * a GFX10 device's value is swapped in (docs/kernel-module.md, "Concurrent
 * device init").
 *
 * On 6.1 and 6.12 the GFX11/GFX12 hubs read the amdgpu_noretry global
 * directly when they program the VM contexts, at hw_init and resume: the
 * setup_vmid_config helpers are inlined into <hub>_gart_enable, which
 * holds one "mov amdgpu_noretry(%rip),%reg" (objdump -dr of the Debian
 * amdgpu.ko: 6.1.0-56 five functions, 6.12.117 nine; 7.2.13 none, it
 * reads adev->gmc.noretry).  A device initialising or resuming inside the
 * swap window of amdgpu_gmc_noretry_set gets rdnafix's value.
 *
 * Only a candidate function whose code loads amdgpu_noretry gets a probe:
 * the load is found by its rip-relative displacement to the address of
 * amdgpu's own variable (the one the noretry hook swaps).  The kprobe (not
 * a kretprobe: nothing runs at return) sits at the function's entry, an
 * ftrace site: a probe on the load instruction itself took 0.8 s to place
 * under QEMU/TCG (int3 patching), 9 of them 7 s per arming.  Between the
 * entry and the load (+0x5bd on 6.12) the hubs only write registers and
 * never sleep, so a swap that begins or ends in between is the only
 * misrecord.  A function that is absent or reads no amdgpu_noretry gets no
 * probe; each function's state is in /sys/kernel/rdnafix/leak_readers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "rdnafix.h"

#define RF_LEAK_KEEP		8	/* records kept, newest last in sysfs */
#define RF_LEAK_LOADS		4	/* loads of the global reported per function */
#define RF_LEAK_CODE_MAX	SZ_64K	/* longest function scanned */

/* the hub functions that read amdgpu_noretry on 6.1/6.12 (see above) */
static const char *const rf_leak_names[] = {
	"gfxhub_v3_0_gart_enable",	/* GFX11, 6.1 6.12 */
	"gfxhub_v3_0_3_gart_enable",	/* GFX11, 6.1 6.12 */
	"mmhub_v3_0_gart_enable",	/* GFX11, 6.1 6.12 */
	"mmhub_v3_0_1_gart_enable",	/* GFX11, 6.1 6.12 */
	"mmhub_v3_0_2_gart_enable",	/* GFX11, 6.1 6.12 */
	"mmhub_v3_3_gart_enable",	/* GFX11.5, 6.12 */
	"gfxhub_v11_5_0_gart_enable",	/* GFX11.5, 6.12 */
	"mmhub_v4_1_0_gart_enable",	/* GFX12, 6.12 */
	"gfxhub_v12_0_gart_enable",	/* GFX12, 6.12 */
};

#define RF_LEAK_READERS		ARRAY_SIZE(rf_leak_names)

struct rf_leak_site {
	struct kprobe kp;
	unsigned int reader;		/* index into rf_leak_names */
	bool registered;
};

struct rf_leak_rec {
	unsigned int reader;
	int value;			/* what the reader loaded */
	int saved;			/* amdgpu's own value */
	char bdf[RF_BDF_LEN];		/* the device whose swap it was */
};

/* sites and reader states: rf_arm_lock */
static struct rf_leak_site rf_leak_sites[RF_LEAK_READERS];
static char rf_leak_state[RF_LEAK_READERS][64];
static char rf_leak_syms[RF_LEAK_READERS][48];	/* "amdgpu:<function>" */
static char rf_leak_ksym[KSYM_SYMBOL_LEN];

/* records: rf_lock */
static u64 rf_leak_total;
static struct rf_leak_rec rf_leak_recs[RF_LEAK_KEEP];

static int rf_leak_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct rf_leak_site *s = container_of(p, struct rf_leak_site, kp);
	struct rf_swap *sw = rf_hook_defs[RF_HOOK_NORETRY_SET].swap;
	struct rf_leak_rec *r;
	unsigned long flags;

	raw_spin_lock_irqsave(&rf_lock, flags);
	if (sw->swapped && sw->var) {
		r = &rf_leak_recs[rf_leak_total % RF_LEAK_KEEP];
		r->reader = s->reader;
		r->value = READ_ONCE(*sw->var);
		r->saved = sw->saved;
		if (sw->owner)
			memcpy(r->bdf, sw->owner->name, sizeof(r->bdf));
		else
			memcpy(r->bdf, "unknown", sizeof("unknown"));
		r->bdf[sizeof(r->bdf) - 1] = '\0';
		rf_leak_total++;
	}
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	return 0;
}

NOKPROBE_SYMBOL(rf_leak_pre);

/*
 * Where a probe cannot use ftrace (no fentry), a post handler keeps it a
 * plain int3 probe: kprobes never optimizes one that has one
 * (kernel/kprobes.c, optimize_kprobe()), so arming and disarming need no
 * optimizer pass.  The hub functions run at hw_init and resume only.
 */
static void rf_leak_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
}

NOKPROBE_SYMBOL(rf_leak_post);

/*
 * The entry addresses of amdgpu:<name> for every reader, 0 with the reason
 * in its state.  Disabled kprobes resolve the symbols without arming
 * anything; one batch unregisters them (one RCU grace period, not nine).
 */
static void rf_leak_lookup(unsigned long *addr)
{
	static struct kprobe kps[RF_LEAK_READERS];
	struct kprobe *regd[RF_LEAK_READERS];
	unsigned int i, n = 0;
	int ret;

	for (i = 0; i < RF_LEAK_READERS; i++) {
		memset(&kps[i], 0, sizeof(kps[i]));
		kps[i].symbol_name = rf_leak_syms[i];
		kps[i].flags = KPROBE_FLAG_DISABLED;
		addr[i] = 0;
		ret = register_kprobe(&kps[i]);
		if (ret) {
			scnprintf(rf_leak_state[i], sizeof(rf_leak_state[i]),
				  ret == -ENOENT ? "absent" : "not probed: lookup failed: %d", ret);
			continue;
		}
		addr[i] = (unsigned long)kps[i].addr;
		regd[n++] = &kps[i];
	}
	if (n)
		unregister_kprobes(regd, n);
}

/*
 * The start and size of the function around @addr, from
 * "<name>+0x<off>/0x<size> [amdgpu]": a probe may sit after an ENDBR (IBT
 * kernels), so the function starts <off> bytes earlier.  0 on failure.
 */
static unsigned long rf_leak_bounds(unsigned long addr, unsigned long *size, char *state,
				    size_t len)
{
	unsigned long off;
	const char *plus;

	sprint_symbol(rf_leak_ksym, addr);
	plus = strrchr(rf_leak_ksym, '+');
	if (plus && sscanf(plus, "+%lx/%lx", &off, size) == 2 && off <= addr &&
	    *size > off && *size <= RF_LEAK_CODE_MAX)
		return addr - off;
	scnprintf(state, len, "not probed: no size in '%.40s'", rf_leak_ksym);
	return 0;
}

/*
 * Offsets in @code (the @size bytes at @addr) of the loads of the int at
 * @var: "mov disp32(%rip),%r32" (8b, ModRM mod=00 rm=101, an optional REX
 * prefix before it), whose next instruction is 6 bytes after the opcode.
 */
static unsigned int rf_leak_scan(const u8 *code, unsigned long addr, unsigned long size,
				 const int *var, unsigned long *offs)
{
	unsigned long i, next;
	unsigned int n = 0;
	s32 disp;

	for (i = 0; i + 6 <= size && n < RF_LEAK_LOADS; i++) {
		if (code[i] != 0x8b || (code[i + 1] & 0xc7) != 0x05)
			continue;
		memcpy(&disp, code + i + 2, sizeof(disp));
		next = addr + i + 6;
		if (next + (long)disp != (unsigned long)var)
			continue;
		/* a REX prefix (0x40-0x4f) belongs to the instruction */
		offs[n++] = (i > 0 && (code[i - 1] & 0xf0) == 0x40) ? i - 1 : i;
	}
	return n;
}

static void rf_leak_reader_arm(unsigned int reader, unsigned long addr, const int *var)
{
	char *state = rf_leak_state[reader];
	size_t len = sizeof(rf_leak_state[reader]);
	unsigned long size = 0, offs[RF_LEAK_LOADS];
	struct rf_leak_site *s;
	unsigned int n, i;
	size_t pos;
	u8 *code;
	int ret;

	addr = rf_leak_bounds(addr, &size, state, len);
	if (!addr)
		return;
	code = kmalloc(size, GFP_KERNEL);
	if (!code) {
		scnprintf(state, len, "not probed: out of memory");
		return;
	}
	if (copy_from_kernel_nofault(code, (void *)addr, size)) {
		kfree(code);
		scnprintf(state, len, "not probed: code not readable");
		return;
	}
	n = rf_leak_scan(code, addr, size, var, offs);
	kfree(code);
	if (!n) {
		scnprintf(state, len, "no direct read of noretry");
		return;
	}
	/* one probe at the entry: "probed: load at +0x5bd" */
	s = &rf_leak_sites[reader];
	memset(&s->kp, 0, sizeof(s->kp));
	s->kp.symbol_name = rf_leak_syms[reader];
	s->kp.pre_handler = rf_leak_pre;
	s->kp.post_handler = rf_leak_post;
	s->reader = reader;
	ret = register_kprobe(&s->kp);
	pos = ret ? scnprintf(state, len, "not probed: register_kprobe: %d; load at", ret) :
		    scnprintf(state, len, "probed: load at");
	for (i = 0; i < n; i++)
		pos += scnprintf(state + pos, len - pos, " +%#lx", offs[i]);
	s->registered = !ret;
}

/*
 * Probe the readers of amdgpu's noretry variable in @amdgpu (arming, with
 * rf_arm_lock held, after the noretry hook found the variable).
 */
void rf_leak_arm(struct module *amdgpu)
{
	struct rf_swap *sw = rf_hook_defs[RF_HOOK_NORETRY_SET].swap;
	unsigned long flags, addr[RF_LEAK_READERS];
	const int *var;
	unsigned int i;

	rf_leak_disarm();
	raw_spin_lock_irqsave(&rf_lock, flags);
	var = sw->var;
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	if (!var || !amdgpu) {
		for (i = 0; i < RF_LEAK_READERS; i++)
			scnprintf(rf_leak_state[i], sizeof(rf_leak_state[i]),
				  "not probed: amdgpu has no int parameter 'noretry'");
		return;
	}
	for (i = 0; i < RF_LEAK_READERS; i++)
		scnprintf(rf_leak_syms[i], sizeof(rf_leak_syms[i]), "amdgpu:%s", rf_leak_names[i]);
	rf_leak_lookup(addr);
	for (i = 0; i < RF_LEAK_READERS; i++)
		if (addr[i])
			rf_leak_reader_arm(i, addr[i], var);
}

/* Remove every reader probe (rf_arm_lock held); the records stay. */
void rf_leak_disarm(void)
{
	struct kprobe *kps[ARRAY_SIZE(rf_leak_sites)];
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(rf_leak_sites); i++) {
		if (rf_leak_sites[i].registered) {
			kps[n++] = &rf_leak_sites[i].kp;
			rf_leak_sites[i].registered = false;
		}
	}
	if (n)
		unregister_kprobes(kps, n);
	for (i = 0; i < RF_LEAK_READERS; i++)
		rf_leak_state[i][0] = '\0';	/* "not probed: amdgpu is not loaded" */
}

/* leaks: the count, then the newest RF_LEAK_KEEP records, oldest first */
ssize_t leaks_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct rf_leak_rec recs[RF_LEAK_KEEP];
	unsigned long flags;
	unsigned int i, n;
	u64 total;
	ssize_t len;

	raw_spin_lock_irqsave(&rf_lock, flags);
	total = rf_leak_total;
	memcpy(recs, rf_leak_recs, sizeof(recs));
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	len = sysfs_emit(buf, "%llu\n", total);
	n = total < RF_LEAK_KEEP ? total : RF_LEAK_KEEP;
	for (i = 0; i < n; i++) {
		const struct rf_leak_rec *r = &recs[(total - n + i) % RF_LEAK_KEEP];

		len += sysfs_emit_at(buf, len,
				     "%s read noretry=%d during %s's swap (amdgpu's own %d)\n",
				     rf_leak_names[r->reader], r->value, r->bdf, r->saved);
	}
	return len;
}

/* leak_readers: "<function> <state>" for every candidate reader */
ssize_t leak_readers_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	unsigned int i;
	ssize_t len = 0;

	mutex_lock(&rf_arm_lock);
	for (i = 0; i < RF_LEAK_READERS; i++)
		len += sysfs_emit_at(buf, len, "%s %s\n", rf_leak_names[i],
				     rf_leak_state[i][0] ? rf_leak_state[i] :
				     "not probed: amdgpu is not loaded");
	mutex_unlock(&rf_arm_lock);
	return len;
}
