/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TEST-ONLY: the mock's gmc_v10_0_get_vm_pte (and gmc_v10_0_map_mtype) in
 * every shape the VM suites need, where its caller keeps the flags word,
 * and what amdgpu_pci_probe passes to amdgpu_gmc_noretry_set.  Part of
 * mock_amdgpu.c's translation unit (included once, after the structs).
 *
 * Build-time shapes (make MOCK_CFLAGS=...; build-mock.sh, tests/vm/matrix):
 *   -DMOCK_FORCE_PTE_V2=0|1  get_vm_pte(adev, mapping, flags) (Linux < 6.18)
 *                            or get_vm_pte(adev, vm, bo, vm_flags, flags)
 *                            (6.18+, commit 6716a823d18d); default from the
 *                            kernel version (MOCK_PTE_V2, mock_amdgpu.c)
 *   -DMOCK_MAP_MTYPE=0|1     gmc_v10_0_map_mtype present; default: exactly
 *                            in the 3-argument era, as in amdgpu
 *   -DMOCK_PTE_VALUE_VARIANT=1  a u64 flags VALUE where the kernel's
 *                            get_vm_pte takes the pointer (mock.sh)
 * Load-time choices (module parameters, read-only):
 *   mock_pte_flags=stack   the flags word is a local of the caller (amdgpu's
 *                          amdgpu_vm_bo_update / svm_range_map_to_gpu)
 *   mock_pte_flags=heap    it is a kmalloc'd u64 holding the PTE value
 *   mock_pte_flags=uapi    it is a local holding MOCK_UAPI_VALUE, a
 *                          drm_amdgpu_gem_create_in.domain_flags word
 *                          (amdgpu_drm.h), not a PTE flag word (bit 13)
 *   mock_noretry_arg=adev  amdgpu_gmc_noretry_set(adev), as amdgpu
 *   mock_noretry_arg=gmc   its arg 0 is no amdgpu_device: a struct whose
 *                          first two words are numbers (struct amdgpu_gmc
 *                          starts with aper_size, aper_base)
 * "pte" answers also report "other": the object get_vm_pte's non-flags
 * pointer argument points at (bo->flags or mapping->flags) after the call,
 * preset to the PTE value so that a write through the wrong argument shows.
 */
#ifndef MOCK_VARIANTS_H
#define MOCK_VARIANTS_H

#include <linux/sizes.h>
#include <linux/string.h>

/* mock_amdgpu.c picks MOCK_PTE_V2 from the kernel version; the matrix forces it */
#ifdef MOCK_FORCE_PTE_V2
#undef MOCK_PTE_V2
#define MOCK_PTE_V2 MOCK_FORCE_PTE_V2
#endif
#ifndef MOCK_MAP_MTYPE
#define MOCK_MAP_MTYPE (!MOCK_PTE_V2)
#endif

/* AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED | _NO_CPU_ACCESS | _CPU_GTT_USWC | _COHERENT */
#define MOCK_UAPI_VALUE		(BIT_ULL(0) | BIT_ULL(1) | BIT_ULL(2) | BIT_ULL(13))

static char *mock_pte_flags = "stack";
module_param(mock_pte_flags, charp, 0444);
MODULE_PARM_DESC(mock_pte_flags, "TEST: where get_vm_pte's flags word lives: stack, heap or uapi");
static char *mock_noretry_arg = "adev";
module_param(mock_noretry_arg, charp, 0444);
MODULE_PARM_DESC(mock_noretry_arg, "TEST: amdgpu_gmc_noretry_set's arg 0: adev or gmc (not an adev)");

enum { MOCK_FLAGS_STACK, MOCK_FLAGS_HEAP, MOCK_FLAGS_UAPI };
static int mock_flags_at;
static bool mock_noretry_gmc;
/* the non-flags object get_vm_pte was given, after the call */
static u64 mock_pte_other;

/* parse the load-time choices; -EINVAL names the valid values */
static int mock_variants_init(void)
{
	static const char * const at[] = { "stack", "heap", "uapi" };

	mock_flags_at = match_string(at, ARRAY_SIZE(at), mock_pte_flags);
	if (mock_flags_at < 0) {
		pr_err("mock_pte_flags=%s: valid are stack, heap, uapi\n", mock_pte_flags);
		return -EINVAL;
	}
	if (strcmp(mock_noretry_arg, "adev") && strcmp(mock_noretry_arg, "gmc")) {
		pr_err("mock_noretry_arg=%s: valid are adev, gmc\n", mock_noretry_arg);
		return -EINVAL;
	}
	mock_noretry_gmc = !strcmp(mock_noretry_arg, "gmc");
	return 0;
}

