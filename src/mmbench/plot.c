/* compare --plot (see plot.h). gnuplot runs in a private directory
 * (mkdtemp under TMPDIR, 0700) on files of fixed names there: the data, the
 * script, the PNG it draws. No path reaches the script, and no label: the
 * labels are data (a double-quoted column, never parsed as commands). The
 * only user text in the script is the title (the two result files' names),
 * as a single-quoted gnuplot string: gnuplot substitutes nothing inside one
 * (no backslash escapes, backquotes or macros), a quote is written twice,
 * and a control character (a newline would end the command and start
 * another: system("...")) is refused by compare and replaced here. The PNG
 * is then copied beside OUT.png under a random name (mkostemp) and renamed
 * over it, so OUT.png is never half-written. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The files of the private directory: fixed names, nothing of the user's. */
#define PLOT_DATA "data"
#define PLOT_SCRIPT "plot.gp"
#define PLOT_PNG "out.png"

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

static int is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

int mb_plot_name_ok(const char *name)
{
	for (; *name; name++)
		if (is_ctl((unsigned char)*name))
			return 0;
	return 1;
}

void mb_plot_put_escaped(FILE *f, const char *name)
{
	for (; *name; name++) {
		unsigned char c = (unsigned char)*name;

		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\\')
			fputs("\\\\", f);
		else if (is_ctl(c))
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* S as a single-quoted gnuplot string (see the top of this file). */
static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("''", f);
		else if (is_ctl((unsigned char)*s))
			fputc('?', f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* S as a double-quoted column of the data file: a quote, a backslash or a
 * control character (which would end the column or the row) becomes '?'. */
static void put_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		fputc(*s == '"' || *s == '\\' || is_ctl((unsigned char)*s) ? '?' : *s, f);
	fputc('"', f);
}

/* A new file NAME in the directory DFD, for writing; NULL with errno set. */
static FILE *create_at(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

/* fclose that reports a failed write: 0 or -errno. */
static int close_file(FILE *f)
{
	int bad;

	errno = 0;
	bad = ferror(f);
	if (fclose(f) != 0 || bad)
		return errno ? -errno : -EIO;
	return 0;
}

static int write_data(int dfd, const struct mb_plot *p)
{
	FILE *f = create_at(dfd, PLOT_DATA);

	if (!f)
		return -errno;
	for (int i = 0; i < p->n; i++) {
		fprintf(f, "%d ", i);
		put_label(f, p->rows[i].label);
		fprintf(f, " %g %g %g %d\n", p->rows[i].change, p->rows[i].lo, p->rows[i].hi,
			p->rows[i].verdict);
	}
	return close_file(f);
}

static int write_script(int dfd, const struct mb_plot *p, const char *a, const char *b)
{
	FILE *f = create_at(dfd, PLOT_SCRIPT);
	char title[512];
	double lim = 20;

	if (!f)
		return -errno;
	/* y range from the changes, not the CIs: one noisy metric's CI
	 * would otherwise flatten every bar */
	for (int i = 0; i < p->n; i++)
		if (fabs(p->rows[i].change) * 1.5 + 10 > lim)
			lim = fabs(p->rows[i].change) * 1.5 + 10;
	fprintf(f, "set terminal pngcairo size %d,640\nset output '" PLOT_PNG "'\nset title ",
		p->n * 40 + 300 > 900 ? p->n * 40 + 300 : 900);
	snprintf(title, sizeof(title), "mmbench: %s vs baseline %s (change of median, 95%% CI)", b, a);
	put_quoted(f, title);
	fprintf(f,
		" noenhanced\nset style fill solid 0.5\nset boxwidth 0.6\nset grid y\n"
		"set ylabel 'change %%'\nset xtics rotate by -60 noenhanced font ',8'\n"
		"set key off\nset xrange [-1:%d]\nset yrange [%g:%g]\n"
		"plot '" PLOT_DATA "' using 1:3:(column(6)==1?0x2e8b57:column(6)==2?0xcc2222:0x888888):xtic(2)"
		" with boxes lc rgb variable, '" PLOT_DATA "' using 1:3:4:5 with yerrorbars lc rgb 'black' pt 0\n",
		p->n, -lim, lim);
	return close_file(f);
}

/* gnuplot PLOT_SCRIPT in the directory DFD, stdin from /dev/null: 0,
 * -ECHILD when it fails (or cannot be run: its message is on stderr), or
 * -errno. */
static int run_gnuplot(int dfd)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		if (fchdir(dfd) < 0 || nul < 0 || dup2(nul, STDIN_FILENO) < 0) {
			dprintf(STDERR_FILENO, "mmbench compare: cannot set up gnuplot: %s\n",
				strerror(errno));
			_exit(126);
		}
		execlp("gnuplot", "gnuplot", PLOT_SCRIPT, (char *)NULL);
		dprintf(STDERR_FILENO, "mmbench compare: cannot run gnuplot: %s\n", strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

/* PLOT_PNG of DFD to PNG: a random name beside it, then renamed over it. */
static int install_png(int dfd, const char *png)
{
	size_t n = strlen(png) + 8;
	char *tmp = malloc(n), buf[65536];
	int in = -1, out = -1, r = 0;
	mode_t mask;
	ssize_t got;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n, "%s.XXXXXX", png);
	in = openat(dfd, PLOT_PNG, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	out = mkostemp(tmp, O_CLOEXEC);
	if (out < 0) {
		r = -errno;
		close(in);
		free(tmp);
		return r;
	}
	while (r == 0 && (got = read(in, buf, sizeof(buf))) != 0) {
		if (got < 0) {
			if (errno != EINTR)
				r = -errno;
			continue;
		}
		for (ssize_t off = 0; r == 0 && off < got;) {
			ssize_t w = write(out, buf + off, (size_t)(got - off));

			if (w < 0 && errno != EINTR)
				r = -errno;
			else if (w > 0)
				off += w;
		}
	}
	/* the mode a new file gets (what gnuplot's own file had), not
	 * mkostemp's 0600 */
	mask = umask(0);
	umask(mask);
	if (r == 0 && fchmod(out, 0666 & ~mask) < 0)
		r = -errno;
	if (close(out) < 0 && r == 0)
		r = -errno;
	close(in);
	if (r == 0 && rename(tmp, png) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	free(tmp);
	return r;
}

int mb_plot_write(const struct mb_plot *p, const char *png, const char *a, const char *b)
{
	const char *tmpdir = getenv("TMPDIR");
	char *dir;
	size_t n;
	int dfd, r;

	if (!tmpdir || !*tmpdir)
		tmpdir = P_tmpdir; /* the C library's temp directory */
	n = strlen(tmpdir) + 32;
	dir = malloc(n);
	if (!dir)
		return -ENOMEM;
	snprintf(dir, n, "%s/mmbench-plot.XXXXXX", tmpdir);
	if (!mkdtemp(dir)) {
		r = -errno;
		free(dir);
		return r;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		rmdir(dir);
		free(dir);
		return r;
	}
	r = write_data(dfd, p);
	if (r == 0)
		r = write_script(dfd, p, a, b);
	if (r == 0)
		r = run_gnuplot(dfd);
	if (r == 0)
		r = install_png(dfd, png);
	unlinkat(dfd, PLOT_DATA, 0);
	unlinkat(dfd, PLOT_SCRIPT, 0);
	unlinkat(dfd, PLOT_PNG, 0);
	close(dfd);
	rmdir(dir);
	free(dir);
	return r;
}
