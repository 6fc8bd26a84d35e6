/* A recursive-descent JSON walker for tests (json_walk.h). */
#include "json_walk.h"

#include <stdio.h>
#include <string.h>

struct walk {
	const char *p;
	struct json_member *out;
	int n, max;
};

static void skip_space(struct walk *w)
{
	while (*w->p == ' ' || *w->p == '\n' || *w->p == '\t' || *w->p == '\r')
		w->p++;
}

/* A string at w->p into s[size] (escapes kept as written). */
static int string(struct walk *w, char *s, size_t size)
{
	size_t n = 0;

	if (*w->p++ != '"')
		return -1;
	while (*w->p && *w->p != '"') {
		if (*w->p == '\\' && w->p[1])
			w->p++;
		if (n + 1 < size)
			s[n++] = *w->p;
		w->p++;
	}
	if (*w->p++ != '"')
		return -1;
	s[n] = '\0';
	return 0;
}

static int value(struct walk *w, const char *path, bool *leaf);

static int object(struct walk *w, const char *path)
{
	w->p++; /* { */
	skip_space(w);
	if (*w->p == '}') {
		w->p++;
		return 0;
	}
	for (;;) {
		struct json_member m;
		char child[JSON_WALK_PATH];

		skip_space(w);
		if (string(w, m.key, sizeof(m.key)))
			return -1;
		skip_space(w);
		if (*w->p++ != ':')
			return -1;
		snprintf(m.obj, sizeof(m.obj), "%s", path);
		snprintf(child, sizeof(child), "%s%s%s", path, *path ? "." : "",
			 m.key);
		int at = w->n++;
		if (value(w, child, &m.leaf))
			return -1;
		if (at < w->max)
			w->out[at] = m;
		skip_space(w);
		if (*w->p == '}') {
			w->p++;
			return 0;
		}
		if (*w->p++ != ',')
			return -1;
	}
}

static int array(struct walk *w, const char *path, bool *leaf)
{
	char elem[JSON_WALK_PATH];

	snprintf(elem, sizeof(elem), "%s[]", path);
	w->p++; /* [ */
	*leaf = true;
	skip_space(w);
	if (*w->p == ']') {
		w->p++;
		return 0;
	}
	for (;;) {
		bool elem_leaf;

		if (value(w, elem, &elem_leaf))
			return -1;
		*leaf = *leaf && elem_leaf;
		skip_space(w);
		if (*w->p == ']') {
			w->p++;
			return 0;
		}
		if (*w->p++ != ',')
			return -1;
	}
}

static int value(struct walk *w, const char *path, bool *leaf)
{
	char s[256];

	skip_space(w);
	*leaf = false;
	if (*w->p == '{')
		return object(w, path);
	if (*w->p == '[') {
		bool all_leaves;
		int r = array(w, path, &all_leaves);

		*leaf = all_leaves;
		return r;
	}
	*leaf = true;
	if (*w->p == '"')
		return string(w, s, sizeof(s));
	if (!strncmp(w->p, "true", 4) || !strncmp(w->p, "null", 4)) {
		w->p += 4;
		return 0;
	}
	if (!strncmp(w->p, "false", 5)) {
		w->p += 5;
		return 0;
	}
	if (*w->p == '-' || (*w->p >= '0' && *w->p <= '9')) {
		w->p++;
		while ((*w->p >= '0' && *w->p <= '9') || *w->p == '.' ||
		       *w->p == 'e' || *w->p == 'E' || *w->p == '+' ||
		       *w->p == '-')
			w->p++;
		return 0;
	}
	return -1;
}

int json_walk(const char *text, struct json_member *out, int max)
{
	struct walk w = {text, out, 0, max};
	bool leaf;

	if (value(&w, "", &leaf))
		return -1;
	skip_space(&w);
	if (*w.p)
		return -1;
	return w.n < max ? w.n : max;
}

/* One component: "*" any key, "*[]" any key's list of objects. */
static bool component_matches(const char *p, size_t pl, const char *c,
			      size_t cl)
{
	bool plist = pl >= 2 && !strncmp(p + pl - 2, "[]", 2);
	bool clist = cl >= 2 && !strncmp(c + cl - 2, "[]", 2);

	if (plist != clist)
		return false;
	if (plist) {
		pl -= 2;
		cl -= 2;
	}
	if (pl == 1 && *p == '*')
		return cl > 0;
	return pl == cl && !strncmp(p, c, pl);
}

bool json_path_matches(const char *pattern, const char *path)
{
	for (;;) {
		size_t pl = strcspn(pattern, "."), sl = strcspn(path, ".");

		if (!component_matches(pattern, pl, path, sl))
			return false;
		pattern += pl;
		path += sl;
		if (!*pattern || !*path)
			return !*pattern && !*path;
		pattern++;
		path++;
	}
}
