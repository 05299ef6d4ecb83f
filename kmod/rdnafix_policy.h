/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdnafix policy: everything that decides, nothing that does I/O.
 *
 * This header has no kernel dependencies beyond basic types.  It is
 * compiled into the rdnafix kernel module (C, kernel build) and into the
 * userspace unit tests (C++20) and tools, so that parameter validation,
 * selector matching, the GFX10 PCI-id table and the PTE MTYPE rewrite have
 * exactly one implementation.
 *
 * Facts used here (verified in the upstream amdgpu sources, see
 * docs/kernel-module.md for the citations):
 *   - amdgpu_vm.h: AMDGPU_PTE_SYSTEM is bit 1, AMDGPU_PTE_PRT is bit 51,
 *     AMDGPU_PTE_MTYPE_NV10(a) is (a) << 48 with a 3-bit mask, so the GFX10
 *     MTYPE field is PTE bits 50:48.
 *   - navi10_enum.h: MTYPE_NC = 0, MTYPE_WC = 1, MTYPE_CC = 2 (TCC_MTYPE)
 *     and MTYPE_UC = 3 (MTYPE).
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
/* PTE layout (GFX10 / GMC v10)                                        */
/* ------------------------------------------------------------------ */
#define RDNAFIX_PTE_SYSTEM		BIT_ULL(1)
#define RDNAFIX_PTE_PRT			BIT_ULL(51)
#define RDNAFIX_PTE_MTYPE_SHIFT		48
#define RDNAFIX_PTE_MTYPE_MASK		(7ULL << RDNAFIX_PTE_MTYPE_SHIFT)

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
#define RDNAFIX_SEL_TEXT_MAX		12	/* "0000:03:00.0" */
#define RDNAFIX_SEL_LIST_MAX		255	/* characters per list */
#define RDNAFIX_REASON_MAX		96

#define RDNAFIX_VALID_NORETRY	"-1 (keep amdgpu's choice), 0 or 1"
#define RDNAFIX_VALID_FRAGMENT	"-1 (keep amdgpu's choice) or 4..9"
#define RDNAFIX_VALID_MTYPE	"keep, nc, wc, cc or uc"
#define RDNAFIX_VALID_BOOL	"0 or 1"
#define RDNAFIX_VALID_TARGETS \
	"comma list (max 16, no spaces) of rdna1, rdna2, gfxNNNN, dgpu, apu, DDDD:BB:DD.F"
#define RDNAFIX_VALID_EXCLUDE \
	"empty, or a comma list (max 16, no spaces) of rdna1, rdna2, gfxNNNN, dgpu, apu, DDDD:BB:DD.F"

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

/* dry_run, strict: exactly "0" or "1" */
static inline int rdnafix_parse_bool01(const char *s, bool *out)
{
	unsigned int len = rdnafix_param_len(s);

	if (len != 1 || (s[0] != '0' && s[0] != '1'))
		return -EINVAL;
	*out = s[0] == '1';
	return 0;
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
	const char *codename;
};

/*
 * Every PCI device id that binds to a GMC v10 (GC 10.1.x / 10.3.x) part:
 * the explicit pciidlist entries of Debian 6.1/6.12/7.2 amdgpu_drv.c plus
 * the IP-discovery parts (163F/1435 Van Gogh, 164E/13C0 Raphael/Granite
 * Ridge, 1506 Mendocino); source: docs/kernel-module.md, "PCI ids".
 * Mendocino (GC 10.3.7) is reported by KFD as gfx1036, so it is here too.
 */
