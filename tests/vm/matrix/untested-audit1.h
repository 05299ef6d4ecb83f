/* Crafted rdnafix_conftest.h (tests/vm/matrix, made by hand, not by pte-conftest.py): an untested series whose amdgpu has the 3-argument get_vm_pte and a proven audit: the PTE hook may arm (the matrix's positive control; with a mock without gmc_v10_0_map_mtype it must refuse). */
/*
 * An untested series: rdnafix_proto.c decides "tested" from the release of
 * the running kernel (init_utsname()->release), which is 6.12 in the VM.
 * This header is included after <linux/utsname.h>, so these macros make
 * every later use in that file read 6.99.0-matrix instead.
 */
#include <linux/utsname.h>
static struct new_utsname rf_matrix_uts __maybe_unused = { .release = "6.99.0-matrix" };
#define init_utsname() (&rf_matrix_uts)
#define utsname() (&rf_matrix_uts)

#define RDNAFIX_BTF_PTE_FLAGS_ARG 2
#define RDNAFIX_BTF_PTE_NARGS 3
#define RDNAFIX_BTF_PTE_TEXT "btf: gmc_v10_0_get_vm_pte(adev, mapping, flags), flags is argument 3"
#define RDNAFIX_BTF_PROTO_PCI_PROBE 1
#define RDNAFIX_BTF_PROTO_NORETRY_SET 1
#define RDNAFIX_BTF_PROTO_VM_ADJUST_SIZE 1
#define RDNAFIX_BTF_PROTO_GET_VM_PTE 1
#define RDNAFIX_BTF_PROTO_TEXT "matrix: amdgpu_pci_probe(pdev), amdgpu_gmc_noretry_set(adev), amdgpu_vm_adjust_size(adev), gmc_v10_0_get_vm_pte(adev)"
#define RDNAFIX_AMDGPU_ORIGIN "in-tree"
#define RDNAFIX_AMDGPU_PATH "/lib/modules/6.99.0-matrix/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.xz"
#define RDNAFIX_AUDIT_PTE 1
#define RDNAFIX_AUDIT_PTE_TEXT "matrix: 3 call sites, flags in %rdx = stack slot"
