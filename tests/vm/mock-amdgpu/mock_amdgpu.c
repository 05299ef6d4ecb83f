// SPDX-License-Identifier: GPL-2.0
/*
 * TEST-ONLY mock of amdgpu for the rdnafix VM suite.  It is built as a
 * module named "amdgpu" and loaded INSTEAD of the real driver, in a VM.
 *
 * It defines the functions rdnafix hooks with the prototypes of the kernel
 * it is built for (drivers/gpu/drm/amd/amdgpu/ amdgpu_drv.c, amdgpu_gmc.c,
 * amdgpu_vm.c, gmc_v10_0.c at Linux 6.1, 6.12, 7.2; docs/amdgpu-facts.md
 * section 2.1) and amdgpu's int parameters "noretry" (0644) and
 * "vm_fragment_size" (0444).  The functions are noipa (no inlining, no
 * cloning), so kprobes land on the same kind of symbol as in amdgpu.
 *
 * A debugfs file drives it: write one command, read the answer.
 *   /sys/kernel/debug/mock_amdgpu/ctl
 *     probe SLOT VENDOR DEVICE DDDD:BB:DD.F [badlayout]
 *         fake amdgpu_pci_probe() of a device; answers what amdgpu saw:
 *         "noretry_param=N noretry=N frag_param=N frag=N"
 *     pte SLOT PTE_HEX nc|wc|cc|uc
 *         one get_vm_pte() for the mapping (PTE_HEX holds e.g. the SYSTEM
 *         bit); answers "amdgpu=0xHEX final=0xHEX other=0xHEX" (before/after
 *         hooks; other: see mock_variants.h)
 *     bench SLOT COUNT
 *         COUNT get_vm_pte() calls, answers "calls=N ns=TOTAL"
 *     remove SLOT    amdgpu_pci_remove() of the device (an unbind), then frees it
 *     probe2 SLOT VENDOR DEVICE BDF SLOT2 VENDOR2 DEVICE2 BDF2
 *         two fake probes in two kthreads whose amdgpu_gmc_noretry_set calls
 *         overlap (the first waits inside until the second is inside too);
 *         answers "a: noretry=N frag=N b: noretry=N frag=N"
 *
 * Built with -DMOCK_PTE_VALUE_VARIANT=1 (build-mock.sh: variant/amdgpu.ko)
 * get_vm_pte takes a u64 flags VALUE where the kernel's takes the pointer
 * (which comes one argument later): rdnafix must refuse every call; it lacks
 * amdgpu_pci_remove (a hook that cannot be placed).  init_ms=N: init sleeps N ms.
 * The other shapes and load-time variants (the refusal matrix): mock_variants.h.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/pci.h>
#include <linux/debugfs.h>
#include <linux/uaccess.h>
#include <linux/mutex.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/version.h>
#include "mock_lifecycle.h"

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define MOCK_PTE_V2 1		/* get_vm_pte(adev, vm, bo, vm_flags, flags) */
#else
#define MOCK_PTE_V2 0		/* get_vm_pte(adev, mapping, flags) + map_mtype */
#endif

#ifndef MOCK_PTE_VALUE_VARIANT
#define MOCK_PTE_VALUE_VARIANT 0
#endif
#if MOCK_PTE_VALUE_VARIANT
#define MOCK_VALUE_ARG(v)	v,
#define MOCK_VALUE_PARAM	u64 flags_value,
#else
#define MOCK_VALUE_ARG(v)
#define MOCK_VALUE_PARAM
#endif


#define MOCK_SLOTS		8
#define MOCK_MTYPE_SHIFT	48
#define MOCK_MTYPE_MASK		(7ULL << MOCK_MTYPE_SHIFT)
/* UAPI AMDGPU_VM_MTYPE_* selectors (amdgpu_drm.h) */
#define MOCK_VM_MTYPE_SHIFT	5
#define MOCK_VM_MTYPE_MASK	(0xfU << MOCK_VM_MTYPE_SHIFT)

int amdgpu_noretry = -1;	/* global, as in amdgpu; mock_lifecycle.c reads it */
module_param_named(noretry, amdgpu_noretry, int, 0644);
MODULE_PARM_DESC(noretry, "mock of amdgpu.noretry (-1 = auto)");
static int amdgpu_vm_fragment_size = -1;
module_param_named(vm_fragment_size, amdgpu_vm_fragment_size, int, 0444);
MODULE_PARM_DESC(vm_fragment_size, "mock of amdgpu.vm_fragment_size (-1 = auto)");
static unsigned int mock_init_ms;
module_param_named(init_ms, mock_init_ms, uint, 0444);

