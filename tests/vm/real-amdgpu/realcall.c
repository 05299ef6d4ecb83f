// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix_realcall: TEST-ONLY module (tests/vm/real-amdgpu; never installed,
 * never in DKMS).  It calls the REAL amdgpu functions that rdnafix hooks,
 * amdgpu_gmc_noretry_set(), amdgpu_vm_adjust_size() and
 * gmc_v10_0_get_vm_pte(), on zeroed fake amdgpu_devices built with the
 * struct sizes and member offsets from the BTF of the amdgpu.ko of the
 * kernel it was built for (realcall_btf.h, made by btf-offsets.py), and
 * reports what amdgpu computed in /sys/kernel/debug/rdnafix_realcall/result.
 *
 * The functions are found with kallsyms_lookup_name(), which is not
 * exported: its address is taken from a kprobe registered on it.  Nothing
 * is called whose BTF prototype is not one this module was written for, or
 * when the running amdgpu is not the amdgpu.ko whose BTF
 * gave the offsets (build id, parameter amdgpu_build_id): such a function is
 * reported "skip <reason>" instead.
 *
 * Fake devices (vendor 0x1002): navi21 0x73bf, GC 10.3.0, 0000:41:00.0 and
 * navi10 0x731f, GC 10.1.10, 0000:42:00.0.  adev->dev points at the fake
 * pci_dev's device, as amdgpu's does, so rdnafix sees a real layout.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/version.h>

#include "realcall_btf.h"

/*
 * amdgpu's encoding of ip_versions[][] (amdgpu.h: IP_VERSION): it gained
 * variant and subrevision bytes between 6.1 and 6.12 (IP_VERSION_FULL; 6.7
 * is assumed, only 6.1, 6.12 and 7.2 are tested).  BTF does not carry
 * macros, so this one fact comes from the kernel version; a wrong guess
 * shows as noretry 0 instead of 1 for GC 10.3.0 in the guest suite.
 */
#if KERNEL_VERSION(6, 7, 0) <= LINUX_VERSION_CODE
#define RC_IP_VERSION(mj, mn, rv) (((mj) << 24) | ((mn) << 16) | ((rv) << 8))
#else
#define RC_IP_VERSION(mj, mn, rv) (((mj) << 16) | ((mn) << 8) | (rv))
#endif

/*
 * The two gmc_v10_0_get_vm_pte prototypes this module can call: 3 arguments
 * up to 6.17, 5 from 6.18 (upstream 6716a823d18d).  Which one is taken from
 * the BTF; any other prototype is refused.
 */
#define RC_PTE_V1 "void (struct amdgpu_device *, struct amdgpu_bo_va_mapping *, uint64_t *)"
#define RC_PTE_V2 \
	"void (struct amdgpu_device *, struct amdgpu_vm *, struct amdgpu_bo *, uint32_t, uint64_t *)"
#define RC_WANT_NORETRY "void (struct amdgpu_device *)"
#define RC_WANT_ADJUST \
	"void (struct amdgpu_device *, uint32_t, uint32_t, unsigned int, unsigned int)"

/* amdgpu_vm.h and amdgpu_drm.h values used by the PTE cases */
#define RC_PTE_VALID BIT_ULL(0)
#define RC_PTE_SYSTEM BIT_ULL(1)
#define RC_PTE_SNOOPED BIT_ULL(2)
#define RC_PTE_READABLE BIT_ULL(5)
#define RC_PTE_WRITEABLE BIT_ULL(6)
#define RC_PTE_MTYPE_SHIFT 48
#define RC_MTYPE_UC 3ULL
#define RC_VM_PAGE_READABLE BIT(1)
#define RC_VM_PAGE_WRITEABLE BIT(2)
#define RC_VM_MTYPE_UC (4U << 5)
#define RC_GEM_CREATE_COHERENT BIT_ULL(13)

