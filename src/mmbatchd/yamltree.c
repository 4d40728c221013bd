/* See yamltree.h. */
#include "yamltree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct ybuild {
	yaml_parser_t parser;
	const char *file;
	struct mb_error *err;
	size_t nodes;
};

static int next_event(struct ybuild *b, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&b->parser, ev)) {
		const yaml_mark_t *m = &b->parser.problem_mark;

		mb_error_set(b->err, b->file, (int)m->line + 1, (int)m->column + 1, "YAML syntax error: %s%s%s",
			     b->parser.problem ? b->parser.problem : "unknown problem",
			     b->parser.context ? " " : "", b->parser.context ? b->parser.context : "");
		return -EINVAL;
	}
	return 0;
}

void ytree_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_items; i++)
		ytree_free(n->items[i]);
	free(n->items);
	free(n->value);
	free(n);
}

bool ynode_is_null(const struct ynode *n)
{
	return n->type == YNODE_SCALAR && n->plain &&
	       (n->value[0] == '\0' || strcmp(n->value, "~") == 0 || strcmp(n->value, "null") == 0);
}

/* The items array holds max(4, next power of two) slots: it doubles when
 * full, so a map of n keys costs O(n) copying, not O(n^2). */
static void add_item(struct ynode *parent, struct ynode *child)
{
	size_t n = parent->n_items;

	if (n == 0 || (n >= 4 && (n & (n - 1)) == 0))
		parent->items = xreallocarray(parent->items, n ? 2 * n : 4, sizeof(*parent->items));
	parent->items[parent->n_items++] = child;
}

/* Builds the node that starts with ev (consumed here). */
static int build(struct ybuild *b, yaml_event_t *ev, int depth, struct ynode **ret)
{
	const yaml_mark_t *m = &ev->start_mark;
	yaml_event_type_t end;
	struct ynode *n;
	int r = 0;

	if (++b->nodes > YNODE_MAX_NODES) {
		mb_error_set(b->err, b->file, (int)m->line + 1, (int)m->column + 1, "too many YAML nodes (limit %d)",
			     YNODE_MAX_NODES);
		yaml_event_delete(ev);
		return -EINVAL;
	}
	if (ev->type == YAML_ALIAS_EVENT) {
		mb_error_set(b->err, b->file, (int)m->line + 1, (int)m->column + 1, "YAML aliases are not supported");
		yaml_event_delete(ev);
		return -EINVAL;
	}
	if (depth > YNODE_MAX_DEPTH) {
		mb_error_set(b->err, b->file, (int)m->line + 1, (int)m->column + 1, "nesting deeper than %d levels",
			     YNODE_MAX_DEPTH);
		yaml_event_delete(ev);
		return -EINVAL;
	}

	n = xcalloc(1, sizeof(*n));
	n->line = (int)m->line + 1;
	n->col = (int)m->column + 1;
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		n->type = YNODE_SCALAR;
		if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length)) {
			mb_error_set(b->err, b->file, n->line, n->col, "NUL character in a scalar");
			r = -EINVAL;
			break;
		}
		n->value = xstrdup((const char *)ev->data.scalar.value);
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		yaml_event_delete(ev);
		*ret = n;
		return 0;
	case YAML_SEQUENCE_START_EVENT:
		n->type = YNODE_SEQ;
		end = YAML_SEQUENCE_END_EVENT;
		break;
	case YAML_MAPPING_START_EVENT:
		n->type = YNODE_MAP;
		end = YAML_MAPPING_END_EVENT;
		break;
	default:
		mb_error_set(b->err, b->file, n->line, n->col, "unexpected YAML event");
		r = -EINVAL;
		break;
	}
	yaml_event_delete(ev);
	if (r < 0) {
		ytree_free(n);
		return r;
	}
	for (;;) {
		yaml_event_t child_ev;
		struct ynode *child;

		r = next_event(b, &child_ev);
		if (r < 0)
			break;
		if (child_ev.type == end) {
			yaml_event_delete(&child_ev);
			*ret = n;
			return 0;
		}
		r = build(b, &child_ev, depth + 1, &child);
		if (r < 0)
			break;
		add_item(n, child);
	}
	ytree_free(n);
	return r;
}

int ytree_parse(const char *file, const char *data, size_t len, struct ynode **ret, struct mb_error *err)
{
	struct ybuild b = { .file = file, .err = err };
	struct ynode *root = NULL;
	yaml_event_t ev;
	int r;

	if (!yaml_parser_initialize(&b.parser))
		abort();
	yaml_parser_set_input_string(&b.parser, (const unsigned char *)data, len);

	r = next_event(&b, &ev); /* STREAM-START */
	if (r < 0)
		goto out;
	yaml_event_delete(&ev);
	r = next_event(&b, &ev);
	if (r < 0)
		goto out;
	if (ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		goto out; /* empty: *ret = NULL */
	}
	yaml_event_delete(&ev); /* DOCUMENT-START */
	r = next_event(&b, &ev);
	if (r < 0)
		goto out;
	r = build(&b, &ev, 0, &root);
	if (r < 0)
		goto out;
	r = next_event(&b, &ev); /* DOCUMENT-END */
	if (r < 0)
		goto out;
	yaml_event_delete(&ev);
	r = next_event(&b, &ev);
	if (r < 0)
		goto out;
	if (ev.type != YAML_STREAM_END_EVENT) {
		mb_error_set(err, file, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
			     "only one YAML document is allowed");
		r = -EINVAL;
	}
	yaml_event_delete(&ev);
out:
	yaml_parser_delete(&b.parser);
	if (r < 0) {
		ytree_free(root);
		return r;
	}
	*ret = root;
	return 0;
}
