/* The policy header compiled as C (as in the kernel), for the tests. */
#include "rdnafix_policy.h"
#include "policy_c.h"

int c_parse_noretry(const char *s, int *out)
{
	return rdnafix_parse_noretry(s, out);
}

int c_parse_fragment(const char *s, int *out)
{
	return rdnafix_parse_fragment(s, out);
}

int c_parse_mtype(const char *s, int *out)
{
	return rdnafix_parse_mtype(s, out);
}

int c_parse_bool01(const char *s, int *out)
{
	bool b = false;
	int ret = rdnafix_parse_bool01(s, &b);

	*out = b ? 1 : 0;
	return ret;
}

int c_parse_sel_list(const char *s, int allow_empty, unsigned int *count, unsigned int *bad)
{
	struct rdnafix_sel_list l = { 0 };
	int ret = rdnafix_parse_sel_list(s, allow_empty != 0, &l, bad);

	*count = l.count;
	return ret;
}

int c_pte_apply(uint64_t pte, int sys, int vram, int override, int dry_run, uint64_t *out)
{
	u64 o = 0;
	int ret = rdnafix_pte_apply(pte, sys, vram, override, dry_run != 0, &o);

	*out = o;
	return ret;
}

int c_targeted(const char *targets, const char *exclude, uint16_t vendor, uint16_t device,
	       const char *bdf)
{
	struct rdnafix_sel_list t, x;
	struct rdnafix_dev d;
	struct rdnafix_decision dec;
	unsigned int i = 0;

	while (bdf[i])
		i++;
	if (rdnafix_parse_sel_list(targets, false, &t, 0) ||
	    rdnafix_parse_sel_list(exclude, true, &x, 0) || rdnafix_parse_bdf(bdf, i, &d.bdf))
		return -1;
	d.vendor = vendor;
	d.device = device;
	dec = rdnafix_decide(&t, &x, &d);
	return dec.verdict == RDNAFIX_TARGETED ? 1 : 0;
}

unsigned int c_table_size(void)
{
	unsigned int n;

	rdnafix_gpu_table(&n);
	return n;
}

unsigned int c_sysfs_dev_file_count(void)
{
	unsigned int n;

	rdnafix_sysfs_dev_files(&n);
	return n;
}

const char *c_sysfs_dev_file(unsigned int i)
{
	unsigned int n;
	const char *const *names = rdnafix_sysfs_dev_files(&n);

	return i < n ? names[i] : 0;
}
