/* SPDX-License-Identifier: GPL-2.0 */
/* TEST-ONLY: what mock_amdgpu.c and mock_lifecycle.c share. */
#ifndef MOCK_LIFECYCLE_H
#define MOCK_LIFECYCLE_H

/* amdgpu's global noretry (module parameter "noretry"), mock_amdgpu.c */
extern int amdgpu_noretry;
/* amdgpu_gmc_noretry_set sleeps here for noretry_hold_ms, mock_lifecycle.c */
void mock_noretry_hold(void);

#endif /* MOCK_LIFECYCLE_H */
