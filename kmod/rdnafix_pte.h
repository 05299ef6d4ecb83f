/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdnafix policy, part of rdnafix_policy.h (include that): the GFX10 PTE
 * layout and the MTYPE rewrite applied to each PTE amdgpu writes.
 *
 * Facts used here (upstream Linux 6.1, 6.12 and 7.2; docs/amdgpu-facts.md
 * section 3):
 *   - drivers/gpu/drm/amd/amdgpu/amdgpu_vm.h: AMDGPU_PTE_SYSTEM is bit 1,
 *     AMDGPU_PTE_PRT is bit 51, AMDGPU_PTE_MTYPE_NV10 puts the MTYPE at
 *     bit 48 with a 3-bit mask, so the GFX10 MTYPE field is PTE bits 50:48.
 *   - drivers/gpu/drm/amd/include/navi10_enum.h: MTYPE_NC = 0,
 *     MTYPE_WC = 1, MTYPE_CC = 2 (enum TCC_MTYPE) and MTYPE_UC = 3
 *     (enum MTYPE).
 */
#ifndef RDNAFIX_PTE_H
#define RDNAFIX_PTE_H

#ifndef RDNAFIX_POLICY_H
#error "rdnafix_pte.h is part of rdnafix_policy.h: include that"
#endif

/* ------------------------------------------------------------------ */
/* PTE layout (GFX10 / GMC v10)                                        */
/* ------------------------------------------------------------------ */
#define RDNAFIX_PTE_VALID		BIT_ULL(0)
#define RDNAFIX_PTE_SYSTEM		BIT_ULL(1)
#define RDNAFIX_PTE_PRT			BIT_ULL(51)
#define RDNAFIX_PTE_MTYPE_SHIFT		48
#define RDNAFIX_PTE_MTYPE_MASK		(7ULL << RDNAFIX_PTE_MTYPE_SHIFT)

/*
 * Every bit a GMC v10 PTE flag word (the value get_vm_pte receives and
 * returns through its flags pointer; the page address is added later by
 * amdgpu_vm_update_range) can hold: 0 valid, 1 system, 2 snooped, 3 tmz,
 * 4 executable, 5 readable, 6 writeable, 11:7 fragment, 50:48 MTYPE,
 * 51 PRT, 55 LOG, 56 TF, 58 NOALLOC (drivers/gpu/drm/amd/amdgpu/
 * amdgpu_vm.h: AMDGPU_PTE_*, and the "PTE format on NAVI 10" comment in
 * gmc_v10_0.c, Linux 6.1, 6.12 and 7.2).  A word with any other bit set
 * (an address, a pointer, a counter) is not what the hook expects:
 * nothing is written through that pointer.
 */
#define RDNAFIX_PTE_FLAG_BITS	(0xfffULL | (0xfULL << 48) | BIT_ULL(55) | BIT_ULL(56) | \
				 BIT_ULL(58))

static inline bool rdnafix_pte_is_flag_word(u64 v)
{
	return (v & ~RDNAFIX_PTE_FLAG_BITS) == 0;
}

/* ------------------------------------------------------------------ */
/* PTE MTYPE rewrite                                                   */
/* ------------------------------------------------------------------ */
enum rdnafix_pte_action {
	RDNAFIX_PTE_UNCHANGED = 0,	/* policy keep, PRT, or already right */
	RDNAFIX_PTE_REWRITE,		/* *out differs from the input */
	RDNAFIX_PTE_WOULD_REWRITE,	/* dry run: would differ, *out == input */
};

static inline int rdnafix_pte_mtype(u64 pte)
{
	return (int)((pte & RDNAFIX_PTE_MTYPE_MASK) >> RDNAFIX_PTE_MTYPE_SHIFT);
}

/*
 * Which MTYPEs amdgpu chose may be replaced (parameter mtype_override).
 * amdgpu gives a GFX10 PTE NC by default and UC on purpose: KFD
 * coherent/fine-grained and uncached memory, BOs created COHERENT,
 * EXT_COHERENT or UNCACHED (gmc_v10_0.c: gmc_v10_0_get_vm_pte, Linux 6.2+),
 * doorbells and imports asked for that way; WC/CC appear only when
 * userspace asks for them (DRM_AMDGPU_GEM_VA).  docs/amdgpu-facts.md
 * section 3.
 */
enum rdnafix_override {
	RDNAFIX_OVERRIDE_NC = 0,	/* default: only PTEs amdgpu left at NC */
	RDNAFIX_OVERRIDE_ANY = 1,	/* DANGEROUS: also amdgpu's deliberate UC/WC/CC */
};

#define RDNAFIX_VALID_OVERRIDE	"nc (rewrite only what amdgpu left at NC) or any (dangerous)"

static inline const char *rdnafix_override_name(int v)
{
	switch (v) {
	case RDNAFIX_OVERRIDE_NC:
		return "nc";
	case RDNAFIX_OVERRIDE_ANY:
		return "any";
	default:
		return "invalid";
	}
}

static inline int rdnafix_parse_override(const char *s, int *out)
{
	unsigned int len = rdnafix_param_len(s);
	int v;

	for (v = RDNAFIX_OVERRIDE_NC; v <= RDNAFIX_OVERRIDE_ANY; v++) {
		if (rdnafix_tok_eq(s, len, rdnafix_override_name(v))) {
			*out = v;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * Apply the MTYPE policy to one PTE flags value.  System memory (the
 * SYSTEM bit set: GTT, userptr, imported system pages) takes
 * @mtype_sysmem, everything else (VRAM, including an APU's carve-out)
 * takes @mtype_vram.  Left alone: PRT (partially resident, unbacked)
 * entries, entries without the VALID bit (not a mapping), and unless
 * @override is RDNAFIX_OVERRIDE_ANY every entry whose MTYPE amdgpu did not
 * leave at its default NC.  *out is the value to store.
 *
 * Counting (sysfs ABI v1): every REWRITE and every WOULD_REWRITE counts in
 * pte_would_rewrite; only REWRITE counts in pte_rewrites.
 */
static inline int rdnafix_pte_apply(u64 pte, int mtype_sysmem, int mtype_vram, int override,
				    bool dry_run, u64 *out)
{
	int want = (pte & RDNAFIX_PTE_SYSTEM) ? mtype_sysmem : mtype_vram;
	u64 next;

	*out = pte;
	if (want < RDNAFIX_MTYPE_NC || want > RDNAFIX_MTYPE_UC)
		return RDNAFIX_PTE_UNCHANGED;
	if ((pte & RDNAFIX_PTE_PRT) || !(pte & RDNAFIX_PTE_VALID))
		return RDNAFIX_PTE_UNCHANGED;
	if (override != RDNAFIX_OVERRIDE_ANY && rdnafix_pte_mtype(pte) != RDNAFIX_MTYPE_NC)
		return RDNAFIX_PTE_UNCHANGED;
	next = (pte & ~RDNAFIX_PTE_MTYPE_MASK) |
	       ((u64)want << RDNAFIX_PTE_MTYPE_SHIFT);
	if (next == pte)
		return RDNAFIX_PTE_UNCHANGED;
	if (dry_run)
		return RDNAFIX_PTE_WOULD_REWRITE;
	*out = next;
	return RDNAFIX_PTE_REWRITE;
}

#endif /* RDNAFIX_PTE_H */
