/* pump-load.c — reading a saved stream (`kptop -i`): check the owner,
 * map the file, check the header, feed the SYMTAB records (pass 1), then
 * everything else (pass 2). A damaged record ends both passes: what came
 * before it is kept and a warning names the byte offset. */
#include "pump/pump.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pump/pump-int.h"

void kp_pump_load_release(struct kp_pump *p)
{
	if (p->file_map)
		munmap((void *)p->file_map, p->file_size);
	p->file_map = NULL;
	p->file_size = p->file_start = p->file_end = 0;
}

static int open_checked(const char *path, int force, struct stat *st,
			struct kp_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0)
		return kp_err_set(err, -errno, "%s: cannot open: %s", path,
				  strerror(errno));
	if (fstat(fd, st)) {
		e = -errno;
		close(fd);
		return kp_err_set(err, e, "%s: %s", path, strerror(-e));
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return kp_err_set(err, -EINVAL, "%s: not a regular file", path);
	}
	if (!force && geteuid() != 0 && st->st_uid != geteuid()) {
		close(fd);
		return kp_err_set(err, -EPERM, "%s: owned by uid %u, not by you "
				  "(uid %u); use --force to read it anyway", path,
				  (unsigned)st->st_uid, (unsigned)geteuid());
	}
	if (st->st_size < KP_STREAM_HEADER_LEN) {
		close(fd);
		return kp_err_set(err, KP_ETRUNC, "%s: too short to be a kptop "
				  "stream (%jd bytes)", path, (intmax_t)st->st_size);
	}
	return fd;
}

/* One pass over the records from p->file_start up to p->file_end: feed
 * SYMTAB records only (symtab == 1) or everything else (0). On damage,
 * shortens file_end to the damaged record and fills warning. */
static int pass(struct kp_pump *p, const char *path, int symtab,
		struct kp_err *warning, struct kp_err *err)
{
	const uint8_t *buf = p->file_map;
	size_t off = p->file_start, used;
	struct kp_err derr = { 0 };
	struct kp_record r;
	int rc;

	while (off < p->file_end) {
		rc = kp_decoder__next(p->dec, buf + off, p->file_end - off, off,
				      &used, &r, &derr);
		if (rc == 0 && off + used == p->file_end)
			break;	/* only unknown records were left: skipped */
		if (rc == 0)
			rc = kp_err_set(&derr, KP_ETRUNC, "the last record is cut short");
		if (rc < 0) {
			kp_err_set(warning, rc, "%s: damaged at byte %zu: %s", path,
				   off, derr.msg);
			p->file_end = off;
			return 0;
		}
		off += used;
		if ((r.type == KP_REC_SYMTAB) != symtab)
			continue;
		kp_pump_note_meta(p, &r);
		rc = kp_model__feed(p->m, &r);
		if (rc)
			return kp_err_set(err, rc, "%s: feeding the model: %s", path,
					  kp_strerror(rc));
		p->info.records++;
	}
	return 0;
}

int kp_pump__load_file(struct kp_pump *p, const char *path, int force,
		       struct kp_err *warning, struct kp_err *err)
{
	struct kp_stream_header hdr;
	struct kp_err herr = { 0 };
	struct stat st;
	void *map;
	int fd, rc;

	if (warning)
		warning->code = 0, warning->msg[0] = '\0';
	kp_pump_load_release(p);
	fd = open_checked(path, force, &st, err);
	if (fd < 0)
		return fd;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	rc = -errno;
	close(fd);
	if (map == MAP_FAILED)
		return kp_err_set(err, rc, "%s: cannot map: %s", path, strerror(-rc));
	p->file_map = map;
	p->file_size = (size_t)st.st_size;
	rc = kp_stream_header_decode(map, p->file_size, &hdr, &herr);
	if (rc)
		return kp_err_set(err, rc, "%s: %s", path, herr.msg);
	kp_decoder__set_minor(p->dec, hdr.minor);
	p->file_start = hdr.header_len;
	p->file_end = p->file_size;
	if (p->file_start > p->file_end)
		return kp_err_set(err, KP_ETRUNC, "%s: header length %zu beyond the "
				  "end of the file", path, p->file_start);
	rc = pass(p, path, 1, warning, err);
	if (rc == 0)
		rc = pass(p, path, 0, warning, err);
	return rc;
}
