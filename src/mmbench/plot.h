/* compare --plot: the change of every judged metric with its 95% CI, drawn
 * by gnuplot into a PNG. */
#ifndef MMBENCH_PLOT_H
#define MMBENCH_PLOT_H

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
/* Runs gnuplot; 0, -ECHILD when gnuplot fails, or -errno. */
int mb_plot_write(const struct mb_plot *p, const char *png, const char *a, const char *b);
void mb_plot_free(struct mb_plot *p);

#endif
