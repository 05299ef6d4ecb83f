/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdnafix policy: everything that decides, nothing that does I/O.
 *
 * This header has no kernel dependencies beyond basic types.  It is
 * compiled into the rdnafix kernel module (C, kernel build) and into the
 * userspace unit tests (C++20) and tools, so that parameter validation,
 * selector matching, the GFX10 PCI-id table and the PTE MTYPE rewrite have
 * exactly one implementation.  It is the one header to include; it pulls
 * in its parts, each with one job:
 *   rdnafix_sysfs_files.h  the sysfs file names (an X-macro list)
 *   rdnafix_gpu_ids.h      the GFX10 PCI-id table (generated, do not edit)
 *   rdnafix_select.h       targets/exclude selectors and the targeted decision
 *   rdnafix_pte.h          the GFX10 PTE layout and the MTYPE rewrite
 */
#ifndef RDNAFIX_POLICY_H
#define RDNAFIX_POLICY_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <stddef.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
#ifndef BIT_ULL
#define BIT_ULL(n)		(1ULL << (n))
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#endif

#define RDNAFIX_ABI_VERSION		1

/* ------------------------------------------------------------------ */
/* sysfs ABI v1 file names (docs/sysfs-abi.md)                         */
/* ------------------------------------------------------------------ */
/*
 * The names of rdnafix_sysfs_files.h, the one list of the files under
 * /sys/kernel/rdnafix, as strings in creation order: the top level,
 * hooks/ and devices/<BDF>/.
 */
static inline const char *const *rdnafix_sysfs_root_files(unsigned int *count)
{
	static const char *const names[] = {
#define RDNAFIX_ROOT_FILE(name) (#name),
#include "rdnafix_sysfs_files.h"
	};

	*count = ARRAY_SIZE(names);
	return names;
}

static inline const char *const *rdnafix_sysfs_hook_files(unsigned int *count)
{
	static const char *const names[] = {
#define RDNAFIX_HOOK_FILE(name, id) (#name),
#include "rdnafix_sysfs_files.h"
	};

	*count = ARRAY_SIZE(names);
	return names;
}

static inline const char *const *rdnafix_sysfs_dev_files(unsigned int *count)
{
	static const char *const names[] = {
#define RDNAFIX_DEV_FILE(name, kind) (#name),
#include "rdnafix_sysfs_files.h"
	};

	*count = ARRAY_SIZE(names);
	return names;
}

/*
 * MTYPE policy values.  NC..UC equal the hardware encoding of the GFX10
 * PTE MTYPE field; KEEP means "leave what amdgpu chose".
 */
enum rdnafix_mtype {
	RDNAFIX_MTYPE_KEEP = -1,
	RDNAFIX_MTYPE_NC = 0,
	RDNAFIX_MTYPE_WC = 1,
	RDNAFIX_MTYPE_CC = 2,
	RDNAFIX_MTYPE_UC = 3,
};

enum rdnafix_gen {
	RDNAFIX_GEN_OTHER = 0,
	RDNAFIX_GEN_RDNA1 = 1,
	RDNAFIX_GEN_RDNA2 = 2,
};

/* ------------------------------------------------------------------ */
/* Limits and texts shared by the module and its tests                */
/* ------------------------------------------------------------------ */
#define RDNAFIX_SEL_MAX			16	/* selectors per list */
#define RDNAFIX_SEL_TEXT_MAX		16	/* "0000:03:00.0", domain up to 8 digits */
#define RDNAFIX_SEL_LIST_MAX		255	/* characters per list */
#define RDNAFIX_REASON_MAX		96

#define RDNAFIX_VALID_NORETRY	"-1 (keep amdgpu's choice), 0 or 1"
#define RDNAFIX_VALID_FRAGMENT	"-1 (keep amdgpu's choice) or 4..9"
#define RDNAFIX_VALID_MTYPE	"keep, nc, wc, cc or uc"
#define RDNAFIX_VALID_BOOL	"Y, N, y, n, 1 or 0"
#define RDNAFIX_VALID_TARGETS \
	"comma list (max 16, no spaces) of rdna1, rdna2, gfxNNNN (a GMC v10 target, gfx1010..gfx1036), dgpu, apu, DDDD:BB:DD.F"
#define RDNAFIX_VALID_EXCLUDE \
	"empty, or a comma list (max 16, no spaces) of rdna1, rdna2, gfxNNNN (a GMC v10 target, gfx1010..gfx1036), dgpu, apu, DDDD:BB:DD.F"

/* ------------------------------------------------------------------ */
/* Small string helpers (no libc / lib/string.c needed)                */
/* ------------------------------------------------------------------ */

/* Length of a NUL-terminated string (0 for NULL), capped at @max + 1. */
static inline unsigned int rdnafix_strnlen(const char *s, unsigned int max)
{
	unsigned int n = 0;

	if (!s)
		return 0;
	while (n <= max && s[n])
		n++;
	return n;
}

/*
 * Length of @s as a parameter value: a single trailing newline (what
 * "echo value > /sys/module/.../parameters/x" writes) is not part of it.
 * Returns RDNAFIX_SEL_LIST_MAX + 1 or more for overlong input.
 */
