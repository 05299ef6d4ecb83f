// SPDX-License-Identifier: GPL-2.0
/*
 * rdnafix devices: the table of amdgpu PCI devices rdnafix has seen, and
 * the claim, bind, decide and refuse steps the hooks run on it.
 *
 * Called from the kretprobe handlers with preemption disabled: nothing
 * here sleeps.  Struct layout relied on: struct amdgpu_device begins with
 * "struct device *dev; struct pci_dev *pdev;", checked on every device
 * before it is trusted (adev->dev == &adev->pdev->dev).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/pci.h>
#include <linux/string.h>

#include "rdnafix.h"

struct rf_dev rf_devs[RF_MAX_DEVS];

/* amdgpu_pci_probe calls in flight, and the pci_dev if exactly one (rf_lock) */
int rf_probing;
struct pci_dev *rf_probing_pdev;

struct rf_adev_head {
	struct device *dev;
	struct pci_dev *pdev;
};

/* The pci_dev of an amdgpu_device, or NULL if the layout check fails. */
static struct pci_dev *rf_adev_pdev(void *adev)
{
	const struct rf_adev_head *h = adev;
	struct pci_dev *pdev;

	if (!adev)
		return NULL;
	pdev = READ_ONCE(h->pdev);
	if (!pdev || READ_ONCE(h->dev) != &pdev->dev)
		return NULL;
	return pdev;
}

NOKPROBE_SYMBOL(rf_adev_pdev);

/*
 * Lock-free: a slot is a static array element that is never unmapped; a
 * slot being freed (RF_DEV_GONE) has had its adev cleared first.
 */
struct rf_dev *rf_dev_by_adev(void *adev)
{
	unsigned int i;

	for (i = 0; i < RF_MAX_DEVS; i++)
		if (READ_ONCE(rf_devs[i].adev) == adev)
			return &rf_devs[i];
	return NULL;
}

NOKPROBE_SYMBOL(rf_dev_by_adev);

struct rf_dev *rf_dev_by_pdev_locked(struct pci_dev *pdev)
{
	unsigned int i;

	for (i = 0; i < RF_MAX_DEVS; i++)
		if (rf_devs[i].state == RF_DEV_USED && rf_devs[i].pdev == pdev)
			return &rf_devs[i];
	return NULL;
}

NOKPROBE_SYMBOL(rf_dev_by_pdev_locked);

/* Find the slot of @pdev's PCI address, or take a free one; NULL if full. */
struct rf_dev *rf_dev_claim_locked(struct pci_dev *pdev, bool *created)
{
	struct rdnafix_bdf bdf;
	struct rf_dev *d = NULL;
	unsigned int i;

	bdf.domain = (u32)pci_domain_nr(pdev->bus);	/* may exceed 0xffff: never truncated */
	bdf.bus = pdev->bus->number;
	bdf.devfn = (u8)pdev->devfn;
	*created = false;
	for (i = 0; i < RF_MAX_DEVS; i++) {
		struct rf_dev *s = &rf_devs[i];

		if (s->state == RF_DEV_USED && s->bdf.domain == bdf.domain &&
		    s->bdf.bus == bdf.bus && s->bdf.devfn == bdf.devfn) {
			d = s;
			break;
		}
		if (!d && s->state == RF_DEV_FREE)
			d = s;
	}
	if (!d) {
		pr_warn_ratelimited("more than %d amdgpu devices, %s not tracked\n",
				    RF_MAX_DEVS, pci_name(pdev));
		return NULL;
	}
	if (d->state == RF_DEV_FREE) {
		d->state = RF_DEV_USED;
		d->bdf = bdf;
		atomic64_set(&d->pte_calls, 0);
		atomic64_set(&d->pte_rewrites, 0);
		atomic64_set(&d->pte_would, 0);
		scnprintf(d->name, sizeof(d->name), "%04x:%02x:%02x.%x", bdf.domain,
			  bdf.bus, PCI_SLOT(bdf.devfn), PCI_FUNC(bdf.devfn));
		*created = true;
	}
	d->vendor = pdev->vendor;
	d->device = pdev->device;
	/* a pci_dev freed and reallocated at the same address: forget the old one */
	for (i = 0; i < RF_MAX_DEVS; i++) {
		if (&rf_devs[i] != d && rf_devs[i].pdev == pdev) {
			WRITE_ONCE(rf_devs[i].pdev, NULL);
			WRITE_ONCE(rf_devs[i].adev, NULL);
		}
	}
	WRITE_ONCE(d->pdev, pdev);
	return d;
}

