/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one list of the files under /sys/kernel/rdnafix (sysfs ABI v1,
 * docs/sysfs-abi.md), in the order the module creates them.
 *
 * An X-macro list, read once per use and never on its own: define the
 * macros you need, then include this file; each macro left undefined
 * expands to nothing, and all three are undefined again at the end.
 *   RDNAFIX_ROOT_FILE(name)       /sys/kernel/rdnafix/<name>
 *   RDNAFIX_HOOK_FILE(name, id)   hooks/<name>, the hook RF_HOOK_<id>
 *   RDNAFIX_DEV_FILE(name, kind)  devices/<BDF>/<name>; kind is how the
 *                                 value is printed: str (text), int
 *                                 (decimal), mtype (keep, nc, wc, cc or
 *                                 uc) or u64 (a decimal counter)
 * The name is a bare word (#name is the string).  rdnafix_sysfs.c builds
 * the attributes from it; rdnafix_policy.h turns it into string arrays
 * for userspace (rdnafix_sysfs_dev_files() and friends).
 */
#ifndef RDNAFIX_ROOT_FILE
#define RDNAFIX_ROOT_FILE(name)
#endif
#ifndef RDNAFIX_HOOK_FILE
#define RDNAFIX_HOOK_FILE(name, id)
#endif
#ifndef RDNAFIX_DEV_FILE
#define RDNAFIX_DEV_FILE(name, kind)
#endif

RDNAFIX_ROOT_FILE(version)
RDNAFIX_ROOT_FILE(abi_version)
RDNAFIX_ROOT_FILE(amdgpu)
RDNAFIX_ROOT_FILE(dry_run)
RDNAFIX_ROOT_FILE(pte_prototype)
RDNAFIX_ROOT_FILE(pte_refused_pointer)
RDNAFIX_ROOT_FILE(pte_refused_entry_value)
RDNAFIX_ROOT_FILE(pte_refused_return_value)
RDNAFIX_ROOT_FILE(not_covered)
RDNAFIX_ROOT_FILE(nmissed)
RDNAFIX_ROOT_FILE(missing)
RDNAFIX_ROOT_FILE(calls)
RDNAFIX_ROOT_FILE(evidence)
RDNAFIX_ROOT_FILE(leaks)
RDNAFIX_ROOT_FILE(leak_readers)

RDNAFIX_HOOK_FILE(pci_probe, PCI_PROBE)
RDNAFIX_HOOK_FILE(noretry_set, NORETRY_SET)
RDNAFIX_HOOK_FILE(vm_adjust_size, VM_ADJUST_SIZE)
RDNAFIX_HOOK_FILE(get_vm_pte, GET_VM_PTE)
RDNAFIX_HOOK_FILE(pci_remove, PCI_REMOVE)

RDNAFIX_DEV_FILE(pci_id, str)
RDNAFIX_DEV_FILE(gfx_target, str)
RDNAFIX_DEV_FILE(generation, str)
RDNAFIX_DEV_FILE(targeted, int)
RDNAFIX_DEV_FILE(reason, str)
RDNAFIX_DEV_FILE(noretry_requested, int)
RDNAFIX_DEV_FILE(noretry_applied, int)
RDNAFIX_DEV_FILE(fragment_size_requested, int)
RDNAFIX_DEV_FILE(fragment_size_applied, int)
RDNAFIX_DEV_FILE(mtype_sysmem, mtype)
RDNAFIX_DEV_FILE(mtype_vram, mtype)
RDNAFIX_DEV_FILE(pte_calls, u64)
RDNAFIX_DEV_FILE(pte_rewrites, u64)
RDNAFIX_DEV_FILE(pte_would_rewrite, u64)

#undef RDNAFIX_ROOT_FILE
#undef RDNAFIX_HOOK_FILE
#undef RDNAFIX_DEV_FILE
