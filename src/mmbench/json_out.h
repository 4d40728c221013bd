/* A streaming JSON writer: keeps the nesting so commas land in the right
 * places, escapes strings, prints non-finite numbers as null. */
#ifndef MMBENCH_JSON_OUT_H
#define MMBENCH_JSON_OUT_H

#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 16

struct jw {
	FILE *f;
	int depth;
	int count[JW_MAX_DEPTH]; /* members written at each level */
	int pending_key;         /* a key was written, its value comes next */
};

void jw_init(struct jw *w, FILE *f);
void jw_obj_begin(struct jw *w);
void jw_obj_end(struct jw *w);
void jw_arr_begin(struct jw *w);
void jw_arr_end(struct jw *w);
void jw_key(struct jw *w, const char *key);
void jw_str(struct jw *w, const char *s);
void jw_num(struct jw *w, double v);
void jw_u64(struct jw *w, uint64_t v);
void jw_int(struct jw *w, long v);
void jw_bool(struct jw *w, int v);
void jw_null(struct jw *w);

/* key + value shorthands */
void jw_kstr(struct jw *w, const char *key, const char *s);
void jw_knum(struct jw *w, const char *key, double v);
void jw_ku64(struct jw *w, const char *key, uint64_t v);
void jw_kint(struct jw *w, const char *key, long v);
void jw_kbool(struct jw *w, const char *key, int v);

#endif
