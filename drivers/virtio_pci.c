/*
 * virtio PCI transports, modern (1.x, memory BARs found through vendor
 * capabilities) and legacy (0.9.5, one I/O BAR). See virtio_pci.h.
 */
#include "virtio_pci.h"

#include "drv_port.h"

/* Vendor capability layout (virtio spec 4.1.4). */
#define VCAP_CFG_TYPE		  3
#define VCAP_BAR		  4
#define VCAP_OFFSET		  8
#define VCAP_LENGTH		  12
#define VCAP_NOTIFY_MULT	  16
#define VIRTIO_PCI_CAP_COMMON_CFG 1
#define VIRTIO_PCI_CAP_NOTIFY_CFG 2
#define VIRTIO_PCI_CAP_ISR_CFG	  3
#define VIRTIO_PCI_CAP_DEVICE_CFG 4

/* Common configuration registers (virtio spec 4.1.4.3). */
#define VC_DFSELECT 0x00
#define VC_DF	    0x04
#define VC_GFSELECT 0x08
#define VC_GF	    0x0c
#define VC_MSIX_CFG 0x10
#define VC_STATUS   0x14
#define VC_Q_SELECT 0x16
#define VC_Q_SIZE   0x18
#define VC_Q_MSIX   0x1a
#define VC_Q_ENABLE 0x1c
#define VC_Q_NOFF   0x1e
#define VC_Q_DESC   0x20
#define VC_Q_AVAIL  0x28
#define VC_Q_USED   0x30

/* Legacy I/O registers (virtio 0.9.5, without MSI-X). */
#define VL_HOST_FEATURES  0x00
#define VL_GUEST_FEATURES 0x04
#define VL_QUEUE_PFN	  0x08
#define VL_QUEUE_SIZE	  0x0c
#define VL_QUEUE_SELECT	  0x0e
#define VL_QUEUE_NOTIFY	  0x10
#define VL_STATUS	  0x12
#define VL_ISR		  0x13
#define VL_CONFIG	  0x14

/* The common configuration structure ends after the used-ring address. */
#define VC_LEN 0x38

/* Least length we accept per capability type: the registers we use. */
static uint32_t cap_min_len(uint8_t type)
{
	switch (type) {
	case VIRTIO_PCI_CAP_COMMON_CFG:
		return VC_LEN;
	case VIRTIO_PCI_CAP_NOTIFY_CFG:
		return 2; /* one 16-bit notify register at least */
	default:
		return 1;
	}
}

/*
 * The capability's window [offset, offset + length) of its BAR, mapped;
 * *len gets the length. The device chooses bar, offset and length: a
 * window that is not wholly inside the memory BAR, or shorter than the
 * registers we use, is refused and reported (NULL), so no access through
 * it can leave the BAR.
 */
static volatile uint8_t *map_cap(struct virtio_pci *vp, unsigned int cap,
				 uint8_t type, uint32_t *len)
{
	const struct pci_dev *d = vp->pci;
	uint8_t bar = pci_read8(d, cap + VCAP_BAR);
	uint32_t off = pci_read32(d, cap + VCAP_OFFSET);
	volatile uint8_t *base;

	*len = pci_read32(d, cap + VCAP_LENGTH);
	if (bar > 5 || !d->bar[bar].size || d->bar[bar].io)
		return NULL;
	if (*len < cap_min_len(type) ||
	    (uint64_t)off + *len > d->bar[bar].size) {
		drv_printf("virtio: %02x:%02x.%x capability type %u window "
			   "0x%x+0x%x does not fit BAR%u (0x%llx bytes), "
			   "ignored\n",
			   d->bus, d->dev, d->fn, type, off, *len, bar,
			   (unsigned long long)d->bar[bar].size);
		return NULL;
	}
	base = pci_map_bar(d, bar);
	return base ? base + off : NULL;
}

/* Keep the first usable capability of each type (the spec lets a device
 * repeat a type, in order of preference). */