static inline const struct rdnafix_gpu_id *rdnafix_gpu_table(unsigned int *count)
{
	static const struct rdnafix_gpu_id table[] = {
		/* RDNA1, GC 10.1.10 Navi10 */
		{ 0x7310, RDNAFIX_GEN_RDNA1, 0, "gfx1010", "navi10" },
		{ 0x7312, RDNAFIX_GEN_RDNA1, 0, "gfx1010", "navi10" },
		{ 0x7318, RDNAFIX_GEN_RDNA1, 0, "gfx1010", "navi10" },
		{ 0x7319, RDNAFIX_GEN_RDNA1, 0, "gfx1010", "navi10" },
		{ 0x731a, RDNAFIX_GEN_RDNA1, 0, "gfx1010", "navi10" },
		{ 0x731b, RDNAFIX_GEN_RDNA1, 0, "gfx1010", "navi10" },
		{ 0x731e, RDNAFIX_GEN_RDNA1, 0, "gfx1010", "navi10" },
		{ 0x731f, RDNAFIX_GEN_RDNA1, 0, "gfx1010", "navi10" },
		/* RDNA1, GC 10.1.2 Navi12 */
		{ 0x7360, RDNAFIX_GEN_RDNA1, 0, "gfx1011", "navi12" },
		{ 0x7362, RDNAFIX_GEN_RDNA1, 0, "gfx1011", "navi12" },
		/* RDNA1, GC 10.1.1 Navi14 */
		{ 0x7340, RDNAFIX_GEN_RDNA1, 0, "gfx1012", "navi14" },
		{ 0x7341, RDNAFIX_GEN_RDNA1, 0, "gfx1012", "navi14" },
		{ 0x7347, RDNAFIX_GEN_RDNA1, 0, "gfx1012", "navi14" },
		{ 0x734f, RDNAFIX_GEN_RDNA1, 0, "gfx1012", "navi14" },
		/* RDNA1, GC 10.1.3/10.1.4 Cyan Skillfish (APU) */
		{ 0x13db, RDNAFIX_GEN_RDNA1, 1, "gfx1013", "cyan_skillfish" },
		{ 0x13f9, RDNAFIX_GEN_RDNA1, 1, "gfx1013", "cyan_skillfish" },
		{ 0x13fa, RDNAFIX_GEN_RDNA1, 1, "gfx1013", "cyan_skillfish" },
		{ 0x13fb, RDNAFIX_GEN_RDNA1, 1, "gfx1013", "cyan_skillfish" },
		{ 0x13fc, RDNAFIX_GEN_RDNA1, 1, "gfx1013", "cyan_skillfish" },
		{ 0x13fe, RDNAFIX_GEN_RDNA1, 1, "gfx1013", "cyan_skillfish" },
		{ 0x143f, RDNAFIX_GEN_RDNA1, 1, "gfx1013", "cyan_skillfish" },
		/* RDNA2, GC 10.3.0 Navi21 */
		{ 0x73a0, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		{ 0x73a1, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		{ 0x73a2, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		{ 0x73a3, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		{ 0x73a5, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		{ 0x73a8, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		{ 0x73a9, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		{ 0x73ab, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		{ 0x73ac, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		{ 0x73ad, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		{ 0x73ae, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		{ 0x73af, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		{ 0x73bf, RDNAFIX_GEN_RDNA2, 0, "gfx1030", "navi21" },
		/* RDNA2, GC 10.3.2 Navi22 */
		{ 0x73c0, RDNAFIX_GEN_RDNA2, 0, "gfx1031", "navi22" },
		{ 0x73c1, RDNAFIX_GEN_RDNA2, 0, "gfx1031", "navi22" },
		{ 0x73c3, RDNAFIX_GEN_RDNA2, 0, "gfx1031", "navi22" },
		{ 0x73da, RDNAFIX_GEN_RDNA2, 0, "gfx1031", "navi22" },
		{ 0x73db, RDNAFIX_GEN_RDNA2, 0, "gfx1031", "navi22" },
		{ 0x73dc, RDNAFIX_GEN_RDNA2, 0, "gfx1031", "navi22" },
		{ 0x73dd, RDNAFIX_GEN_RDNA2, 0, "gfx1031", "navi22" },
		{ 0x73de, RDNAFIX_GEN_RDNA2, 0, "gfx1031", "navi22" },
		{ 0x73df, RDNAFIX_GEN_RDNA2, 0, "gfx1031", "navi22" },
		/* RDNA2, GC 10.3.4 Navi23 */
		{ 0x73e0, RDNAFIX_GEN_RDNA2, 0, "gfx1032", "navi23" },
		{ 0x73e1, RDNAFIX_GEN_RDNA2, 0, "gfx1032", "navi23" },
		{ 0x73e2, RDNAFIX_GEN_RDNA2, 0, "gfx1032", "navi23" },
		{ 0x73e3, RDNAFIX_GEN_RDNA2, 0, "gfx1032", "navi23" },
		{ 0x73e8, RDNAFIX_GEN_RDNA2, 0, "gfx1032", "navi23" },
		{ 0x73e9, RDNAFIX_GEN_RDNA2, 0, "gfx1032", "navi23" },
		{ 0x73ea, RDNAFIX_GEN_RDNA2, 0, "gfx1032", "navi23" },
		{ 0x73eb, RDNAFIX_GEN_RDNA2, 0, "gfx1032", "navi23" },
		{ 0x73ec, RDNAFIX_GEN_RDNA2, 0, "gfx1032", "navi23" },
		{ 0x73ed, RDNAFIX_GEN_RDNA2, 0, "gfx1032", "navi23" },
		{ 0x73ef, RDNAFIX_GEN_RDNA2, 0, "gfx1032", "navi23" },
		{ 0x73ff, RDNAFIX_GEN_RDNA2, 0, "gfx1032", "navi23" },
		/* RDNA2, GC 10.3.1 Van Gogh (APU) */
		{ 0x163f, RDNAFIX_GEN_RDNA2, 1, "gfx1033", "vangogh" },
		{ 0x1435, RDNAFIX_GEN_RDNA2, 1, "gfx1033", "vangogh" },
		/* RDNA2, GC 10.3.5 Navi24 */
		{ 0x7420, RDNAFIX_GEN_RDNA2, 0, "gfx1034", "navi24" },
		{ 0x7421, RDNAFIX_GEN_RDNA2, 0, "gfx1034", "navi24" },
		{ 0x7422, RDNAFIX_GEN_RDNA2, 0, "gfx1034", "navi24" },
		{ 0x7423, RDNAFIX_GEN_RDNA2, 0, "gfx1034", "navi24" },
		{ 0x7424, RDNAFIX_GEN_RDNA2, 0, "gfx1034", "navi24" },
		{ 0x743f, RDNAFIX_GEN_RDNA2, 0, "gfx1034", "navi24" },
		/* RDNA2, GC 10.3.3 Rembrandt / Yellow Carp (APU) */
		{ 0x164d, RDNAFIX_GEN_RDNA2, 1, "gfx1035", "rembrandt" },
		{ 0x1681, RDNAFIX_GEN_RDNA2, 1, "gfx1035", "rembrandt" },
		/* RDNA2, GC 10.3.6 Raphael / Granite Ridge (APU) */
		{ 0x164e, RDNAFIX_GEN_RDNA2, 1, "gfx1036", "raphael" },
		{ 0x13c0, RDNAFIX_GEN_RDNA2, 1, "gfx1036", "granite_ridge" },
		/* RDNA2, GC 10.3.7 Mendocino (APU), KFD target gfx1036 */
		{ 0x1506, RDNAFIX_GEN_RDNA2, 1, "gfx1036", "mendocino" },
	};

	*count = ARRAY_SIZE(table);
	return table;
}

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

/* ------------------------------------------------------------------ */
/* Device description and selectors                                    */
/* ------------------------------------------------------------------ */
struct rdnafix_bdf {
	u16 domain;
	u8 bus;
	u8 devfn;		/* device << 3 | function, as in the kernel */
};

struct rdnafix_dev {
	u16 vendor;
	u16 device;
	struct rdnafix_bdf bdf;
};

enum rdnafix_sel_kind {
	RDNAFIX_SEL_RDNA1 = 1,
	RDNAFIX_SEL_RDNA2,
	RDNAFIX_SEL_GFX,
	RDNAFIX_SEL_DGPU,
	RDNAFIX_SEL_APU,
	RDNAFIX_SEL_BDF,
};

struct rdnafix_sel {
	u8 kind;		/* enum rdnafix_sel_kind */
	struct rdnafix_bdf bdf;	/* RDNAFIX_SEL_BDF */
	char text[RDNAFIX_SEL_TEXT_MAX + 1];	/* the token as written */
};

struct rdnafix_sel_list {
	unsigned int count;
	struct rdnafix_sel sel[RDNAFIX_SEL_MAX];
};

/* "DDDD:BB:DD.F", hex digits of either case, device <= 0x1f, function <= 7 */
static inline int rdnafix_parse_bdf(const char *s, unsigned int len, struct rdnafix_bdf *out)
{
	static const char shape[] = "hhhh:hh:hh.h";
	unsigned int v[4] = { 0, 0, 0, 0 };
	unsigned int i, field = 0;
	int d;

	if (len != sizeof(shape) - 1)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (shape[i] != 'h') {
			if (s[i] != shape[i])
				return -EINVAL;
			field++;
			continue;
		}
		d = rdnafix_hex_digit(s[i]);
		if (d < 0)
			return -EINVAL;
		v[field] = v[field] * 16 + (unsigned int)d;
	}
	if (v[2] > 0x1f || v[3] > 7)
		return -EINVAL;
	out->domain = (u16)v[0];
	out->bus = (u8)v[1];
	out->devfn = (u8)(v[2] << 3 | v[3]);
	return 0;
}

/* "gfx" followed by 3 or 4 lowercase hex digits (gfx90a, gfx1031, gfx1151) */
static inline bool rdnafix_is_gfx_token(const char *s, unsigned int len)
{
	unsigned int i;

	if (len < 6 || len > 7 || s[0] != 'g' || s[1] != 'f' || s[2] != 'x')
		return false;
	for (i = 3; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static inline int rdnafix_parse_sel(const char *s, unsigned int len, struct rdnafix_sel *out)
{
	unsigned int i;

	if (len == 0 || len > RDNAFIX_SEL_TEXT_MAX)
		return -EINVAL;
	out->bdf.domain = 0;
	out->bdf.bus = 0;
	out->bdf.devfn = 0;
	if (rdnafix_tok_eq(s, len, "rdna1"))
		out->kind = RDNAFIX_SEL_RDNA1;
	else if (rdnafix_tok_eq(s, len, "rdna2"))
		out->kind = RDNAFIX_SEL_RDNA2;
	else if (rdnafix_tok_eq(s, len, "dgpu"))
		out->kind = RDNAFIX_SEL_DGPU;
	else if (rdnafix_tok_eq(s, len, "apu"))
		out->kind = RDNAFIX_SEL_APU;
	else if (rdnafix_is_gfx_token(s, len))
		out->kind = RDNAFIX_SEL_GFX;
	else if (!rdnafix_parse_bdf(s, len, &out->bdf))
		out->kind = RDNAFIX_SEL_BDF;
	else
		return -EINVAL;
	for (i = 0; i < len; i++)
		out->text[i] = s[i];
	out->text[len] = '\0';
	return 0;
}

/*
 * Parse a comma-separated selector list.  @allow_empty: "" is the empty
 * list (exclude) or an error (targets).  Empty elements, spaces, unknown
 * tokens, more than RDNAFIX_SEL_MAX entries or more than
 * RDNAFIX_SEL_LIST_MAX characters are errors.  On error *bad_off (if not
 * NULL) is the offset of the offending element and *out is untouched.
 */
static inline int rdnafix_parse_sel_list(const char *s, bool allow_empty,
					 struct rdnafix_sel_list *out,
					 unsigned int *bad_off)
{
	struct rdnafix_sel tmp[RDNAFIX_SEL_MAX];
	unsigned int len = rdnafix_param_len(s);
	unsigned int start = 0, i, n = 0;

	if (bad_off)
		*bad_off = 0;
	if (!s || len > RDNAFIX_SEL_LIST_MAX)
		return -EINVAL;
	if (len == 0) {
		if (!allow_empty)
			return -EINVAL;
		out->count = 0;
		return 0;
	}
	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != ',')
			continue;
		if (n == RDNAFIX_SEL_MAX ||
		    rdnafix_parse_sel(s + start, i - start, &tmp[n])) {
			if (bad_off)
				*bad_off = start;
			return -EINVAL;
		}
		n++;
		start = i + 1;
	}
	for (i = 0; i < n; i++)
		out->sel[i] = tmp[i];
	out->count = n;
	return 0;
}

static inline bool rdnafix_gfx_eq(const char *a, const char *b)
{
	unsigned int i;

	for (i = 0; a[i] || b[i]; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* @id is rdnafix_gpu_lookup() of the device (NULL if unknown). */
static inline bool rdnafix_sel_match(const struct rdnafix_sel *sel,
				     const struct rdnafix_dev *dev,
				     const struct rdnafix_gpu_id *id)
{
	switch (sel->kind) {
	case RDNAFIX_SEL_RDNA1:
		return id && id->gen == RDNAFIX_GEN_RDNA1;
	case RDNAFIX_SEL_RDNA2:
		return id && id->gen == RDNAFIX_GEN_RDNA2;
	case RDNAFIX_SEL_GFX:
		return id && rdnafix_gfx_eq(sel->text, id->target);
	case RDNAFIX_SEL_DGPU:
		return id && !id->apu;
	case RDNAFIX_SEL_APU:
		return id && id->apu;
	case RDNAFIX_SEL_BDF:
		return sel->bdf.domain == dev->bdf.domain &&
		       sel->bdf.bus == dev->bdf.bus &&
		       sel->bdf.devfn == dev->bdf.devfn;
	default:
		return false;
	}
}

/* Index of the first matching selector, or -1. */
static inline int rdnafix_sel_list_match(const struct rdnafix_sel_list *list,
					 const struct rdnafix_dev *dev,
					 const struct rdnafix_gpu_id *id)
{
	unsigned int i;

	for (i = 0; i < list->count && i < RDNAFIX_SEL_MAX; i++)
		if (rdnafix_sel_match(&list->sel[i], dev, id))
			return (int)i;
	return -1;
}

enum rdnafix_verdict {
	RDNAFIX_TARGETED = 0,		/* selected by targets[sel] */
	RDNAFIX_NOT_GFX10,		/* not a GMC v10 part: never touched */
	RDNAFIX_NOT_SELECTED,		/* no targets entry matches */
	RDNAFIX_EXCLUDED,		/* exclude[sel] matches */
};

struct rdnafix_decision {
	int verdict;			/* enum rdnafix_verdict */
	int sel;			/* index into targets/exclude, or -1 */
};

/*
 * Is @dev targeted?  Only known GMC v10 parts can be; exclude wins over
 * targets.
 */
static inline struct rdnafix_decision
rdnafix_decide(const struct rdnafix_sel_list *targets,
	       const struct rdnafix_sel_list *exclude,
	       const struct rdnafix_dev *dev)
{
	const struct rdnafix_gpu_id *id = rdnafix_gpu_lookup(dev->vendor, dev->device);
	struct rdnafix_decision d = { RDNAFIX_NOT_GFX10, -1 };
	int t, x;

	if (!id)
		return d;
	t = rdnafix_sel_list_match(targets, dev, id);
	if (t < 0) {
		d.verdict = RDNAFIX_NOT_SELECTED;
		return d;
	}
	x = rdnafix_sel_list_match(exclude, dev, id);
	if (x >= 0) {
		d.verdict = RDNAFIX_EXCLUDED;
		d.sel = x;
		return d;
	}
	d.verdict = RDNAFIX_TARGETED;
	d.sel = t;
	return d;
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
 * Apply the MTYPE policy to one PTE flags value.  System memory (the
 * SYSTEM bit set: GTT, userptr, imported system pages) takes
 * @mtype_sysmem, everything else (VRAM, including an APU's carve-out)
 * takes @mtype_vram.  PRT (partially resident, unbacked) entries are left
 * alone.  *out is the value to store.
 *
 * Counting (sysfs ABI v1): every REWRITE and every WOULD_REWRITE counts in
 * pte_would_rewrite; only REWRITE counts in pte_rewrites.
 */
static inline int rdnafix_pte_apply(u64 pte, int mtype_sysmem, int mtype_vram,
				    bool dry_run, u64 *out)
{
	int want = (pte & RDNAFIX_PTE_SYSTEM) ? mtype_sysmem : mtype_vram;
	u64 next;

	*out = pte;
	if (want < RDNAFIX_MTYPE_NC || want > RDNAFIX_MTYPE_UC)
		return RDNAFIX_PTE_UNCHANGED;
	if (pte & RDNAFIX_PTE_PRT)
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

#endif /* RDNAFIX_POLICY_H */