/* The only layout rdnafix may rely on: dev, pdev first. */
struct amdgpu_device {
	struct device *dev;
	struct pci_dev *pdev;
	/* mock-private from here on */
	int gmc_noretry;
	u32 fragment_size;
	int noretry_param_seen;
	int frag_param_seen;
	bool rdna1;
};

struct amdgpu_bo_va_mapping {
	u64 flags;
};

struct amdgpu_vm {
	int unused;
};

struct amdgpu_bo {
	u64 flags;
};

struct mock_dev {
	struct pci_dev pdev;
	struct pci_bus bus;
	struct pci_sysdata sysdata;
	struct device other;	/* what adev->dev points at for "badlayout" */
	struct amdgpu_device adev;
};

static struct mock_dev *slots[MOCK_SLOTS];
static DEFINE_MUTEX(mock_lock);
static char answer[256];
static struct dentry *mock_dir;
/* what the mock's get_vm_pte wrote, before any return hook */
static u64 mock_pte_amdgpu;

#define MOCK_HOOK __attribute__((__noipa__)) __used

/* global (non-static) in amdgpu, as here */
void amdgpu_gmc_noretry_set(struct amdgpu_device *adev);
void amdgpu_vm_adjust_size(struct amdgpu_device *adev, uint32_t min_vm_size,
			   uint32_t fragment_size_default, unsigned int max_level,
			   unsigned int max_bits);

/*
 * amdgpu_gmc_noretry_set(): like amdgpu, -1 means the per-GC default
 * (0 for RDNA1 on 6.1/6.12 kernels, 1 for RDNA2), else the parameter.
 */
/* probe2: calls of amdgpu_gmc_noretry_set wait inside until two are */
static bool mock_gate_on;
static atomic_t mock_gate_in = ATOMIC_INIT(0);

MOCK_HOOK void amdgpu_gmc_noretry_set(struct amdgpu_device *adev)
{
	int p, i;

	if (READ_ONCE(mock_gate_on)) {
		atomic_inc(&mock_gate_in);
		for (i = 0; i < 3000 && atomic_read(&mock_gate_in) < 2; i++)
			msleep(1);
	}
	mock_noretry_hold();
	p = READ_ONCE(amdgpu_noretry);

	adev->noretry_param_seen = p;
	adev->gmc_noretry = p == -1 ? (adev->rdna1 ? 0 : 1) : p;
}

MOCK_HOOK void amdgpu_vm_adjust_size(struct amdgpu_device *adev, uint32_t min_vm_size,
				     uint32_t fragment_size_default, unsigned int max_level,
				     unsigned int max_bits)
{
	int p = READ_ONCE(amdgpu_vm_fragment_size);

	adev->frag_param_seen = p;
	adev->fragment_size = p == -1 ? fragment_size_default : p;
}

#include "mock_variants.h"


/* Like amdgpu: device init sets noretry, GMC v10 sw_init sizes the VM. */
static MOCK_HOOK int amdgpu_pci_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct mock_dev *m = container_of(pdev, struct mock_dev, pdev);

	mock_noretry_set(&m->adev);
	amdgpu_vm_adjust_size(&m->adev, 256 * 1024, 9, 3, 48);
	return 0;
}

#if !MOCK_PTE_VALUE_VARIANT
static MOCK_HOOK void amdgpu_pci_remove(struct pci_dev *pdev)
{
}
#endif

static void mock_release(struct device *dev)
{
	struct mock_dev *m = container_of(dev, struct mock_dev, pdev.dev);

	kfree(m);
}

static void mock_other_release(struct device *dev)
{
}

/* a new fake device in @slot, or an ERR_PTR */
static struct mock_dev *mock_new_dev(unsigned int slot, unsigned int vendor, unsigned int device,
				     const char *bdf, bool bad)
{
	unsigned int dom, bus, dv, fn;
	struct mock_dev *m;
	int ret;

	if (sscanf(bdf, "%x:%x:%x.%x", &dom, &bus, &dv, &fn) != 4 || bus > 0xff ||
	    dv > 0x1f || fn > 7)
		return ERR_PTR(-EINVAL);
	if (slots[slot])
		return ERR_PTR(-EBUSY);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->sysdata.domain = dom;
	m->bus.number = bus;
	m->bus.sysdata = &m->sysdata;
	m->pdev.bus = &m->bus;
	m->pdev.vendor = vendor;
	m->pdev.device = device;
	m->pdev.devfn = PCI_DEVFN(dv, fn);
	m->pdev.class = PCI_CLASS_DISPLAY_VGA << 8;
	device_initialize(&m->pdev.dev);
	m->pdev.dev.release = mock_release;
	ret = dev_set_name(&m->pdev.dev, "%04x:%02x:%02x.%d", dom, bus, dv, fn);
	if (ret) {
		put_device(&m->pdev.dev);
		return ERR_PTR(ret);
	}
	device_initialize(&m->other);
	m->other.release = mock_other_release;
	m->adev.pdev = &m->pdev;
	m->adev.dev = bad ? &m->other : &m->pdev.dev;
	/* GC 10.1.x parts: PCI ids 0x731x, 0x734x, 0x736x, Cyan Skillfish 0x13xx/0x143f */
	m->adev.rdna1 = (device & 0xff00) == 0x7300 && device < 0x73a0;
	m->adev.rdna1 |= device == 0x13db || (device >= 0x13f9 && device <= 0x13fe) ||
			 device == 0x143f;
	slots[slot] = m;
	return m;
}

