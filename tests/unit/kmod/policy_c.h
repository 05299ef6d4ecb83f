/* C entry points of policy_c.c: the policy header compiled as C. */
#ifndef RDNAFIX_TEST_POLICY_C_H
#define RDNAFIX_TEST_POLICY_C_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int c_parse_noretry(const char *s, int *out);
int c_parse_fragment(const char *s, int *out);
int c_parse_mtype(const char *s, int *out);
int c_parse_bool01(const char *s, int *out);
int c_parse_sel_list(const char *s, int allow_empty, unsigned int *count, unsigned int *bad);
int c_pte_apply(uint64_t pte, int sys, int vram, int override, int dry_run, uint64_t *out);
/* targeted (1/0) for a device under targets/exclude, or -1 on a parse error */
int c_targeted(const char *targets, const char *exclude, uint16_t vendor, uint16_t device,
	       const char *bdf);
unsigned int c_table_size(void);
/* rdnafix_sysfs_dev_files() compiled as C: the count, and name @i (NULL past the end) */
unsigned int c_sysfs_dev_file_count(void);
const char *c_sysfs_dev_file(unsigned int i);

#ifdef __cplusplus
}
#endif

#endif
