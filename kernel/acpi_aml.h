/*
 * A small AML scanner: finds the PCI host bridges that a DSDT or SSDT
 * declares, with their bus number (_BBN), segment (_SEG) and proximity
 * domain (_PXM), so that each PCI device can be given the NUMA node of the
 * host bridge it sits behind. It is not an interpreter: it reads only
 * Name() objects whose values are constants; a _PXM (or _BBN) computed by
 * a Method is reported as unsupported. See kernel/acpi_aml.c.
 *
 * Pure code over a byte buffer (no kernel calls), so the host tests run it
 * on real AML that QEMU generated.
 */
#ifndef KERNEL_ACPI_AML_H
#define KERNEL_ACPI_AML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* EISA ids as AML's EISAID() packs them (a little-endian dword). */
#define AML_EISAID_PNP0A03 0x030AD041u /* PCI bus */
#define AML_EISAID_PNP0A08 0x080AD041u /* PCI Express bus */

struct acpi_host_bridge {
	char name[5];	  /* the device's last NameSeg, e.g. "PC20" */
	uint16_t segment; /* _SEG, 0 when absent */
	uint8_t bus;	  /* _BBN, 0 when absent (ACPI's default) */
	bool has_bbn;	  /* a Name(_BBN, constant) was found */
	bool has_pxm;	  /* a Name(_PXM, constant) was found */
	bool pxm_method;  /* _PXM (or _BBN) is a Method: not supported */
	uint32_t pxm;	  /* proximity domain, when has_pxm */
};

/* What a scan saw, for the boot report and the tests. */
struct aml_scan_stats {
	int devices;	     /* Device() objects seen */
	int bridges_dropped; /* host bridges past the caller's array */
	int fallbacks;	     /* ranges with an opcode the walker does not
				know, byte-scanned for Device() instead */
	int too_deep;	     /* bodies past the nesting limit, skipped */
	/* bytes looked at: the byte scans' positions and the bytes read
	 * while looking for a string's end; the work of a scan, which
	 * grows linearly with the table (the tests bound it) */
	unsigned long steps;
};

/*
 * aml_find_host_bridges - scan one table's AML for PCI host bridges.
 * @aml, @len: the table's bytes after its 36-byte header (the AML code).
 * @out, @max: where to put what is found, at most max of them.
 * @st: filled with what the scan saw (may be NULL).
 * A host bridge is a Device whose _HID or _CID is PNP0A03 or PNP0A08
 * (EISAID or string). Never reads outside [aml, aml + len), whatever the
 * bytes are; bodies nest at most AML_MAX_DEPTH deep.
 * Context: any; no allocation. Returns the number of bridges written.
 */
int aml_find_host_bridges(const uint8_t *aml, size_t len,
			  struct acpi_host_bridge *out, int max,
			  struct aml_scan_stats *st);

#endif /* KERNEL_ACPI_AML_H */