typedef void (*rc_noretry_fn)(void *adev);
typedef void (*rc_adjust_fn)(void *adev, u32 min_vm_size, u32 frag_default,
			     unsigned int max_level, unsigned int max_bits);
typedef void (*rc_pte1_fn)(void *adev, void *mapping, u64 *flags);
typedef void (*rc_pte2_fn)(void *adev, void *vm, void *bo, u32 vm_flags, u64 *flags);

static char *amdgpu_build_id = "";
module_param(amdgpu_build_id, charp, 0444);
MODULE_PARM_DESC(amdgpu_build_id, "GNU build id (hex) of the running amdgpu (must match)");
/* test of the refusal: pretend the BTF gave this get_vm_pte prototype */
static char *btf_pte_proto = RC_PROTO_GET_VM_PTE;
module_param(btf_pte_proto, charp, 0444);
MODULE_PARM_DESC(btf_pte_proto, "get_vm_pte prototype to act on (default: the one from BTF)");

struct rc_dev {
	const char *name;
	u16 device;
	u8 bus;
	u8 gc_minor, gc_rev;
	struct pci_dev pdev;
	struct pci_bus pbus;
	struct pci_sysdata sysdata;
	void *adev;
};

static struct rc_dev rc_devs[] = {
	{ .name = "navi21", .device = 0x73bf, .bus = 0x41, .gc_minor = 3, .gc_rev = 0 },
	{ .name = "navi10", .device = 0x731f, .bus = 0x42, .gc_minor = 1, .gc_rev = 10 },
};

static char rc_out[2048];
static size_t rc_len;
static struct dentry *rc_dir;

static __printf(1, 2) void rc_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc_len += vscnprintf(rc_out + rc_len, sizeof(rc_out) - rc_len, fmt, ap);
	va_end(ap);
}

static unsigned long rc_lookup(const char *name)
{
	static unsigned long (*lookup)(const char *name);
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	u8 *p;

	if (!lookup) {
		if (register_kprobe(&kp))
			return 0;
		p = (u8 *)kp.addr;
		unregister_kprobe(&kp);
		/* an IBT kernel places the probe after the endbr64: call the entry */
		if (!memcmp(p - sizeof(endbr64), endbr64, sizeof(endbr64)))
			p -= sizeof(endbr64);
		lookup = (void *)p;
	}
	return lookup(name);
}

static u64 *rc_u64(void *base, size_t off)
{
	return (u64 *)((u8 *)base + off);
}

static u32 *rc_u32(void *base, size_t off)
{
	return (u32 *)((u8 *)base + off);
}

static void rc_dev_release(struct device *dev)
{
}

static int rc_dev_make(struct rc_dev *d)
{
	d->sysdata.domain = 0;
	d->pbus.number = d->bus;
	d->pbus.sysdata = &d->sysdata;
	d->pdev.bus = &d->pbus;
	d->pdev.vendor = PCI_VENDOR_ID_ATI;
	d->pdev.device = d->device;
	d->pdev.devfn = PCI_DEVFN(0, 0);
	d->pdev.class = PCI_CLASS_DISPLAY_VGA << 8;
	device_initialize(&d->pdev.dev);
	d->pdev.dev.release = rc_dev_release;
	if (dev_set_name(&d->pdev.dev, "0000:%02x:00.0", d->bus))
		return -ENOMEM;
	d->adev = kvzalloc(RC_SIZEOF_ADEV, GFP_KERNEL);
	if (!d->adev)
		return -ENOMEM;
	*(struct device **)((u8 *)d->adev + RC_OFF_DEV) = &d->pdev.dev;
	*(struct pci_dev **)((u8 *)d->adev + RC_OFF_PDEV) = &d->pdev;
	*rc_u32(d->adev, RC_OFF_GC_VERSION) = RC_IP_VERSION(10, d->gc_minor, d->gc_rev);
	return 0;
}

