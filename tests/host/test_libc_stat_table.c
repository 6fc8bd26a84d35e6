/*
 * libc/stat_table.c, the writers that walk a table of counter
 * descriptions: every C type a component keeps comes out as its value,
 * arrays whole or as many as their count field says, the text views
 * print the same values, and the schema names each entry's path, unit,
 * kind and label.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "libc/stat_table.h"

struct sample {
	uint8_t u8;
	uint16_t u16;
	unsigned int u32;
	unsigned long u64;
	long s64;
	int s32;
	bool on;
	const char *name;
	unsigned long per_order[3];
	unsigned int per_cpu[4];
	int nr_cpus;
};

static void put_list(struct strbuf *sb, const void *src)
{
	(void)src;
	strbuf_printf(sb, "[\"a\",\"b\"]");
}

static const struct stat_desc sample_stats[] = {
	STAT_COUNTER_AT(struct sample, u8, "events", "one byte"),
	STAT_COUNTER_AT(struct sample, u16, "events", "two bytes"),
	STAT_GAUGE_AT(struct sample, u32, "pages", "four bytes"),
	STAT_COUNTER_AT(struct sample, u64, "bytes", "eight bytes"),
	STAT_GAUGE_AT(struct sample, s64, "objects", "signed"),
	STAT_INFO_AT(struct sample, s32, "", "signed int"),
	STAT_INFO_AT(struct sample, on, "", "a flag"),
	STAT_INFO_AT(struct sample, name, "", "a name"),
	STAT_ARRAY(struct sample, per_order, STAT_KIND_GAUGE, "order", "blocks",
		   "whole array"),
	STAT_ARRAY_N(struct sample, per_cpu, nr_cpus, STAT_KIND_GAUGE, "cpu",
		     "objects", "counted array"),
	STAT_FN("list", put_list, STAT_KIND_INFO, "device", "",
		"written by a fn"),
};

static const struct sample sample = {
	.u8 = 255,
	.u16 = 65535,
	.u32 = 4000000000u,
	.u64 = 18446744073709551615ul,
	.s64 = -5,
	.s32 = -1,
	.on = true,
	.name = "q\"x\\y\n",
	.per_order = {1, 2, 3},
	.per_cpu = {7, 8, 9, 10},
	.nr_cpus = 2,
};

static char buf[2048];

static const char *json(const struct sample *s)
{
	struct strbuf sb;

	strbuf_init(&sb, buf, sizeof(buf));
	stat_json_members(&sb, sample_stats, STAT_TABLE_LEN(sample_stats), s);
	strbuf_done(&sb);
	return buf;
}

static void test_every_type_is_written_as_its_value(void **state)
{
	(void)state;
	assert_string_equal(json(&sample),
			    "\"u8\":255,\"u16\":65535,\"u32\":4000000000,"
			    "\"u64\":18446744073709551615,\"s64\":-5,"
			    "\"s32\":-1,\"on\":true,"
			    "\"name\":\"q\\\"x\\\\y\\u000a\","
			    "\"per_order\":[1,2,3],\"per_cpu\":[7,8],"
			    "\"list\":[\"a\",\"b\"]");
}

static void test_counted_array_is_clamped_to_its_capacity(void **state)
{
	struct sample s = sample;

	(void)state;
	s.nr_cpus = 9;
	assert_non_null(strstr(json(&s), "\"per_cpu\":[7,8,9,10]"));
	s.nr_cpus = -1;
	assert_non_null(strstr(json(&s), "\"per_cpu\":[]"));
	s.name = NULL;
	assert_non_null(strstr(json(&s), "\"name\":\"\""));
}

static void test_text_views_print_the_same_values(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, buf, sizeof(buf));
	stat_text_pairs(&sb, sample_stats + 4, 6, &sample);
	strbuf_done(&sb);
	assert_string_equal(buf, " s64=-5 s32=-1 on=true name=q\"x\\y\n"
				 " per_order=1/2/3 per_cpu=7/8");
	strbuf_init(&sb, buf, sizeof(buf));
	stat_text_lines(&sb, sample_stats + 8, 3, &sample, 10);
	strbuf_done(&sb);
	assert_string_equal(buf, "per_order  1 2 3\nper_cpu    7 8\n");
	assert_int_equal(stat_value(&sample_stats[4], &sample, 0),
			 (unsigned long long)-5);
	assert_int_equal(stat_value(&sample_stats[9], &sample, 1), 8);
}

static void test_schema_names_path_unit_kind_label(void **state)
{
	static const struct stat_group groups[] = {
		STAT_GROUP("*.pcp.*", sample_stats),
	};
	static const struct stat_schema schema = STAT_SCHEMA(groups);
	struct strbuf sb;
	bool first = true;

	(void)state;
	strbuf_init(&sb, buf, sizeof(buf));
	stat_schema_json(&sb, "zone", &schema, &first);
	strbuf_done(&sb);
	assert_false(first);
	assert_true(!strncmp(buf,
			     "\"zone.*.pcp.*.u8\":{\"unit\":\"events\","
			     "\"kind\":\"counter\",\"label\":\"one byte\"},",
			     strlen("\"zone.*.pcp.*.u8\":{\"unit\":\"events\","
				    "\"kind\":\"counter\",\"label\":\"one "
				    "byte\"},")));
	assert_non_null(strstr(buf, ",\"zone.*.pcp.*.per_order\":{\"unit\":"
				    "\"blocks\",\"kind\":\"gauge\",\"label\":"
				    "\"whole array\",\"per\":\"order\"}"));
	assert_non_null(strstr(buf, "\"zone.*.pcp.*.on\":{\"unit\":\"\","
				    "\"kind\":\"info\""));
}

static void test_a_leaf_component_is_its_path_alone(void **state)
{
	static const struct stat_desc leaf[] = {
		STAT_FN("", put_list, STAT_KIND_INFO, "device", "", "the list"),
	};
	static const struct stat_group groups[] = {STAT_GROUP("", leaf)};
	static const struct stat_schema schema = STAT_SCHEMA(groups);
	struct strbuf sb;
	bool first = false;

	(void)state;
	strbuf_init(&sb, buf, sizeof(buf));
	stat_schema_json(&sb, "pci", &schema, &first);
	stat_json_value(&sb, &leaf[0], NULL);
	strbuf_done(&sb);
	assert_string_equal(buf, ",\"pci\":{\"unit\":\"\",\"kind\":\"info\","
				 "\"label\":\"the list\",\"per\":\"device\"}"
				 "[\"a\",\"b\"]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_type_is_written_as_its_value),
		cmocka_unit_test(test_counted_array_is_clamped_to_its_capacity),
		cmocka_unit_test(test_text_views_print_the_same_values),
		cmocka_unit_test(test_schema_names_path_unit_kind_label),
		cmocka_unit_test(test_a_leaf_component_is_its_path_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
