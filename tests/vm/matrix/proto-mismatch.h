/* Crafted rdnafix_conftest.h (tests/vm/matrix, made by hand, not by pte-conftest.py): a tested series (6.12) whose BTF says amdgpu_gmc_noretry_set and gmc_v10_0_get_vm_pte have another arg 0 type: both hooks must stay inactive, the other two arm. */
#define RDNAFIX_BTF_PTE_FLAGS_ARG 2
#define RDNAFIX_BTF_PTE_NARGS 3
#define RDNAFIX_BTF_PTE_TEXT "btf: gmc_v10_0_get_vm_pte(adev, mapping, flags), flags is argument 3"
#define RDNAFIX_BTF_PROTO_PCI_PROBE 1
#define RDNAFIX_BTF_PROTO_NORETRY_SET 0
#define RDNAFIX_BTF_PROTO_VM_ADJUST_SIZE 1
#define RDNAFIX_BTF_PROTO_GET_VM_PTE 0
#define RDNAFIX_BTF_PROTO_TEXT "matrix: amdgpu_gmc_noretry_set(struct amdgpu_gmc *gmc) and gmc_v10_0_get_vm_pte(struct amdgpu_vm *vm, ...): arg 0 is no amdgpu_device"
#define RDNAFIX_AMDGPU_ORIGIN "in-tree"
#define RDNAFIX_AMDGPU_PATH "/lib/modules/6.12.117+deb12-amd64/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.xz"
#define RDNAFIX_AUDIT_PTE -1
#define RDNAFIX_AUDIT_PTE_TEXT "matrix: audit not run"
