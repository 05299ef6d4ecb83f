// SPDX-License-Identifier: GPL-2.0
/*
 * TEST-ONLY part of the mock amdgpu (mock_amdgpu.c) for the lifecycle
 * suite (tests/vm/guest/lifecycle.sh).  Two module parameters, no debugfs:
 *
 *   /sys/module/amdgpu/parameters/noretry_hold_ms (0644)
 *       amdgpu_gmc_noretry_set() sleeps this many ms inside, before it
 *       reads noretry: a hooked call held open (rdnafix's swap is in place
 *       the whole time)
 *   /sys/module/amdgpu/parameters/hub_read (0644)
 *       write the name of a hub function below: the mock calls it on a
 *       GFX11/GFX12 device; read "<function> read noretry=<n>", what it read
 *
 * The hub functions carry the names of amdgpu's GFX11/GFX12 gart_enable
 * functions.  On 6.1/6.12 the real ones read the amdgpu_noretry global
 * directly (their inlined setup_vmid_config); two of the mock's do the
 * same, gfxhub_v12_0_gart_enable reads a device field instead, as every
 * hub does on 7.2, and the rest are absent: rdnafix must probe the first
 * two, report "no direct read" for the third and "absent" for the others.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "mock_lifecycle.h"

struct amdgpu_device;

#define MOCK_HUB __attribute__((__noipa__)) __used

static int mock_noretry_hold_ms;
module_param_named(noretry_hold_ms, mock_noretry_hold_ms, int, 0644);
MODULE_PARM_DESC(noretry_hold_ms, "TEST: amdgpu_gmc_noretry_set sleeps this long inside");

/* a device's own gmc.noretry, as the 7.2 hubs read it */
static int mock_gmc_noretry = -7;
static char mock_hub_answer[96];

void mock_noretry_hold(void)
{
	int ms = READ_ONCE(mock_noretry_hold_ms);

	if (ms > 0 && ms <= 30000)
		msleep(ms);
}

static MOCK_HUB int gfxhub_v3_0_gart_enable(struct amdgpu_device *adev)
{
	(void)adev;
	return READ_ONCE(amdgpu_noretry);
}

static MOCK_HUB int mmhub_v3_0_gart_enable(struct amdgpu_device *adev)
{
	(void)adev;
	return READ_ONCE(amdgpu_noretry);
}

static MOCK_HUB int gfxhub_v12_0_gart_enable(struct amdgpu_device *adev)
{
	(void)adev;
	return READ_ONCE(mock_gmc_noretry);
}

static const struct {
	const char *name;
	int (*fn)(struct amdgpu_device *adev);
} mock_hubs[] = {
	{ "gfxhub_v3_0_gart_enable", gfxhub_v3_0_gart_enable },
	{ "mmhub_v3_0_gart_enable", mmhub_v3_0_gart_enable },
	{ "gfxhub_v12_0_gart_enable", gfxhub_v12_0_gart_enable },
};

static int mock_hub_set(const char *val, const struct kernel_param *kp)
{
	char name[48];
	unsigned int i;

	strscpy(name, val, sizeof(name));
	strim(name);
	for (i = 0; i < ARRAY_SIZE(mock_hubs); i++) {
		if (!strcmp(name, mock_hubs[i].name)) {
			scnprintf(mock_hub_answer, sizeof(mock_hub_answer), "%s read noretry=%d",
				  name, mock_hubs[i].fn(NULL));
			return 0;
		}
	}
	return -EINVAL;
}

static int mock_hub_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", mock_hub_answer);
}

static const struct kernel_param_ops mock_hub_ops = {
	.set = mock_hub_set,
	.get = mock_hub_get,
};

module_param_cb(hub_read, &mock_hub_ops, NULL, 0644);
MODULE_PARM_DESC(hub_read, "TEST: write a GFX11/GFX12 hub function name to call it");