static int mock_cmd_probe(unsigned int slot, unsigned int vendor, unsigned int device,
			  const char *bdf, bool bad)
{
	struct mock_dev *m;
	int ret;

	m = mock_new_dev(slot, vendor, device, bdf, bad);
	if (IS_ERR(m))
		return PTR_ERR(m);
	ret = amdgpu_pci_probe(&m->pdev, NULL);
	scnprintf(answer, sizeof(answer),
		  "probe=%d noretry_param=%d noretry=%d frag_param=%d frag=%u\n", ret,
		  m->adev.noretry_param_seen, m->adev.gmc_noretry, m->adev.frag_param_seen,
		  m->adev.fragment_size);
	return 0;
}

struct mock_job {
	struct mock_dev *m;
	struct completion done;
	int ret;
};

static int mock_probe_thread(void *data)
{
	struct mock_job *j = data;

	j->ret = amdgpu_pci_probe(&j->m->pdev, NULL);
	complete(&j->done);
	return 0;
}

/* two probes whose noretry_set calls overlap: a enters first, b while a is inside */
static int mock_cmd_probe2(unsigned int sa, unsigned int va, unsigned int da, const char *ba,
			   unsigned int sb, unsigned int vb, unsigned int db, const char *bb)
{
	struct mock_job ja = { 0 }, jb = { 0 };
	struct task_struct *t;
	int i;

	if (sa == sb)
		return -EINVAL;
	ja.m = mock_new_dev(sa, va, da, ba, false);
	jb.m = IS_ERR(ja.m) ? ja.m : mock_new_dev(sb, vb, db, bb, false);
	if (IS_ERR(jb.m))
		return PTR_ERR(jb.m);
	init_completion(&ja.done);
	init_completion(&jb.done);
	atomic_set(&mock_gate_in, 0);
	WRITE_ONCE(mock_gate_on, true);
	t = kthread_run(mock_probe_thread, &ja, "mock_probe_a");
	if (IS_ERR(t)) {
		WRITE_ONCE(mock_gate_on, false);
		return PTR_ERR(t);
	}
	for (i = 0; i < 3000 && atomic_read(&mock_gate_in) < 1; i++)
		msleep(1);
	t = kthread_run(mock_probe_thread, &jb, "mock_probe_b");
	if (IS_ERR(t)) {
		atomic_set(&mock_gate_in, 2);	/* release a */
		wait_for_completion(&ja.done);
		WRITE_ONCE(mock_gate_on, false);
		return PTR_ERR(t);
	}
	wait_for_completion(&ja.done);
	wait_for_completion(&jb.done);
	WRITE_ONCE(mock_gate_on, false);
	scnprintf(answer, sizeof(answer),
		  "a: probe=%d noretry=%d frag=%u b: probe=%d noretry=%d frag=%u\n", ja.ret,
		  ja.m->adev.gmc_noretry, ja.m->adev.fragment_size, jb.ret,
		  jb.m->adev.gmc_noretry, jb.m->adev.fragment_size);
	return 0;
}

static int mtype_uapi(const char *name, u32 *out)
{
	static const char * const names[] = { "default", "nc", "wc", "cc", "uc" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!strcmp(name, names[i])) {
			*out = i << MOCK_VM_MTYPE_SHIFT;
			return 0;
		}
	}
	return -EINVAL;
}


static int mock_cmd_pte(unsigned int slot, u64 pte, const char *mtype)
{
	u32 uapi;
	u64 out;

	if (!slots[slot] || mtype_uapi(mtype, &uapi))
		return -EINVAL;
	out = mock_one_pte(&slots[slot]->adev, pte, uapi);
	scnprintf(answer, sizeof(answer), "amdgpu=0x%llx final=0x%llx other=0x%llx\n",
		  READ_ONCE(mock_pte_amdgpu), out, READ_ONCE(mock_pte_other));
	return 0;
}

