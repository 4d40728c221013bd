/* A small YAML node tree built from libyaml's event API, keeping the
 * line/column of every node so that every profile error can name its place.
 * Aliases are refused (no billion-laughs), nesting and size are bounded. */
#ifndef MMBATCHD_YAMLTREE_H
#define MMBATCHD_YAMLTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

#define YNODE_MAX_DEPTH 16
#define YNODE_MAX_NODES 100000

enum ynode_type { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP };

struct ynode {
	enum ynode_type type;
	int line, col;  /* 1-based */
	char *value;    /* scalars */
	bool plain;     /* unquoted scalar */
	struct ynode **items; /* seq: items; map: key, value, key, value, ... */
	size_t n_items;
};

/* Parses one YAML document. Returns 0 with *ret (NULL for an empty stream),
 * or -EINVAL with err naming file:line:col. */
int ytree_parse(const char *file, const char *data, size_t len, struct ynode **ret, struct mb_error *err);

void ytree_free(struct ynode *n);

/* A plain empty scalar ("key:" with nothing after it) is YAML's null. */
bool ynode_is_null(const struct ynode *n);

#endif
