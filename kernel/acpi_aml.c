/*
 * AML scanner: PCI host bridges and their _BBN, _SEG and _PXM.
 *
 * AML (ACPI's bytecode, ACPI 6.x section 20) is a tree of terms; the ones
 * that declare things carry their own length, a PkgLength (1-4 bytes:
 * the lead byte's top two bits say how many bytes follow, and the length
 * counts from the PkgLength itself). So the scanner can walk a table's
 * namespace without interpreting it:
 *
 *   Scope   0x10 PkgLength NameString body      walked
 *   Device  0x5B 0x82 PkgLength NameString body walked, its Names read
 *   Name    0x08 NameString DataObject          a constant kept
 *   Method  0x14 PkgLength NameString ...       skipped (a _PXM here is
 *                                               noted as unsupported)
 *   If/Else/While, Buffer/Package, Field,       skipped whole
 *   Processor, PowerResource, ThermalZone
 *   OperationRegion, Mutex, Event, External,    stepped over
 *   Alias
 *
 * Integer constants are ZeroOp 0x00, OneOp 0x01, OnesOp 0xFF and the
 * prefixes 0x0A (byte), 0x0B (word), 0x0C (dword), 0x0E (qword). QEMU
 * writes a PCIe expander bridge (pxb-pcie,numa_node=N) as
 *   Device (PC20) { Name (_UID, 0x20)  Name (_BBN, 0x20)
 *                   Name (_HID, EisaId ("PNP0A08"))  ...  Name (_PXM, N) }
 *
 * Defensive: every read checks the cursor against the end of the range
 * it is in (the table, or the enclosing term's PkgLength), a PkgLength
 * reaching past its range fails the term, and nesting stops at
 * AML_MAX_DEPTH. An opcode the walker does not know would leave it
 * unable to find the next term; it then byte-scans the rest of that range
 * for Device() openings that parse (and, inside a device, for the Names it
 * wants), and counts the fallback. The scan stays linear in the table's
 * size (real DSDTs are 100-500 KiB): a string's end is looked for once
 * per run of bytes without a NUL, not once per candidate. A Name() inside a Scope() that adds to
 * a device declared elsewhere is not attached to that device.
 */
#include "kernel/acpi_aml.h"

#include <string.h>

#define AML_MAX_DEPTH 16

#define AML_ZERO       0x00
#define AML_ONE	       0x01
#define AML_ALIAS      0x06
#define AML_NAME       0x08
#define AML_BYTE       0x0A
#define AML_WORD       0x0B
#define AML_DWORD      0x0C
#define AML_STRING     0x0D
#define AML_QWORD      0x0E
#define AML_SCOPE      0x10
#define AML_BUFFER     0x11
#define AML_PACKAGE    0x12
#define AML_VARPACKAGE 0x13
#define AML_METHOD     0x14
#define AML_EXTERNAL   0x15
#define AML_DUAL_NAME  0x2E
#define AML_MULTI_NAME 0x2F
#define AML_EXT	       0x5B
#define AML_ROOT       0x5C
#define AML_PARENT     0x5E
#define AML_IF	       0xA0
#define AML_ELSE       0xA1
#define AML_WHILE      0xA2
#define AML_ONES       0xFF
/* after AML_EXT */
#define AML_MUTEX      0x01
#define AML_EVENT      0x02
#define AML_OPREGION   0x80
#define AML_FIELD      0x81
#define AML_DEVICE     0x82
#define AML_PROCESSOR  0x83
#define AML_POWERRES   0x84
#define AML_THERMAL    0x85
#define AML_INDEXFIELD 0x86
#define AML_BANKFIELD  0x87

/* A cursor over [p, end): p never passes end. */
struct aml {
	const uint8_t *p, *end;
};

/* The Device whose body is being walked, and what its Names said. */
struct aml_dev {
	struct acpi_host_bridge br;
	bool is_bridge;
};

struct aml_scan {
	struct acpi_host_bridge *out;
	int max, n;
	struct aml_scan_stats st;
	/* [nul_from, nul_at) holds no NUL, and nul_at is the first NUL
	 * after it or the table's end (aml_find_nul) */
	const uint8_t *table_end, *nul_from, *nul_at;
};

static void aml_terms(struct aml_scan *s, const uint8_t *p, const uint8_t *end,
		      struct aml_dev *dev, int depth);

static bool aml_has(const struct aml *c, size_t n)
{
	return (size_t)(c->end - c->p) >= n;
}