static inline unsigned int rdnafix_param_len(const char *s)
{
	unsigned int n = rdnafix_strnlen(s, RDNAFIX_SEL_LIST_MAX + 1);

	if (n > 0 && n <= RDNAFIX_SEL_LIST_MAX + 1 && s[n - 1] == '\n')
		n--;
	return n;
}

static inline bool rdnafix_tok_eq(const char *s, unsigned int len, const char *lit)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (!lit[i] || lit[i] != s[i])
			return false;
	return lit[len] == '\0';
}

static inline int rdnafix_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Strict small integer: optional '-', then "0" or a digit string without a
 * leading zero, at most 3 digits, nothing else.  0 or -EINVAL.
 */
static inline int rdnafix_parse_small_int(const char *s, unsigned int len, int *out)
{
	unsigned int i = 0;
	int v = 0;
	bool neg = false;

	if (len > 0 && s[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i == len || len - i > 3)
		return -EINVAL;
	if (s[i] == '0' && len - i > 1)
		return -EINVAL;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	if (neg && v == 0)
		return -EINVAL;		/* "-0" */
	*out = neg ? -v : v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Parameter validators: 0 and *out set, or -EINVAL and *out untouched */
/* ------------------------------------------------------------------ */

static inline int rdnafix_parse_noretry(const char *s, int *out)
{
	unsigned int len = rdnafix_param_len(s);
	int v;

	if (rdnafix_parse_small_int(s, len, &v) || v < -1 || v > 1)
		return -EINVAL;
	*out = v;
	return 0;
}

static inline int rdnafix_parse_fragment(const char *s, int *out)
{
	unsigned int len = rdnafix_param_len(s);
	int v;

	if (rdnafix_parse_small_int(s, len, &v))
		return -EINVAL;
	if (v != -1 && (v < 4 || v > 9))
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * dry_run, strict: a kernel bool as param_ops_bool prints and takes it
 * (kernel/params.c: param_set_bool through kstrtobool), limited to the
 * unambiguous spellings Y, N, y, n, 1 and 0.
 */
static inline int rdnafix_parse_bool01(const char *s, bool *out)
{
	unsigned int len = rdnafix_param_len(s);

	if (len != 1)
		return -EINVAL;
	switch (s[0]) {
	case 'Y': case 'y': case '1':
		*out = true;
		return 0;
	case 'N': case 'n': case '0':
		*out = false;
		return 0;
	default:
		return -EINVAL;
	}
}

static inline const char *rdnafix_mtype_name(int mtype)
{
	switch (mtype) {
	case RDNAFIX_MTYPE_KEEP:
		return "keep";
	case RDNAFIX_MTYPE_NC:
		return "nc";
	case RDNAFIX_MTYPE_WC:
		return "wc";
	case RDNAFIX_MTYPE_CC:
		return "cc";
	case RDNAFIX_MTYPE_UC:
		return "uc";
	default:
		return "invalid";
	}
}

static inline int rdnafix_parse_mtype(const char *s, int *out)
{
	unsigned int len = rdnafix_param_len(s);
	int m;

	for (m = RDNAFIX_MTYPE_KEEP; m <= RDNAFIX_MTYPE_UC; m++) {
		if (rdnafix_tok_eq(s, len, rdnafix_mtype_name(m))) {
			*out = m;
			return 0;
		}
	}
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* GFX10 PCI-id table (vendor 0x1002)                                  */
/* ------------------------------------------------------------------ */
#define RDNAFIX_PCI_VENDOR_AMD		0x1002

struct rdnafix_gpu_id {
	u16 device;
	u8 gen;			/* enum rdnafix_gen */
	u8 apu;			/* 1 = APU (AMD_IS_APU), 0 = dGPU */
	const char *target;	/* KFD gfx target, e.g. "gfx1031" */
	const char *codename;	/* e.g. "navi22"; not printed */
};

/*
 * rdnafix_gpu_table(): every PCI device id that binds to a GMC v10 (GC
 * 10.1.x / 10.3.x) part, generated from userspace/data/gpu-database.tsv
 * into rdnafix_gpu_ids.h.  The ids are the explicit pciidlist entries of
 * drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c plus the parts that bind through
 * IP discovery (amdgpu_discovery.c: amdgpu_discovery_set_gmc_ip_blocks),
 * Linux 6.1, 6.12 and 7.2; the TSV names each row's source.
 */
#include "rdnafix_gpu_ids.h"

/* NULL for anything that is not a known GMC v10 part. */
static inline const struct rdnafix_gpu_id *rdnafix_gpu_lookup(u16 vendor, u16 device)
{
	const struct rdnafix_gpu_id *t;
	unsigned int i, n;

	if (vendor != RDNAFIX_PCI_VENDOR_AMD)
		return NULL;
	t = rdnafix_gpu_table(&n);
	for (i = 0; i < n; i++)
		if (t[i].device == device)
			return &t[i];
	return NULL;
}

static inline const char *rdnafix_gen_name(int gen)
{
	switch (gen) {
	case RDNAFIX_GEN_RDNA1:
		return "rdna1";
	case RDNAFIX_GEN_RDNA2:
		return "rdna2";
	default:
		return "other";
	}
}

#include "rdnafix_select.h"
#include "rdnafix_pte.h"

#endif /* RDNAFIX_POLICY_H */
