/*
 * A small JSON reader for tests: it walks a document and reports every
 * member of every object with the object's path, so a test can compare a
 * document with its description (libc/stat_table.h's schema paths).
 *
 * Paths: "" is the document's top object; a member's object is the
 * parent's path, a dot and the member's key ("node0.pcp.cpu1"); the
 * objects of a list get the list's path with "[]" ("eth0.queues[]").
 */
#ifndef TESTS_JSON_WALK_H
#define TESTS_JSON_WALK_H

#include <stdbool.h>
#include <stddef.h>

#define JSON_WALK_PATH 160

/* One member: its object's path, its key, and whether its value is a
 * leaf (a number, string, true, false, null, or a list of those). */
struct json_member {
	char obj[JSON_WALK_PATH];
	char key[64];
	bool leaf;
};

/*
 * json_walk - fill out[] with the members of text, in document order;
 * returns how many (at most max), or -1 if text is not one JSON value.
 */
int json_walk(const char *text, struct json_member *out, int max);

/* json_path_matches - does path fit pattern, component by component,
 * "*" matching any one key and "*[]" any key's list of objects? */
bool json_path_matches(const char *pattern, const char *path);

#endif /* TESTS_JSON_WALK_H */
