// SPDX-License-Identifier: GPL-2.0-only
/* rc.c — the settings file of the live view (see rc.h). */
#include "tui/rc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/safefile.h"

static const char *const view_names[KP_VIEW_KIND_MAX] = {
	"functions", "tree", "callers", "processes", "threads", "cgroups", "modules",
	"flame",
};
static const char *const sort_names[] = { "self", "total", "name" };
static const char *const mode_names[] = { "cumulative", "decaying", "window" };

#define NR(a) (int)(sizeof(a) / sizeof((a)[0]))

static int lookup(const char *const *names, int n, const char *v)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], v) == 0)
			return i;
	return -1;
}

int kp_rc__path(char *buf, size_t n)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	int len;

	if (x && *x == '/')
		len = snprintf(buf, n, "%s/kptop/kptoprc", x);
	else if (h && *h == '/')
		len = snprintf(buf, n, "%s/.config/kptop/kptoprc", h);
	else
		return -ENOENT;
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

/* One "key = value" line; 0 or -EINVAL. */
static int set(struct kp_rc *rc, const char *key, const char *v)
{
	char *end;
	int i;

	if (strcmp(key, "view") == 0 && (i = lookup(view_names, KP_VIEW_KIND_MAX, v)) >= 0)
		rc->view = (enum kp_view_kind)i;
	else if (strncmp(key, "sort.", 5) == 0 &&
		 (i = lookup(view_names, KP_VIEW_KIND_MAX, key + 5)) >= 0 &&
		 lookup(sort_names, NR(sort_names), v) >= 0)
		rc->sorts[i] = (enum kp_sort)lookup(sort_names, NR(sort_names), v);
	else if (strcmp(key, "mode") == 0 && (i = lookup(mode_names, NR(mode_names), v)) >= 0)
		rc->mode = (enum kp_time_mode)i;
	else if (strcmp(key, "delay") == 0) {
		double d = strtod(v, &end);

		if (end == v || *end || !(d >= 0.05 && d <= 3600))
			return -EINVAL;
		rc->delay_ms = (unsigned)(d * 1000 + 0.5);
	} else if ((strcmp(key, "hide-kernel") == 0 || strcmp(key, "hide-user") == 0) &&
		   (strcmp(v, "yes") == 0 || strcmp(v, "no") == 0))
		*(key[5] == 'k' ? &rc->hide_kernel : &rc->hide_user) = v[0] == 'y';
	else
		return -EINVAL;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int parse(FILE *f, const char *path, struct kp_rc *rc, struct kp_err *warn)
{
	char line[512];
	int nr = 0;

	while (fgets(line, sizeof(line), f)) {
		char *s = trim(line), *eq;

		nr++;
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (eq)
			*eq = '\0';
		if (!eq || set(rc, trim(s), trim(eq + 1)) < 0)
			return kp_err_set(warn, -EINVAL, "%s:%d: not a setting kptop "
					  "knows (see kptop(1)); the rest of the file is ignored",
					  path, nr);
	}
	return 0;
}

int kp_rc__read(const char *path, struct kp_rc *rc, struct kp_err *warn)
{
	struct stat st;
	FILE *f;
	int fd, rc2;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return 1;
	if (fd < 0)
		return kp_err_set(warn, -errno, "%s: %s; settings not read", path,
				  strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size > 65536) {
		close(fd);
		return kp_err_set(warn, -EPERM, "%s: not a small regular file of "
				  "this user; settings not read", path);
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return kp_err_set(warn, -ENOMEM, "out of memory");
	}
	rc2 = parse(f, path, rc, warn);
	fclose(f);
	return rc2;
}

/* mkdir for the directory part of path (its parent too: ~/.config). */
static void make_dirs(const char *path)
{
	char dir[4096];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	if (mkdir(dir, 0700) == 0 || errno != ENOENT)
		return;
	make_dirs(dir);
	mkdir(dir, 0700);
}

int kp_rc__write(const char *path, const struct kp_rc *rc, struct kp_err *err)
{
	struct kp_safefile *sf;
	FILE *f;

	make_dirs(path);
	sf = kp_safefile__open(path, err);
	if (!sf)
		return -errno;
	f = kp_safefile__stream(sf);
	fprintf(f, "# kptop settings, written by the live view (key W) and read\n"
		"# when it starts; options on the command line win. One\n"
		"# \"key = value\" a line; see kptop(1), FILES.\n");
	fprintf(f, "# view: functions tree callers processes threads cgroups modules\n"
		"view = %s\n", view_names[rc->view]);
	fprintf(f, "# the sort of each view: self, total or name\n");
	for (int k = 0; k < KP_VIEW_KIND_MAX; k++)
		if ((unsigned)rc->sorts[k] < (unsigned)NR(sort_names))
			fprintf(f, "sort.%s = %s\n", view_names[k], sort_names[rc->sorts[k]]);
	fprintf(f, "# refresh interval in seconds (-d)\ndelay = %.2f\n",
		rc->delay_ms / 1000.0);
	fprintf(f, "# time mode: cumulative, decaying or window\nmode = %s\n",
		mode_names[rc->mode % 3]);
	fprintf(f, "# frames hidden: yes or no\nhide-kernel = %s\nhide-user = %s\n",
		rc->hide_kernel ? "yes" : "no", rc->hide_user ? "yes" : "no");
	return kp_safefile__commit(sf, err);
}
