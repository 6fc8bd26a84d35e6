/*
 * Fuzz harness of the AML scanner (kernel/acpi_aml.c) on its own: the
 * input is a DSDT's or SSDT's AML (the bytes after the 36-byte header),
 * in a buffer of exactly that size (ASan's bounds), so the fuzzer spends
 * its time in the walker rather than in building tables (fuzz_acpi.c
 * reaches it through the FADT too).
 *
 * The scan runs twice, with room for 16 bridges and for the number the
 * input's last byte picks (0-16). Checked beyond ASan: each count within
 * its bound; the short run's bridges are the first ones of the long run,
 * and what did not fit is counted as dropped; every name a NUL-ended
 * NameSeg; the scan's other figures the same both times.
 */
#include <stdlib.h>
#include <string.h>

#include "parse_common.h"

#include "kernel/acpi_aml.c"

#define ROOM 16

static void check_bridges(const struct acpi_host_bridge *b, int n)
{
	for (int i = 0; i < n; i++)
		PZ_CHECK(memchr(b[i].name, 0, sizeof(b[i].name)) &&
				 strlen(b[i].name) <= 4,
			 "bridge %d's name not a NameSeg", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool started;
	struct acpi_host_bridge all[ROOM], few[ROOM];
	struct aml_scan_stats st_all, st_few;
	int room = size ? data[size - 1] % (ROOM + 1) : 0, n_all, n_few;
	uint8_t *aml = malloc(size ? size : 1);

	if (!started) {
		pz_init("fuzz_aml");
		started = true;
	}
	pz_input();
	memcpy(aml, data, size);
	n_all = aml_find_host_bridges(aml, size, all, ROOM, &st_all);
	n_few = aml_find_host_bridges(aml, size, few, room, &st_few);
	pz_ops += 2;
	free(aml);
	PZ_CHECK(n_all >= 0 && n_all <= ROOM, "%d bridges", n_all);
	PZ_CHECK(n_few == (n_all < room ? n_all : room), "%d of %d in %d",
		 n_few, n_all, room);
	PZ_CHECK(n_few + st_few.bridges_dropped ==
			 n_all + st_all.bridges_dropped,
		 "bridges found %d + %d, then %d + %d", n_all,
		 st_all.bridges_dropped, n_few, st_few.bridges_dropped);
	PZ_CHECK(!memcmp(all, few, sizeof(all[0]) * (size_t)n_few),
		 "the first %d bridges differ", n_few);
	PZ_CHECK(st_all.devices == st_few.devices &&
			 st_all.fallbacks == st_few.fallbacks &&
			 st_all.too_deep == st_few.too_deep,
		 "the scan saw different things");
	check_bridges(all, n_all);
	return 0;
}
