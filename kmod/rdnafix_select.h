/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdnafix policy, part of rdnafix_policy.h (include that): the device
 * description, the targets/exclude selector syntax and the decision
 * whether a device is targeted.
 */
#ifndef RDNAFIX_SELECT_H
#define RDNAFIX_SELECT_H

#ifndef RDNAFIX_POLICY_H
#error "rdnafix_select.h is part of rdnafix_policy.h: include that"
#endif

/* ------------------------------------------------------------------ */
/* Device description and selectors                                    */
/* ------------------------------------------------------------------ */
struct rdnafix_bdf {
	u32 domain;		/* pci_domain_nr(): may exceed 0xffff (VMD, Hyper-V) */
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

/*
 * "DDDD:BB:DD.F": a domain of 4 to 8 hex digits (as the kernel names
 * devices of domains above 0xffff), hex digits of either case, device
 * <= 0x1f, function <= 7.
 */
static inline int rdnafix_parse_bdf(const char *s, unsigned int len, struct rdnafix_bdf *out)
{
	static const char shape[] = "hh:hh.h";
	unsigned int v[4] = { 0, 0, 0, 0 };
	unsigned int i, dlen, field = 1;
	int d;

	if (len < 4 + sizeof(shape) || len > 8 + sizeof(shape))
		return -EINVAL;
	dlen = len - (unsigned int)sizeof(shape);
	for (i = 0; i < dlen; i++) {
		d = rdnafix_hex_digit(s[i]);
		if (d < 0)
			return -EINVAL;
		v[0] = v[0] * 16 + (unsigned int)d;
	}
	if (s[dlen] != ':')
		return -EINVAL;
	for (i = 0; i < sizeof(shape) - 1; i++) {
		char c = s[dlen + 1 + i];

		if (shape[i] != 'h') {
			if (c != shape[i])
				return -EINVAL;
			field++;
			continue;
		}
		d = rdnafix_hex_digit(c);
		if (d < 0)
			return -EINVAL;
		v[field] = v[field] * 16 + (unsigned int)d;
	}
	if (v[2] > 0x1f || v[3] > 7)
		return -EINVAL;
	out->domain = v[0];
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

/* Does "gfxNNNN" (@len characters) name the target of a GMC v10 part? */
static inline bool rdnafix_is_gfx10_target(const char *s, unsigned int len)
{
	const struct rdnafix_gpu_id *t;
	unsigned int i, n;

	t = rdnafix_gpu_table(&n);
	for (i = 0; i < n; i++)
		if (rdnafix_tok_eq(s, len, t[i].target))
			return true;
	return false;
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
	else if (rdnafix_is_gfx_token(s, len) && rdnafix_is_gfx10_target(s, len))
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

#endif /* RDNAFIX_SELECT_H */
