#include "symbols/jitmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/procfs.h"

static int open_trusted(const char *path, uint32_t owner, struct stat *st,
			struct kp_jitmap_result *r)
{
	/* O_PATH|O_NOFOLLOW: a symlink is seen as one (and refused), and
	 * nothing but a regular file is ever opened for reading */
	int pfd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);

	if (pfd < 0)
		return -errno;
	if (fstat(pfd, st) != 0 || !S_ISREG(st->st_mode) ||
	    (st->st_uid != 0 && st->st_uid != owner) ||
	    st->st_size > (off_t)KP_JITMAP_MAX_BYTES) {
		close(pfd);
		r->refused = 1;
		return -EPERM;
	}
	return kp_procfs__reopen_regular(pfd);
}

static int parse_line(struct kp_symtab *t, char *line)
{
	char *p = line, *end;
	unsigned long long start, size;

	start = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return -EINVAL;
	p = end + 1;
	size = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || !size)
		return -EINVAL;
	p = end + 1;
	p[strcspn(p, "\r\n")] = '\0';
	return kp_symtab__add(t, start, size, 0, p, KP_SYM_RANK_GLOBAL);
}

struct kp_symtab *kp_jitmap__load(const char *path, uint32_t owner,
				  struct kp_jitmap_result *r)
{
	struct kp_symtab *t = NULL;
	struct stat st;
	char line[4096];
	FILE *f;
	int fd, err;

	memset(r, 0, sizeof(*r));
	fd = open_trusted(path, owner, &st, r);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f || !(t = kp_symtab__new())) {
		err = ENOMEM;
		goto out_err;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		if (n == sizeof(line) - 1 && line[n - 1] != '\n') {
			int c;	/* overlong line: skip the rest of it */

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			r->bad_lines++;
			continue;
		}
		err = parse_line(t, line);
		if (err == -ENOMEM)
			goto out_enomem;
		if (err)
			r->bad_lines++;
	}
	r->size = st.st_size;
	fclose(f);
	kp_symtab__finish(t);
	return t;
out_enomem:
	err = ENOMEM;
out_err:
	kp_symtab__free(t);
	if (f)
		fclose(f);
	else
		close(fd);
	errno = err;
	return NULL;
}
