/* compare --plot: the change of every judged metric with its 95% CI, drawn
 * by gnuplot into a PNG. */
#ifndef MMBENCH_PLOT_H
#define MMBENCH_PLOT_H

#include <stdio.h>

#include "stats.h"

struct mb_plot_row {
	char label[80];
	double change, lo, hi;
	int verdict;
};

struct mb_plot {
	struct mb_plot_row *rows;
	int n, cap;
};

void mb_plot_add(struct mb_plot *p, const char *bench, const char *metric,
		 const struct mb_comparison *c);
/* 1 when NAME (a result file's name) may go into the chart's title: no
 * control character (a newline would end gnuplot's command). */
int mb_plot_name_ok(const char *name);
/* NAME on F with its control characters escaped (\n, \t, \xNN): one line. */
void mb_plot_put_escaped(FILE *f, const char *name);
/* Runs gnuplot; 0, -ECHILD when gnuplot fails, or -errno. No file name
 * reaches gnuplot's script: it runs in a private temp directory on files of
 * fixed names there; only the title carries A and B (quoted, control
 * characters refused by the caller and replaced here). */
int mb_plot_write(const struct mb_plot *p, const char *png, const char *a, const char *b);
void mb_plot_free(struct mb_plot *p);

#endif
