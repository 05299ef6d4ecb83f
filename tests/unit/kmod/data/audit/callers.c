/* Callers of a get_vm_pte-like function pointer, compiled by
 * tests/unit/kmod/test_amdgpu_audit.py as the kernel compiles amdgpu
 * (retpoline thunks, no jump tables), so that the audit meets real compiler
 * output.  The layout puts gmc_funcs at 0xbd8 + 0x2120 = 0x2cf8 and
 * get_vm_pte at 0x38, as in Debian's 6.12 amdgpu.ko.
 */
struct gmc_funcs {
	void *other[7];
	void (*get_vm_pte)(void *adev, void *mapping, unsigned long long *flags);
};
struct gmc {
	char pad[0x2120];
	const struct gmc_funcs *gmc_funcs;
};
struct adev {
	char pad[0xbd8];
	struct gmc gmc;
};

void *heap_alloc(unsigned long size);
void consume(unsigned long long flags);

/* as amdgpu_vm_bo_update: flags is a local */
void stack_caller(struct adev *adev, void *mapping)
{
	unsigned long long flags = 0x67;

	adev->gmc.gmc_funcs->get_vm_pte(adev, mapping, &flags);
	consume(flags);
}

/* flags points to the heap */
void heap_caller(struct adev *adev, void *mapping)
{
	unsigned long long *flags = heap_alloc(sizeof(*flags));

	*flags = 0x67;
	adev->gmc.gmc_funcs->get_vm_pte(adev, mapping, flags);
	consume(*flags);
}

/* flags is whatever the caller passed (a tail call at -O2) */
void passing_caller(struct adev *adev, void *mapping, unsigned long long *flags)
{
	adev->gmc.gmc_funcs->get_vm_pte(adev, mapping, flags);
}

/* a local on one path, the caller's pointer on the other */
void mixed_caller(struct adev *adev, void *mapping, unsigned long long *theirs, int mine)
{
	unsigned long long flags = 0x67;

	adev->gmc.gmc_funcs->get_vm_pte(adev, mapping, mine ? &flags : theirs);
	consume(flags);
}

/* a local addressed through the frame pointer (a kernel built with frame pointers) */
__attribute__((optimize("no-omit-frame-pointer"))) void fp_caller(struct adev *adev, void *mapping)
{
	unsigned long long flags = 0x67;

	adev->gmc.gmc_funcs->get_vm_pte(adev, mapping, &flags);
	consume(flags);
}