static bool aml_skip(struct aml *c, size_t n)
{
	if (!aml_has(c, n))
		return false;
	c->p += n;
	return true;
}

/* PkgLength at c->p: *pkg_end gets where the term ends (inside c's
 * range); c->p moves past the PkgLength bytes. */
static bool aml_pkg_length(struct aml *c, const uint8_t **pkg_end)
{
	const uint8_t *start = c->p;
	unsigned int extra, len;

	if (!aml_has(c, 1))
		return false;
	extra = start[0] >> 6;
	if (!aml_has(c, 1 + extra))
		return false;
	if (extra == 0) {
		len = start[0] & 0x3f;
	} else {
		len = start[0] & 0x0f;
		for (unsigned int i = 0; i < extra; i++)
			len |= (unsigned int)start[1 + i] << (4 + 8 * i);
	}
	if (len < 1 + extra || len > (size_t)(c->end - start))
		return false;
	*pkg_end = start + len;
	c->p = start + 1 + extra;
	return true;
}

/* Skip a term made of a PkgLength and what it covers. */
static bool aml_skip_pkg(struct aml *c)
{
	const uint8_t *end;

	if (!aml_pkg_length(c, &end))
		return false;
	c->p = end;
	return true;
}

static bool aml_name_char(uint8_t b, bool lead)
{
	return (b >= 'A' && b <= 'Z') || b == '_' ||
	       (!lead && b >= '0' && b <= '9');
}

static bool aml_name_seg_ok(const uint8_t *p)
{
	return aml_name_char(p[0], true) && aml_name_char(p[1], false) &&
	       aml_name_char(p[2], false) && aml_name_char(p[3], false);
}

/*
 * NameString at c->p: '\' or '^'s, then a NameSeg, a dual or multi name
 * path, or the null name. last (5 bytes, may be NULL) gets the last
 * NameSeg ("" for the null name).
 */
static bool aml_name_string(struct aml *c, char *last)
{
	unsigned int segs = 1;

	if (aml_has(c, 1) && c->p[0] == AML_ROOT)
		c->p++;
	else
		while (aml_has(c, 1) && c->p[0] == AML_PARENT)
			c->p++;
	if (!aml_has(c, 1))
		return false;
	if (c->p[0] == AML_ZERO) {
		c->p++;
		if (last)
			last[0] = 0;
		return true;
	}
	if (c->p[0] == AML_DUAL_NAME) {
		segs = 2;
		c->p++;
	} else if (c->p[0] == AML_MULTI_NAME) {
		if (!aml_has(c, 2) || c->p[1] == 0)
			return false;
		segs = c->p[1];
		c->p += 2;
	}
	if (!aml_has(c, 4 * (size_t)segs))
		return false;
	for (unsigned int i = 0; i < segs; i++)
		if (!aml_name_seg_ok(c->p + 4 * i))
			return false;
	if (last) {
		memcpy(last, c->p + 4 * (segs - 1), 4);
		last[4] = 0;
	}
	c->p += 4 * (size_t)segs;
	return true;
}

/* An integer constant at c->p (ZeroOp, OneOp, OnesOp or a prefix). */
static bool aml_integer(struct aml *c, uint64_t *v)
{
	static const uint8_t width[] = {[AML_BYTE] = 1,
					[AML_WORD] = 2,
					[AML_DWORD] = 4,
					[AML_QWORD] = 8};
	uint8_t op;

	if (!aml_has(c, 1))
		return false;
	op = c->p[0];
	if (op == AML_ZERO || op == AML_ONE || op == AML_ONES) {
		*v = op == AML_ONES ? UINT64_MAX : op;
		c->p++;
		return true;
	}
	if (op > AML_QWORD || !width[op] || !aml_has(c, 1u + width[op]))
		return false;
	*v = 0;
	for (unsigned int i = 0; i < width[op]; i++)
		*v |= (uint64_t)c->p[1 + i] << (8 * i);
	c->p += 1u + width[op];
	return true;
}

/* A Name's value as this scanner sees it. */
struct aml_value {
	bool is_int, is_str;
	uint64_t v;
	char str[9]; /* a string's first 8 bytes */
};

/*
 * The first NUL at or after @from, or NULL when there is none before
 * @end. A byte scan asks from rising positions, and in a range with no
 * NUL every Name() candidate would read to the end again: remembering
 * the last answer (valid for every start between that query and the NUL
 * it found) keeps the whole scan linear.
 */
