/* A streaming JSON writer (see json_out.h). */
#include "json_out.h"

#include <math.h>

void jw_init(struct jw *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->count[0] = 0;
	w->pending_key = 0;
}

/* Separator and indentation before a value or a key. */
static void jw_before(struct jw *w)
{
	if (w->pending_key) {
		w->pending_key = 0;
		return;
	}
	if (w->count[w->depth]++ > 0)
		fputc(',', w->f);
	if (w->depth > 0) {
		fputc('\n', w->f);
		for (int i = 0; i < w->depth; i++)
			fputs("  ", w->f);
	}
}

static void jw_open(struct jw *w, char c)
{
	jw_before(w);
	fputc(c, w->f);
	if (w->depth < JW_MAX_DEPTH - 1)
		w->depth++;
	w->count[w->depth] = 0;
}

static void jw_close(struct jw *w, char c)
{
	int had = w->count[w->depth] > 0;

	if (w->depth > 0)
		w->depth--;
	if (had) {
		fputc('\n', w->f);
		for (int i = 0; i < w->depth; i++)
			fputs("  ", w->f);
	}
	fputc(c, w->f);
	if (w->depth == 0)
		fputc('\n', w->f);
}

void jw_obj_begin(struct jw *w) { jw_open(w, '{'); }
void jw_obj_end(struct jw *w) { jw_close(w, '}'); }
void jw_arr_begin(struct jw *w) { jw_open(w, '['); }
void jw_arr_end(struct jw *w) { jw_close(w, ']'); }

static void jw_escaped(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void jw_key(struct jw *w, const char *key)
{
	jw_before(w);
	jw_escaped(w->f, key);
	fputs(": ", w->f);
	w->pending_key = 1;
}

void jw_str(struct jw *w, const char *s)
{
	jw_before(w);
	jw_escaped(w->f, s);
}

void jw_num(struct jw *w, double v)
{
	jw_before(w);
	if (isfinite(v))
		fprintf(w->f, "%.10g", v);
	else
		fputs("null", w->f);
}

void jw_u64(struct jw *w, uint64_t v)
{
	jw_before(w);
	fprintf(w->f, "%llu", (unsigned long long)v);
}

void jw_int(struct jw *w, long v)
{
	jw_before(w);
	fprintf(w->f, "%ld", v);
}

void jw_bool(struct jw *w, int v)
{
	jw_before(w);
	fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jw *w)
{
	jw_before(w);
	fputs("null", w->f);
}

void jw_kstr(struct jw *w, const char *k, const char *s) { jw_key(w, k); jw_str(w, s); }
void jw_knum(struct jw *w, const char *k, double v) { jw_key(w, k); jw_num(w, v); }
void jw_ku64(struct jw *w, const char *k, uint64_t v) { jw_key(w, k); jw_u64(w, v); }
void jw_kint(struct jw *w, const char *k, long v) { jw_key(w, k); jw_int(w, v); }
void jw_kbool(struct jw *w, const char *k, int v) { jw_key(w, k); jw_bool(w, v); }