NOKPROBE_SYMBOL(rf_dev_claim_locked);

/* Bind @adev to @d only: an old binding of the same address is stale. */
static void rf_dev_bind_adev_locked(struct rf_dev *d, void *adev)
{
	unsigned int i;

	for (i = 0; i < RF_MAX_DEVS; i++)
		if (&rf_devs[i] != d && rf_devs[i].adev == adev)
			WRITE_ONCE(rf_devs[i].adev, NULL);
	WRITE_ONCE(d->adev, adev);
}

NOKPROBE_SYMBOL(rf_dev_bind_adev_locked);

/* Decide whether @d is targeted, with the parameters as they are now. */
void rf_dev_decide_locked(struct rf_dev *d)
{
	struct rdnafix_dev rd = { d->vendor, d->device, d->bdf };
	struct rdnafix_decision dec;

	dec = rdnafix_decide(&rf_targets.list, &rf_exclude.list, &rd);
	switch (dec.verdict) {
	case RDNAFIX_TARGETED:
		scnprintf(d->reason, sizeof(d->reason), "targeted: matches '%s' in targets",
			  rf_targets.list.sel[dec.sel].text);
		break;
	case RDNAFIX_EXCLUDED:
		scnprintf(d->reason, sizeof(d->reason), "not targeted: excluded by '%s'",
			  rf_exclude.list.sel[dec.sel].text);
		break;
	case RDNAFIX_NOT_SELECTED:
		scnprintf(d->reason, sizeof(d->reason),
			  "not targeted: no entry of targets matches");
		break;
	default:
		scnprintf(d->reason, sizeof(d->reason),
			  "not targeted: %04x:%04x is not an RDNA1/RDNA2 (GMC v10) GPU",
			  d->vendor, d->device);
		break;
	}
	WRITE_ONCE(d->targeted, dec.verdict == RDNAFIX_TARGETED);
	d->refused = false;
	d->note[0] = '\0';
	/* nothing is requested for a device rdnafix does not target */
	d->noretry_req = dec.verdict == RDNAFIX_TARGETED ? READ_ONCE(rf_noretry) : -1;
	d->fragment_req = dec.verdict == RDNAFIX_TARGETED ? READ_ONCE(rf_fragment) : -1;
	d->noretry_applied = -1;
	d->fragment_applied = -1;
}

NOKPROBE_SYMBOL(rf_dev_decide_locked);

static void rf_dev_refuse_locked(struct rf_dev *d, void *adev)
{
	WRITE_ONCE(d->targeted, false);
	d->refused = true;
	scnprintf(d->reason, sizeof(d->reason),
		  "refused: layout check failed (adev->dev != &adev->pdev->dev)");
	rf_dev_bind_adev_locked(d, adev);
}

NOKPROBE_SYMBOL(rf_dev_refuse_locked);

/*
 * The slot for an amdgpu_device seen by an init-time hook (@init) or by
 * get_vm_pte.  A device that fails the layout check is refused: if exactly
 * one amdgpu_pci_probe is in flight it is that device, otherwise it can
 * only be logged.
 */
struct rf_dev *rf_dev_for_adev(void *adev, bool init)
{
	struct rf_dev *d = NULL;
	struct pci_dev *pdev;
	unsigned long flags;
	bool created = false;

