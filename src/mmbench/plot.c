/* compare --plot (see plot.h). The data goes to a temp file and the script
 * to gnuplot's stdin; the PNG is drawn into a temp name and renamed. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void mb_plot_add(struct mb_plot *p, const char *bench, const char *metric,
		 const struct mb_comparison *c)
{
	struct mb_plot_row *row;

	if (p->n == p->cap) {
		int cap = p->cap ? p->cap * 2 : 32;
		struct mb_plot_row *nr = realloc(p->rows, (size_t)cap * sizeof(*nr));

		if (!nr)
			return; /* the plot loses a row; the table printed it */
		p->rows = nr;
		p->cap = cap;
	}
	row = &p->rows[p->n++];
	snprintf(row->label, sizeof(row->label), "%s %s", bench, metric);
	row->change = c->change_pct;
	row->lo = isnan(c->ci_lo_pct) ? c->change_pct : c->ci_lo_pct;
	row->hi = isnan(c->ci_hi_pct) ? c->change_pct : c->ci_hi_pct;
	row->verdict = c->verdict;
}

void mb_plot_free(struct mb_plot *p)
{
	free(p->rows);
	p->rows = NULL;
	p->n = p->cap = 0;
}

/* gnuplot strings in single quotes: drop the quote character itself. */
static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s != '\'')
			fputc(*s, f);
	fputc('\'', f);
}

int mb_plot_write(const struct mb_plot *p, const char *png, const char *a, const char *b)
{
	const char *tmpdir = getenv("TMPDIR");
	char *datapath = NULL, *pngtmp = NULL;
	size_t plen = strlen(png) + 16;
	FILE *f = NULL, *gp = NULL;
	int fd, r = 0, status;
	double lim = 20;

	if (!tmpdir || !*tmpdir)
		tmpdir = P_tmpdir; /* the C library's temp directory */
	{
		size_t n = strlen(tmpdir) + 32;

		datapath = malloc(n);
		if (datapath)
			snprintf(datapath, n, "%s/mmbench-plot.XXXXXX", tmpdir);
	}
	pngtmp = malloc(plen);
	if (!datapath || !pngtmp) {
		r = -ENOMEM;
		goto out;
	}
	snprintf(pngtmp, plen, "%s.tmp.png", png);
	fd = mkostemp(datapath, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(datapath);
		datapath = NULL;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		goto out;
	}
	for (int i = 0; i < p->n; i++)
		fprintf(f, "%d \"%s\" %g %g %g %d\n", i, p->rows[i].label, p->rows[i].change,
			p->rows[i].lo, p->rows[i].hi, p->rows[i].verdict);
	if (fclose(f) != 0) {
		f = NULL;
		r = -EIO;
		goto out;
	}
	f = NULL;

	/* y range from the changes, not the CIs: one noisy metric's CI
	 * would otherwise flatten every bar */
	for (int i = 0; i < p->n; i++)
		if (fabs(p->rows[i].change) * 1.5 + 10 > lim)
			lim = fabs(p->rows[i].change) * 1.5 + 10;
	gp = popen("gnuplot", "we");
	if (!gp) {
		r = -errno;
		goto out;
	}
	fprintf(gp, "set terminal pngcairo size %d,640\nset output ", p->n * 40 + 300 > 900 ? p->n * 40 + 300 : 900);
	put_quoted(gp, pngtmp);
	fprintf(gp, "\nset title ");
	{
		char title[512];

		snprintf(title, sizeof(title), "mmbench: %s vs baseline %s (change of median, 95%% CI)",
			 b, a);
		put_quoted(gp, title);
	}
	fprintf(gp,
		"\nset style fill solid 0.5\nset boxwidth 0.6\nset grid y\n"
		"set ylabel 'change %%'\nset xtics rotate by -60 noenhanced font ',8'\n"
		"set key off\nset xrange [-1:%d]\nset yrange [%g:%g]\n"
		"plot ", p->n, -lim, lim);
	put_quoted(gp, datapath);
	fprintf(gp, " using 1:3:(column(6)==1?0x2e8b57:column(6)==2?0xcc2222:0x888888):xtic(2)"
		    " with boxes lc rgb variable, ");
	put_quoted(gp, datapath);
	fprintf(gp, " using 1:3:4:5 with yerrorbars lc rgb 'black' pt 0\n");
	status = pclose(gp);
	if (status == -1)
		r = -errno;
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		r = -ECHILD;
	if (r == 0 && rename(pngtmp, png) < 0)
		r = -errno;
out:
	if (pngtmp) {
		if (r < 0)
			unlink(pngtmp);
		free(pngtmp);
	}
	if (datapath) {
		unlink(datapath);
		free(datapath);
	}
	return r;
}