/* amdgpu_gmc_noretry_set() as amdgpu_pci_probe calls it (mock_noretry_arg) */
static void mock_noretry_set(struct amdgpu_device *adev)
{
	struct amdgpu_device gmc;

	if (!mock_noretry_gmc) {
		amdgpu_gmc_noretry_set(adev);
		return;
	}
	gmc = *adev;
	gmc.dev = (struct device *)(uintptr_t)SZ_256M;		/* aper_size */
	gmc.pdev = (struct pci_dev *)(uintptr_t)0xe0000000UL;	/* aper_base */
	amdgpu_gmc_noretry_set(&gmc);
	adev->noretry_param_seen = gmc.noretry_param_seen;
	adev->gmc_noretry = gmc.gmc_noretry;
}

/* UAPI AMDGPU_VM_MTYPE_ DEFAULT, NC, WC, CC, UC -> hardware NC, NC, WC, CC, UC; else NC */
static u64 mock_hw_mtype(u32 uapi)
{
	static const u8 hw[16] = { 0, 0, 1, 2, 3 };

	return hw[(uapi & MOCK_VM_MTYPE_MASK) >> MOCK_VM_MTYPE_SHIFT];
}

#if MOCK_MAP_MTYPE
static MOCK_HOOK uint64_t gmc_v10_0_map_mtype(struct amdgpu_device *adev, uint32_t flags)
{
	return mock_hw_mtype(flags) << MOCK_MTYPE_SHIFT;
}

#define MOCK_MTYPE_BITS(adev, uapi)	gmc_v10_0_map_mtype(adev, uapi)
#else
#define MOCK_MTYPE_BITS(adev, uapi)	(mock_hw_mtype(uapi) << MOCK_MTYPE_SHIFT)
#endif

#if MOCK_PTE_V2
static MOCK_HOOK void gmc_v10_0_get_vm_pte(struct amdgpu_device *adev, struct amdgpu_vm *vm,
					   struct amdgpu_bo *bo, uint32_t vm_flags,
					   MOCK_VALUE_PARAM uint64_t *flags)
{
	u64 f = READ_ONCE(*flags);

	f = (f & ~MOCK_MTYPE_MASK) | MOCK_MTYPE_BITS(adev, vm_flags);
	WRITE_ONCE(*flags, f);
	WRITE_ONCE(mock_pte_amdgpu, f);
}
#else
static MOCK_HOOK void gmc_v10_0_get_vm_pte(struct amdgpu_device *adev,
					   struct amdgpu_bo_va_mapping *mapping,
					   MOCK_VALUE_PARAM uint64_t *flags)
{
	u64 f = READ_ONCE(*flags);

	f = (f & ~MOCK_MTYPE_MASK) | (mapping->flags & MOCK_MTYPE_MASK);
	WRITE_ONCE(*flags, f);
	WRITE_ONCE(mock_pte_amdgpu, f);
}
#endif

/* one get_vm_pte() call the way amdgpu makes it; the flags word after it */
static u64 mock_one_pte(struct amdgpu_device *adev, u64 pte, u32 uapi)
{
	u64 word = mock_flags_at == MOCK_FLAGS_UAPI ? MOCK_UAPI_VALUE : pte;
	u64 *flags = &word;	/* a local of the caller, as in amdgpu */
#if MOCK_PTE_V2
	struct amdgpu_vm vm = { 0 };
	struct amdgpu_bo bo = { .flags = word };
#else
	struct amdgpu_bo_va_mapping mapping;

	mapping.flags = MOCK_MTYPE_BITS(adev, uapi) | (word & ~MOCK_MTYPE_MASK);
#endif

	if (mock_flags_at == MOCK_FLAGS_HEAP) {
		flags = kmalloc(sizeof(*flags), GFP_KERNEL);
		if (!flags)
			return ~0ULL;
		*flags = word;
	}
#if MOCK_PTE_V2
	gmc_v10_0_get_vm_pte(adev, &vm, &bo, uapi, MOCK_VALUE_ARG(word) flags);
	WRITE_ONCE(mock_pte_other, READ_ONCE(bo.flags));
#else
	gmc_v10_0_get_vm_pte(adev, &mapping, MOCK_VALUE_ARG(word) flags);
	WRITE_ONCE(mock_pte_other, READ_ONCE(mapping.flags));
#endif
	word = READ_ONCE(*flags);
	if (flags != &word)
		kfree(flags);
	return word;
}

#endif /* MOCK_VARIANTS_H */