static const uint8_t *aml_find_nul(struct aml_scan *s, const uint8_t *from,
				   const uint8_t *end)
{
	if (!(from >= s->nul_from && from <= s->nul_at)) {
		const uint8_t *p = from;

		while (p < s->table_end && *p)
			p++;
		s->st.steps += (unsigned long)(p - from);
		s->nul_from = from;
		s->nul_at = p;
	}
	return s->nul_at < end ? s->nul_at : NULL;
}

/* DataObject at c->p: an integer, a string, or a buffer or package
 * (skipped: their contents are not needed). */
static bool aml_data(struct aml_scan *s, struct aml *c, struct aml_value *val)
{
	memset(val, 0, sizeof(*val));
	if (aml_integer(c, &val->v)) {
		val->is_int = true;
		return true;
	}
	if (!aml_has(c, 1))
		return false;
	switch (c->p[0]) {
	case AML_STRING: {
		const uint8_t *nul = aml_find_nul(s, ++c->p, c->end);

		if (!nul)
			return false;
		val->is_str = true;
		memcpy(val->str, c->p,
		       (size_t)(nul - c->p) < 8 ? (size_t)(nul - c->p) : 8);
		c->p = nul + 1;
		return true;
	}
	case AML_BUFFER:
	case AML_PACKAGE:
	case AML_VARPACKAGE:
		c->p++;
		return aml_skip_pkg(c);
	default:
		return false;
	}
}

static bool aml_is_bridge_id(const struct aml_value *val)
{
	if (val->is_int)
		return val->v == AML_EISAID_PNP0A03 ||
		       val->v == AML_EISAID_PNP0A08;
	return val->is_str &&
	       (!strcmp(val->str, "PNP0A03") || !strcmp(val->str, "PNP0A08"));
}

/* What a device's Name(seg, val) tells about it. */
static void aml_dev_name(struct aml_dev *dev, const char *seg,
			 const struct aml_value *val)
{
	if (!strcmp(seg, "_HID") || !strcmp(seg, "_CID")) {
		dev->is_bridge |= aml_is_bridge_id(val);
	} else if (!strcmp(seg, "_BBN") && val->is_int) {
		dev->br.bus = (uint8_t)val->v;
		dev->br.has_bbn = true;
	} else if (!strcmp(seg, "_SEG") && val->is_int) {
		dev->br.segment = (uint16_t)val->v;
	} else if (!strcmp(seg, "_PXM") && val->is_int) {
		dev->br.pxm = (uint32_t)val->v;
		dev->br.has_pxm = true;
	}
}

/* Name (NameOp already taken): NameString DataObject. */
static bool aml_name(struct aml_scan *s, struct aml *c, struct aml_dev *dev)
{
	struct aml_value val;
	char seg[5];

	if (!aml_name_string(c, seg) || !aml_data(s, c, &val))
		return false;
	if (dev)
		aml_dev_name(dev, seg, &val);
	return true;
}

/* Method (MethodOp taken): skipped, but a device's _PXM or _BBN computed
 * at run time is noted: this scanner cannot evaluate it. */
static bool aml_method(struct aml *c, struct aml_dev *dev)
{
	const uint8_t *end;
	struct aml name;
	char seg[5];

	if (!aml_pkg_length(c, &end))
		return false;
	name.p = c->p;
	name.end = end;
	if (!aml_name_string(&name, seg))
		return false;
	if (dev && (!strcmp(seg, "_PXM") || !strcmp(seg, "_BBN")))
		dev->br.pxm_method = true;
	c->p = end;
	return true;
}

static void aml_add_bridge(struct aml_scan *s, const struct aml_dev *dev)
{
	if (s->n == s->max) {
		s->st.bridges_dropped++;
		return;
	}
	s->out[s->n++] = dev->br;
}

/* Device (ExtOpPrefix DeviceOp taken): walk its body with its own
 * record; a host bridge is kept. */
static bool aml_device(struct aml_scan *s, struct aml *c, int depth)
{
	const uint8_t *end;
	struct aml_dev dev;
	struct aml body;

	if (!aml_pkg_length(c, &end))
		return false;
	memset(&dev, 0, sizeof(dev));
	body.p = c->p;
	body.end = end;
	if (!aml_name_string(&body, dev.br.name))
		return false;
	s->st.devices++;
	aml_terms(s, body.p, end, &dev, depth + 1);
	if (dev.is_bridge)
		aml_add_bridge(s, &dev);
	c->p = end;
	return true;
}