/* one PTE through the real get_vm_pte: mtype_uc asks for UC, coherent sets the BO flag */
static u64 rc_pte(unsigned long fn, bool v2, void *adev, bool mtype_uc, bool coherent)
{
	u64 flags = RC_PTE_VALID | RC_PTE_SYSTEM | RC_PTE_SNOOPED | RC_PTE_READABLE |
		    RC_PTE_WRITEABLE;
	void *bo = kzalloc(RC_SIZEOF_BO, GFP_KERNEL);
	void *vm = kzalloc(RC_SIZEOF_VM, GFP_KERNEL);
	void *bo_va = kzalloc(RC_SIZEOF_BO_VA, GFP_KERNEL);
	void *mapping = kzalloc(RC_SIZEOF_MAPPING, GFP_KERNEL);

	if (!bo || !vm || !bo_va || !mapping) {
		flags = ~0ULL;
		goto out;
	}
	if (coherent)
		*rc_u64(bo, RC_OFF_BO_FLAGS) = RC_GEM_CREATE_COHERENT;
	if (v2) {
		((rc_pte2_fn)fn)(adev, vm, bo, RC_VM_PAGE_READABLE | RC_VM_PAGE_WRITEABLE |
				 (mtype_uc ? RC_VM_MTYPE_UC : 0), &flags);
	} else {
		/* mapping->flags holds PTE bits: what amdgpu_gem_va_map_flags made */
		*rc_u64(mapping, RC_OFF_MAPPING_FLAGS) = RC_PTE_READABLE | RC_PTE_WRITEABLE |
			(mtype_uc ? RC_MTYPE_UC << RC_PTE_MTYPE_SHIFT : 0);
		*(void **)((u8 *)mapping + RC_OFF_MAPPING_BO_VA) = bo_va;
		*(void **)((u8 *)bo_va + RC_OFF_BO_VA_BO) = bo;
		((rc_pte1_fn)fn)(adev, mapping, &flags);
	}
out:
	kfree(mapping);
	kfree(bo_va);
	kfree(vm);
	kfree(bo);
	return flags;
}

/* NULL if the function may be called, else why not */
static const char *rc_refuse(const char *btf, const char *want, bool sizes_ok)
{
	if (strcmp(amdgpu_build_id, RC_BTF_BUILD_ID))
		return "running amdgpu is not the amdgpu.ko whose BTF gave the offsets";
	if (strcmp(btf, want))
		return "BTF prototype is not one this module can call";
	if (!sizes_ok)
		return "BTF member sizes differ from what this module writes";
	return NULL;
}