static int mock_cmd_bench(unsigned int slot, unsigned int count)
{
	u64 t0, total = 0, sink = 0;
	unsigned int i;

	if (!slots[slot] || count == 0 || count > 10000000)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		if ((i & 1023) == 0) {
			if (i)
				total += ktime_get_ns() - t0;
			cond_resched();
			t0 = ktime_get_ns();
		}
		sink ^= mock_one_pte(&slots[slot]->adev, 0x1ULL | (u64)(i & 1) << 1,
				     1 << MOCK_VM_MTYPE_SHIFT);
	}
	total += ktime_get_ns() - t0;
	scnprintf(answer, sizeof(answer), "calls=%u ns=%llu sink=%llx\n", count, total,
		  sink & 1);
	return 0;
}

static void mock_remove(unsigned int slot)
{
	struct mock_dev *m = slots[slot];

	if (!m)
		return;
	slots[slot] = NULL;
	put_device(&m->other);
	put_device(&m->pdev.dev);
}

static ssize_t mock_ctl_write(struct file *file, const char __user *ubuf, size_t len,
			      loff_t *ppos)
{
	char buf[160], a[24], b[24];
	unsigned int slot, x, y, slot2, x2, y2;
	unsigned long long pte;
	int n, ret = -EINVAL;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	mutex_lock(&mock_lock);
	answer[0] = '\0';
	/* "probe2" first: "probe %u" would take "probe2 ..." as slot 2 */
	if (!strncmp(buf, "probe2 ", 7)) {
		if (sscanf(buf, "probe2 %u %x %x %23s %u %x %x %23s", &slot, &x, &y, a, &slot2, &x2,
			   &y2, b) == 8 && slot < MOCK_SLOTS && slot2 < MOCK_SLOTS)
			ret = mock_cmd_probe2(slot, x, y, a, slot2, x2, y2, b);
	} else if (sscanf(buf, "probe %u %x %x %23s %23s", &slot, &x, &y, a, b) >= 4 &&
		   slot < MOCK_SLOTS) {
		n = sscanf(buf, "probe %u %x %x %23s %23s", &slot, &x, &y, a, b);
		ret = mock_cmd_probe(slot, x, y, a, n == 5 && !strcmp(b, "badlayout"));
	} else if (sscanf(buf, "pte %u %llx %23s", &slot, &pte, a) == 3 && slot < MOCK_SLOTS) {
		ret = mock_cmd_pte(slot, pte, a);
	} else if (sscanf(buf, "bench %u %u", &slot, &x) == 2 && slot < MOCK_SLOTS) {
		ret = mock_cmd_bench(slot, x);
	} else if (sscanf(buf, "remove %u", &slot) == 1 && slot < MOCK_SLOTS) {
#if !MOCK_PTE_VALUE_VARIANT
		if (slots[slot])
			amdgpu_pci_remove(&slots[slot]->pdev);
#endif
		mock_remove(slot);
		ret = 0;
	}
	mutex_unlock(&mock_lock);
	return ret ? ret : len;
}

static ssize_t mock_ctl_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&mock_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, answer, strlen(answer));
	mutex_unlock(&mock_lock);
	return ret;
}

static const struct file_operations mock_ctl_fops = {
	.owner = THIS_MODULE,
	.write = mock_ctl_write,
	.read = mock_ctl_read,
	.llseek = default_llseek,
};

static int __init mock_init(void)
{
	int ret = mock_variants_init();

	if (ret)
		return ret;
	mock_dir = debugfs_create_dir("mock_amdgpu", NULL);
	debugfs_create_file("ctl", 0600, mock_dir, NULL, &mock_ctl_fops);
	pr_info("mock amdgpu (TEST ONLY) loaded, pte api v%d%s\n", MOCK_PTE_V2 ? 2 : 1,
		MOCK_PTE_VALUE_VARIANT ? ", variant: flags passed by value" : "");
	msleep(mock_init_ms);
	return 0;
}

static void __exit mock_exit(void)
{
	unsigned int i;

	debugfs_remove_recursive(mock_dir);
	for (i = 0; i < MOCK_SLOTS; i++)
		mock_remove(i);
}

module_init(mock_init);
module_exit(mock_exit);
MODULE_DESCRIPTION("TEST-ONLY mock of amdgpu for the rdnafix VM suite");
MODULE_LICENSE("GPL");