	/* init-time hooks always re-check: a new device may reuse an address */
	if (!init) {
		d = rf_dev_by_adev(adev);
		if (d)
			return d;
	}
	pdev = rf_adev_pdev(adev);
	raw_spin_lock_irqsave(&rf_lock, flags);
	if (!pdev) {
		if (rf_probing == 1 && rf_probing_pdev)
			d = rf_dev_by_pdev_locked(rf_probing_pdev);
		if (d)
			rf_dev_refuse_locked(d, adev);
		raw_spin_unlock_irqrestore(&rf_lock, flags);
		pr_warn_ratelimited("amdgpu device %s refused: layout check failed\n",
				    d ? d->name : "(unknown)");
		return d;
	}
	d = rf_dev_by_pdev_locked(pdev);
	if (!d) {
		d = rf_dev_claim_locked(pdev, &created);
		if (d) {
			rf_dev_decide_locked(d);
			if (!init && (d->noretry_req != -1 || d->fragment_req != -1))
				scnprintf(d->note, sizeof(d->note),
					  "noretry/vm_fragment_size pending: initialised before rdnafix's hooks, reload amdgpu");
		}
	}
	if (d)
		rf_dev_bind_adev_locked(d, adev);
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	if (created)
		rf_sysfs_kick();
	return d;
}

NOKPROBE_SYMBOL(rf_dev_for_adev);

/*
 * A PCI device bound to amdgpu.  dev->driver changes under bind/unbind
 * without a lock we hold: read it once; the driver it points to is
 * amdgpu's, which rf_arm_lock (held) keeps loaded.
 */
static int rf_dev_seen_bound(struct device *dev, void *data)
{
	const struct device_driver *drv = READ_ONCE(dev->driver);
	struct pci_dev *pdev = to_pci_dev(dev);
	bool created = false;
	unsigned long flags;
	struct rf_dev *d;

	if (!drv || strcmp(drv->name, "amdgpu"))
		return 0;
	raw_spin_lock_irqsave(&rf_lock, flags);
	d = rf_dev_claim_locked(pdev, &created);
	if (d && created) {
		rf_dev_decide_locked(d);
		if (d->noretry_req != -1 || d->fragment_req != -1)
			scnprintf(d->note, sizeof(d->note),
				  "noretry/vm_fragment_size pending: initialised before rdnafix's hooks, reload amdgpu");
	}
	raw_spin_unlock_irqrestore(&rf_lock, flags);
	if (created)
		rf_sysfs_kick();
	return 0;
}

/*
 * amdgpu was loaded before rdnafix: list the PCI devices it has already
 * bound, so that they show up in sysfs before their first PTE is written.
 */
void rf_devices_scan_bound(void)
{
	bus_for_each_dev(&pci_bus_type, NULL, NULL, rf_dev_seen_bound);
}

void rf_devices_unbind(void)
{
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&rf_lock, flags);
	for (i = 0; i < RF_MAX_DEVS; i++) {
		WRITE_ONCE(rf_devs[i].adev, NULL);
		WRITE_ONCE(rf_devs[i].pdev, NULL);
	}
	rf_probing = 0;
	rf_probing_pdev = NULL;
	raw_spin_unlock_irqrestore(&rf_lock, flags);
}

/*
 * amdgpu_pci_remove returned for @pdev (a pointer only compared): forget
 * its amdgpu objects and leave the slot to rf_sysfs_work, which removes
 * its directory and frees it.  From a probe handler, rf_lock held.
 */
void rf_dev_gone_locked(struct pci_dev *pdev)
{
	struct rf_dev *d = pdev ? rf_dev_by_pdev_locked(pdev) : NULL;

	if (!d)
		return;
	WRITE_ONCE(d->adev, NULL);
	WRITE_ONCE(d->pdev, NULL);
	d->state = RF_DEV_GONE;
}

NOKPROBE_SYMBOL(rf_dev_gone_locked);

/* Process context, after its directory is gone: the slot can be claimed again. */
void rf_dev_free_gone(struct rf_dev *d)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&rf_lock, flags);
	if (d->state == RF_DEV_GONE) {
		d->state = RF_DEV_FREE;
		d->name[0] = '\0';
		WRITE_ONCE(d->targeted, false);
	}
	raw_spin_unlock_irqrestore(&rf_lock, flags);
}