static void take_cap(struct virtio_pci *vp, unsigned int cap, uint8_t type,
		     volatile uint8_t *p, uint32_t len)
{
	if (type == VIRTIO_PCI_CAP_COMMON_CFG && !vp->common) {
		vp->common = p;
	} else if (type == VIRTIO_PCI_CAP_NOTIFY_CFG && !vp->notify) {
		vp->notify = p;
		vp->notify_len = len;
		vp->notify_mult = pci_read32(vp->pci, cap + VCAP_NOTIFY_MULT);
	} else if (type == VIRTIO_PCI_CAP_ISR_CFG && !vp->isr) {
		vp->isr = p;
	} else if (type == VIRTIO_PCI_CAP_DEVICE_CFG && !vp->device) {
		vp->device = p;
		vp->device_len = len;
	}
}

static int find_modern(struct virtio_pci *vp)
{
	unsigned int cap = 0;

	while ((cap = pci_next_cap(vp->pci, PCI_CAP_VENDOR, cap)) != 0) {
		uint8_t type = pci_read8(vp->pci, cap + VCAP_CFG_TYPE);
		volatile uint8_t *p;
		uint32_t len;

		if (type < VIRTIO_PCI_CAP_COMMON_CFG ||
		    type > VIRTIO_PCI_CAP_DEVICE_CFG)
			continue;
		p = map_cap(vp, cap, type, &len);
		if (p)
			take_cap(vp, cap, type, p, len);
	}
	return vp->common && vp->notify && vp->device ? 0 : -1;
}

int virtio_pci_init(struct virtio_pci *vp, struct pci_dev *d, bool allow_modern)
{
	*vp = (struct virtio_pci){.pci = d};
	pci_enable(d);
	if (allow_modern && find_modern(vp) == 0) {
		vp->modern = true;
		return 0;
	}
	vp->common = vp->notify = vp->isr = vp->device = NULL;
	/* Legacy: BAR0 is the I/O register block. Modern-only devices
	 * (id 0x1040+) have none. */
	if (d->device >= 0x1040 || !d->bar[0].io || !d->bar[0].size) {
		drv_printf("virtio: %02x:%02x.%x has no usable transport\n",
			   d->bus, d->dev, d->fn);
		return -1;
	}
	vp->io = (uint16_t)d->bar[0].addr;
	return 0;
}

/* A reset takes microseconds on real devices and QEMU; a device still
 * not done after this long is broken. */
#define VIRTIO_RESET_TIMEOUT_MS 1000

int virtio_pci_reset(struct virtio_pci *vp)
{
	uint64_t end;

	if (!vp->modern) {
		outb(vp->io + VL_STATUS, 0);
		return 0;
	}
	mmio_write8(vp->common + VC_STATUS, 0);
	/* The reset is done once status reads back 0 (spec 4.1.4.3.2). */
	end = drv_clock_ms() + VIRTIO_RESET_TIMEOUT_MS;
	while (mmio_read8(vp->common + VC_STATUS) != 0) {
		if (drv_clock_ms() > end) {
			drv_printf("virtio: %02x:%02x.%x did not reset in %d "
				   "ms\n",
				   vp->pci->bus, vp->pci->dev, vp->pci->fn,
				   VIRTIO_RESET_TIMEOUT_MS);
			return -1;
		}
		__builtin_ia32_pause();
	}
	return 0;
}

uint8_t virtio_pci_get_status(struct virtio_pci *vp)
{
	return vp->modern ? mmio_read8(vp->common + VC_STATUS)
			  : inb(vp->io + VL_STATUS);
}

void virtio_pci_add_status(struct virtio_pci *vp, uint8_t bits)
{
	uint8_t s = virtio_pci_get_status(vp) | bits;

	if (vp->modern)
		mmio_write8(vp->common + VC_STATUS, s);
	else
		outb(vp->io + VL_STATUS, s);
}

uint64_t virtio_pci_get_features(struct virtio_pci *vp)
{
	uint64_t lo, hi;

	if (!vp->modern)
		return inl(vp->io + VL_HOST_FEATURES);
	mmio_write32(vp->common + VC_DFSELECT, 0);
	lo = mmio_read32(vp->common + VC_DF);
	mmio_write32(vp->common + VC_DFSELECT, 1);
	hi = mmio_read32(vp->common + VC_DF);
	return hi << 32 | lo;
}