static void rc_run(void)
{
	bool adev_ok = RC_SIZE_DEV == 8 && RC_SIZE_PDEV == 8 && RC_SIZE_GC_VERSION == 4;
	const char *no_nr = rc_refuse(RC_PROTO_NORETRY_SET, RC_WANT_NORETRY,
				      adev_ok && RC_SIZE_GMC_NORETRY == 4);
	const char *no_adj = rc_refuse(RC_PROTO_ADJUST_SIZE, RC_WANT_ADJUST,
				       adev_ok && RC_SIZE_VM_MAX_PFN == 8 &&
				       RC_SIZE_VM_NUM_LEVEL == 4 && RC_SIZE_VM_BLOCK_SIZE == 4 &&
				       RC_SIZE_VM_FRAGMENT_SIZE == 4 && RC_SIZE_VM_ROOT_LEVEL == 4);
	bool v2 = !strcmp(btf_pte_proto, RC_PTE_V2);
	bool v1_ok = RC_SIZE_MAPPING_FLAGS == 8 && RC_SIZE_MAPPING_BO_VA == 8 &&
		     RC_SIZE_BO_VA_BO == 8;
	const char *no_pte = rc_refuse(btf_pte_proto, v2 ? RC_PTE_V2 : RC_PTE_V1,
				       adev_ok && RC_SIZE_BO_FLAGS == 8 && (v2 || v1_ok));
	unsigned long f_nr = rc_lookup("amdgpu:amdgpu_gmc_noretry_set");
	unsigned long f_adj = rc_lookup("amdgpu:amdgpu_vm_adjust_size");
	unsigned long f_pte = rc_lookup("amdgpu:gmc_v10_0_get_vm_pte");
	unsigned int i;

	if (!f_nr)
		no_nr = "amdgpu_gmc_noretry_set not found in kallsyms";
	if (!f_adj)
		no_adj = "amdgpu_vm_adjust_size not found in kallsyms";
	if (!f_pte)
		no_pte = "gmc_v10_0_get_vm_pte not found in kallsyms";
	rc_say("btf %s adev_size=%u pte_prototype=%s\n", RC_BTF_KVER, RC_SIZEOF_ADEV,
	       v2 ? "v2" : "v1");
	for (i = 0; i < ARRAY_SIZE(rc_devs); i++) {
		struct rc_dev *d = &rc_devs[i];
		void *a = d->adev;

		if (no_nr) {
			rc_say("%s noretry skip %s\n", d->name, no_nr);
		} else {
			((rc_noretry_fn)f_nr)(a);
			rc_say("%s noretry %d\n", d->name, *(int *)rc_u32(a, RC_OFF_GMC_NORETRY));
		}
		if (no_adj) {
			rc_say("%s vm skip %s\n", d->name, no_adj);
		} else {
			((rc_adjust_fn)f_adj)(a, 256 * 1024, 9, 3, 48);
			rc_say("%s vm fragment_size=%u max_pfn=%llu num_level=%u block_size=%u",
			       d->name, *rc_u32(a, RC_OFF_VM_FRAGMENT_SIZE),
			       *rc_u64(a, RC_OFF_VM_MAX_PFN), *rc_u32(a, RC_OFF_VM_NUM_LEVEL),
			       *rc_u32(a, RC_OFF_VM_BLOCK_SIZE));
			rc_say(" root_level=%u pdb2=%u\n", *rc_u32(a, RC_OFF_VM_ROOT_LEVEL),
			       RC_VM_PDB2);
		}
		if (no_pte) {
			rc_say("%s pte skip %s\n", d->name, no_pte);
		} else {
			u64 def = rc_pte(f_pte, v2, a, false, false);
			u64 uc = rc_pte(f_pte, v2, a, true, false);
			u64 coh = rc_pte(f_pte, v2, a, false, true);

			rc_say("%s pte default=0x%llx uc=0x%llx coherent=0x%llx\n",
			       d->name, def, uc, coh);
		}
	}
}

static ssize_t rc_read(struct file *f, char __user *buf, size_t n, loff_t *pos)
{
	return simple_read_from_buffer(buf, n, pos, rc_out, rc_len);
}

static const struct file_operations rc_fops = {
	.owner = THIS_MODULE,
	.read = rc_read,
	.llseek = default_llseek,
};

static void rc_free(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rc_devs); i++) {
		kvfree(rc_devs[i].adev);
		rc_devs[i].adev = NULL;
		if (rc_devs[i].pdev.dev.release)
			put_device(&rc_devs[i].pdev.dev);
	}
}

static int __init rc_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(rc_devs); i++) {
		ret = rc_dev_make(&rc_devs[i]);
		if (ret) {
			rc_free();
			return ret;
		}
	}
	rc_run();
	rc_dir = debugfs_create_dir("rdnafix_realcall", NULL);
	debugfs_create_file("result", 0444, rc_dir, NULL, &rc_fops);
	pr_info("called the real amdgpu functions on %zu fake devices\n", ARRAY_SIZE(rc_devs));
	return 0;
}

static void __exit rc_exit(void)
{
	debugfs_remove_recursive(rc_dir);
	rc_free();
}

module_init(rc_init);
module_exit(rc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rdnafix test only: calls the real amdgpu GMC/VM functions on fake devices");
