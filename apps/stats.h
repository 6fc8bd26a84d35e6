/*
 * /stats.json (apps/stats.c): one JSON document with every counter the
 * system keeps, composed from each layer's own JSON writer.
 */
#ifndef APPS_STATS_H
#define APPS_STATS_H

#include <stddef.h>

/* The whole document. snprintf semantics. Any context: it only reads
 * counters (the HTTP server calls it on its CPU, the shell on CPU 0). */
int stats_json(char *buf, size_t size);

/*
 * stats_schema_json - the description of every value of the document:
 * {"path":{"unit":..,"kind":"counter|gauge|info","label":..[,"per":..]},
 * ...}, where a path names the value's place ("nic.*.queues[].rx_packets":
 * "*" any key, "[]" each object of a list). snprintf semantics. Any
 * context; the same text until an app adds a section.
 */
int stats_schema_json(char *buf, size_t size);

struct stat_schema;

/**
 * stats_section_add - add the member @name, written by @fn (snprintf
 * semantics, one JSON value) and described by @schema
 * (libc/stat_table.h), after the system's own sections. For the apps'
 * counters: the composer names no app.
 * Context: boot, CPU 0. Return: 0, or -1 (reported) when full.
 */
int stats_section_add(const char *name, int (*fn)(char *buf, size_t size),
		      const struct stat_schema *schema);

#endif /* APPS_STATS_H */