/* Scope (ScopeOp taken): walk its body; its Names belong to the scope's
 * target, not to an enclosing device. */
static bool aml_scope(struct aml_scan *s, struct aml *c, int depth)
{
	const uint8_t *end;
	struct aml body;

	if (!aml_pkg_length(c, &end))
		return false;
	body.p = c->p;
	body.end = end;
	if (!aml_name_string(&body, NULL))
		return false;
	aml_terms(s, body.p, end, NULL, depth + 1);
	c->p = end;
	return true;
}

/* TermArg of OperationRegion: a constant or a name. */
static bool aml_simple_arg(struct aml *c)
{
	uint64_t v;

	return aml_integer(c, &v) || aml_name_string(c, NULL);
}

/* A term after ExtOpPrefix (already taken). */
static bool aml_ext_term(struct aml_scan *s, struct aml *c, int depth)
{
	if (!aml_has(c, 1))
		return false;
	switch (*c->p++) {
	case AML_DEVICE:
		return aml_device(s, c, depth);
	case AML_PROCESSOR:
	case AML_POWERRES:
	case AML_THERMAL:
	case AML_FIELD:
	case AML_INDEXFIELD:
	case AML_BANKFIELD:
		return aml_skip_pkg(c);
	case AML_OPREGION:
		return aml_name_string(c, NULL) && aml_skip(c, 1) &&
		       aml_simple_arg(c) && aml_simple_arg(c);
	case AML_MUTEX:
		return aml_name_string(c, NULL) && aml_skip(c, 1);
	case AML_EVENT:
		return aml_name_string(c, NULL);
	default:
		return false;
	}
}

/* One namespace term at c->p; false when it is unknown or malformed. */
static bool aml_term(struct aml_scan *s, struct aml *c, struct aml_dev *dev,
		     int depth)
{
	switch (*c->p++) {
	case AML_SCOPE:
		return aml_scope(s, c, depth);
	case AML_NAME:
		return aml_name(s, c, dev);
	case AML_METHOD:
		return aml_method(c, dev);
	case AML_EXT:
		return aml_ext_term(s, c, depth);
	case AML_ALIAS:
		return aml_name_string(c, NULL) && aml_name_string(c, NULL);
	case AML_EXTERNAL:
		return aml_name_string(c, NULL) && aml_skip(c, 2);
	case AML_IF:
	case AML_ELSE:
	case AML_WHILE:
	case AML_BUFFER:
	case AML_PACKAGE:
	case AML_VARPACKAGE:
		return aml_skip_pkg(c);
	default:
		return false;
	}
}

/*
 * The walker lost its way at p: look through the rest of the range for
 * Device() openings that parse, and, for the device being walked, for
 * Name()s it wants. A candidate that does not parse is passed by one byte.
 */
static void aml_byte_scan(struct aml_scan *s, const uint8_t *p,
			  const uint8_t *end, struct aml_dev *dev, int depth)
{
	s->st.fallbacks++;
	while (p < end) {
		struct aml c = {p + 1, end};

		s->st.steps++;
		if (p[0] == AML_EXT && c.p < end && c.p[0] == AML_DEVICE) {
			c.p++;
			if (aml_device(s, &c, depth)) {
				p = c.p;
				continue;
			}
		} else if (p[0] == AML_NAME && dev) {
			aml_name(s, &c, dev);
		}
		p++;
	}
}

static void aml_terms(struct aml_scan *s, const uint8_t *p, const uint8_t *end,
		      struct aml_dev *dev, int depth)
{
	struct aml c = {p, end};

	if (depth > AML_MAX_DEPTH) {
		s->st.too_deep++;
		return;
	}
	while (c.p < c.end) {
		const uint8_t *start = c.p;

		if (!aml_term(s, &c, dev, depth)) {
			aml_byte_scan(s, start, end, dev, depth);
			return;
		}
	}
}

int aml_find_host_bridges(const uint8_t *aml, size_t len,
			  struct acpi_host_bridge *out, int max,
			  struct aml_scan_stats *st)
{
	struct aml_scan s;

	memset(&s, 0, sizeof(s));
	s.out = out;
	s.max = max > 0 ? max : 0;
	s.table_end = aml + len;
	if (aml && len)
		aml_terms(&s, aml, aml + len, NULL, 0);
	if (st)
		*st = s.st;
	return s.n;
}