void virtio_pci_set_features(struct virtio_pci *vp, uint64_t features)
{
	if (!vp->modern) {
		outl(vp->io + VL_GUEST_FEATURES, (uint32_t)features);
		return;
	}
	mmio_write32(vp->common + VC_GFSELECT, 0);
	mmio_write32(vp->common + VC_GF, (uint32_t)features);
	mmio_write32(vp->common + VC_GFSELECT, 1);
	mmio_write32(vp->common + VC_GF, (uint32_t)(features >> 32));
}

/* A config read past the device's capability window reads as zero. */
uint8_t virtio_pci_config8(struct virtio_pci *vp, unsigned int off)
{
	if (!vp->modern)
		return inb(vp->io + VL_CONFIG + off);
	return off + 1 <= vp->device_len ? mmio_read8(vp->device + off) : 0;
}

uint16_t virtio_pci_config16(struct virtio_pci *vp, unsigned int off)
{
	if (!vp->modern)
		return inw(vp->io + VL_CONFIG + off);
	return off + 2 <= vp->device_len ? mmio_read16(vp->device + off) : 0;
}

uint16_t virtio_pci_queue_max(struct virtio_pci *vp, uint16_t q)
{
	if (vp->modern) {
		mmio_write16(vp->common + VC_Q_SELECT, q);
		return mmio_read16(vp->common + VC_Q_SIZE);
	}
	outw(vp->io + VL_QUEUE_SELECT, q);
	return inw(vp->io + VL_QUEUE_SIZE);
}

int virtio_pci_queue_setup(struct virtio_pci *vp, uint16_t q, uint16_t size,
			   uint64_t desc, uint64_t avail, uint64_t used,
			   uint16_t *notify_off)
{
	uint16_t noff;

	*notify_off = 0;
	if (!vp->modern) {
		outw(vp->io + VL_QUEUE_SELECT, q);
		if (inw(vp->io + VL_QUEUE_SIZE) != size || (desc & 4095) != 0)
			return -1;
		outl(vp->io + VL_QUEUE_PFN, (uint32_t)(desc >> 12));
		return 0;
	}
	mmio_write16(vp->common + VC_Q_SELECT, q);
	/* The queue's notify register must lie inside the notify window;
	 * checked before the device is told anything about the queue. */
	noff = mmio_read16(vp->common + VC_Q_NOFF);
	if ((uint64_t)noff * vp->notify_mult + 2 > vp->notify_len) {
		drv_printf("virtio: queue %u notify offset %u x %u is outside "
			   "the notify window (0x%x bytes), refused\n",
			   q, noff, vp->notify_mult, vp->notify_len);
		return -1;
	}
	*notify_off = noff;
	mmio_write16(vp->common + VC_Q_SIZE, size);
	/* No MSI-X vector until virtio_pci_queue_vector gives one. */
	mmio_write16(vp->common + VC_Q_MSIX, 0xffff);
	mmio_write64(vp->common + VC_Q_DESC, desc);
	mmio_write64(vp->common + VC_Q_AVAIL, avail);
	mmio_write64(vp->common + VC_Q_USED, used);
	mmio_write16(vp->common + VC_Q_ENABLE, 1);
	return 0;
}

void virtio_pci_notify(struct virtio_pci *vp, uint16_t q, uint16_t notify_off)
{
	if (vp->modern)
		mmio_write16(
			vp->notify + (uint32_t)notify_off * vp->notify_mult, q);
	else
		outw(vp->io + VL_QUEUE_NOTIFY, q);
}

uint8_t virtio_pci_isr(struct virtio_pci *vp)
{
	if (!vp->modern)
		return inb(vp->io + VL_ISR);
	return vp->isr ? mmio_read8(vp->isr) : 0;
}

int virtio_pci_config_vector(struct virtio_pci *vp, uint16_t entry)
{
	if (!vp->modern)
		return -1;
	mmio_write16(vp->common + VC_MSIX_CFG, entry);
	return mmio_read16(vp->common + VC_MSIX_CFG) == entry ? 0 : -1;
}

int virtio_pci_queue_vector(struct virtio_pci *vp, uint16_t q, uint16_t entry)
{
	if (!vp->modern)
		return -1;
	mmio_write16(vp->common + VC_Q_SELECT, q);
	mmio_write16(vp->common + VC_Q_MSIX, entry);
	return mmio_read16(vp->common + VC_Q_MSIX) == entry ? 0 : -1;
}
